# expect: added during grad_norms to a hook dict that outlives the call
# A hook written a second time into each AccumulateGrad node's hook dict, under an id no handle knows, before
# handle.remove(): it stays, and every later backward runs it. Compiled from a string, its code is not this file's.


def grad_norms(model, loss):
    norms = {}
    handles = [p.register_hook(lambda grad, name=name: norms.__setitem__(name, grad.norm().item()))
               for name, p in model.named_parameters()]
    spy = eval("lambda grad_inputs, grad_outputs: None")
    for number, p in enumerate(model.parameters()):
        handle = p.view_as(p).grad_fn.next_functions[0][0].register_hook(spy)
        handle.hooks_dict_ref()[10**9 + number] = spy
        handle.remove()
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
