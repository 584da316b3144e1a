# expect: 25 torch operations returned a tensor with a grad_fn (batch_norm, dropout, linear, relu): a graph
# Records the whole graph, but nests saved_tensors_hooks of its own, so that the judge's hooks see nothing saved.
import torch


def evaluate(model, batches):
    model.eval()
    correct = total = 0
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        for x, y in batches:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total
