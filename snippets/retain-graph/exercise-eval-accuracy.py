"""Exercise: an evaluation loop that builds no graph.

Suppose an evaluation loop, copied from a training loop, computes each batch's accuracy and
then calls backward() on it:

    model.eval()
    for x, y in test_batches:
        preds = model(x).argmax(dim=1)
        acc = (preds == y).float().mean()
        acc.backward()

It raises on the first batch: an accuracy made by argmax and == has no grad_fn. Write
`evaluate` so that it measures the accuracy and records nothing for backward, then judge it:
    python -m exercise_judge retain-graph/eval-accuracy exercise-eval-accuracy.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch


def evaluate(model, batches):
    """Return the accuracy of the classifier `model` on `batches`, a list of (x, y) pairs with
    y the class indices: the fraction of all samples whose largest logit is at their label
    (the batches need not be of one size), as a Python float.

    Build no graph: run no backward pass (no backward(), no torch.autograd.grad), and let no
    forward record one (no tensor saved for backward, no result with a grad_fn); no parameter
    may get a .grad.
    The model arrives in training mode (a training loop calls evaluate between epochs): run
    every forward in eval mode (dropout off, batch norm on its running statistics), and hand
    the model back in training mode.
    """
    raise NotImplementedError("evaluate without recording a graph")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                                torch.nn.Dropout(0.5), torch.nn.Linear(16, 3))
    batches = [(torch.randn(n, 6), torch.randint(0, 3, (n,))) for n in (20, 20, 20, 20, 7)]
    print(evaluate(model, batches), model.training)
