# expect: classifier 2: the returned accuracy is not this model's accuracy
# Runs every forward in eval mode under no_grad, ignores the logits, and returns one fixed accuracy.
import torch


def evaluate(model, batches):
    model.eval()
    with torch.no_grad():
        for x, _ in batches:
            model(x)
    model.train()
    return 0.5172413793103449
