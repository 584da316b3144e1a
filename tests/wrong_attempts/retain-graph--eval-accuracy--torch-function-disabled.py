# expect: aten operations gave their result a grad_fn (addmm, native_batch_norm, relu, t): a graph was recorded below the Python layer
# Records the whole graph with __torch_function__ switched off (a private switch), inside saved_tensors_hooks of its
# own: no torch operation is seen at the Python layer and no saved tensor reaches the judge's hooks.
import torch


def evaluate(model, batches):
    model.eval()
    correct = total = 0
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t), torch._C.DisableTorchFunction():
        for x, y in batches:
            out = model(x)
            correct += (out.argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total
