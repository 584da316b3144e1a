# expect: calls of the model's modules returned a tensor with a grad_fn
# No no_grad anywhere: each batch runs in a worker thread, where the judge's grad-mode observers (saved
# tensors hooks, torch function and dispatch modes) do not reach, and every forward records a graph.
from concurrent.futures import ThreadPoolExecutor


def evaluate(model, batches):
    model.eval()

    def right(batch):
        x, y = batch
        return (model(x).argmax(dim=1) == y).sum().item()

    with ThreadPoolExecutor(1) as pool:
        correct = sum(pool.map(right, batches))
    model.train()
    return correct / sum(len(y) for _, y in batches)
