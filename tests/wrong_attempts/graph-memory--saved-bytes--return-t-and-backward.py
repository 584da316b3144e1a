# expect: saved_bytes ran a backward pass
# pack returns t itself, the leak the chapter warns about, and a torch.autograd.grad afterwards frees
# the graph, so that nothing is left alive and no .grad is written.
import torch


def saved_bytes(model, x):
    storages = {}

    def pack(t):
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    leaves = [p for p in model.parameters() if p.requires_grad] + ([x] if x.requires_grad else [])
    torch.autograd.grad(out.sum(), leaves)
    return sum(storages.values())
