# expect: aten operations gave their result a grad_fn (addmm, native_batch_norm, relu, t): a graph was recorded below the Python layer
# Runs each batch through a TorchScript trace of the model with grad mode on, inside saved_tensors_hooks of its own:
# TorchScript calls the operations below __torch_function__, so the graph it records is invisible at the Python layer.
# The model itself is called under no_grad as well, so that its mode hooks run.
import torch


def evaluate(model, batches):
    model.eval()
    with torch.no_grad():
        traced = torch.jit.trace(model, batches[0][0])
    correct = total = 0
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        for x, y in batches:
            with torch.no_grad():
                model(x)
            out = traced(x)
            correct += (out.argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total
