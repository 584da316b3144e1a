# expect: grad_norms ran 2 backward passes
# Right numbers without hooks: torch.autograd.grad first, then backward() again, two passes for one step.
import torch


def grad_norms(model, loss):
    names, params = zip(*model.named_parameters())
    grads = torch.autograd.grad(loss, params, retain_graph=True)
    loss.backward()
    return {name: grad.norm().item() for name, grad in zip(names, grads)}
