# expect: aten operations on the model's parameters gave their result a grad_fn
# Records a graph in every batch's forward: each batch runs in a worker thread with grad mode on,
# through each layer's forward() called directly (no module hooks fire). One model(x) under no_grad
# in the caller's thread lets the judge see the modes.
from concurrent.futures import ThreadPoolExecutor

import torch


def evaluate(model, batches):
    model.eval()
    with torch.no_grad():
        model(batches[0][0])

    def right(batch):
        x, y = batch
        h = x
        for layer in model:
            h = layer.forward(h)
        assert h.grad_fn is not None  # a graph was recorded
        return (h.argmax(dim=1) == y).sum().item()

    with ThreadPoolExecutor(1) as pool:
        correct = sum(pool.map(right, batches))
    model.train()
    return correct / sum(len(y) for _, y in batches)
