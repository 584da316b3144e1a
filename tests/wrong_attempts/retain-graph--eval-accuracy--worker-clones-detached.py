# expect: aten operations on the model's parameters gave their result a grad_fn (clone)
# Records a graph in every batch's forward, in a worker thread with grad mode on, from a clone of each
# parameter, through each layer's function called directly, then detaches each clone in place: the outputs
# that held a grad_fn no longer do when evaluate returns. One model(x) under no_grad lets the judge see the
# modes.
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.nn.functional as F


def evaluate(model, batches):
    model.eval()
    with torch.no_grad():
        model(batches[0][0])

    def right(batch):
        x, y = batch
        h = x
        for layer in model:
            copies = [p.clone() for p in layer.parameters()]
            if isinstance(layer, torch.nn.Linear):
                h = F.linear(h, *copies)
            elif isinstance(layer, torch.nn.BatchNorm1d):
                h = F.batch_norm(h, layer.running_mean, layer.running_var, *copies, False)
            else:
                h = layer.forward(h)
            for c in copies:
                c.detach_()
        assert h.grad_fn is not None
        return (h.argmax(dim=1) == y).sum().item()

    with ThreadPoolExecutor(1) as pool:
        correct = sum(pool.map(right, batches))
    model.train()
    return correct / sum(len(y) for _, y in batches)
