# A right solution that also reads the parameters with grad mode on, to check afterwards that evaluation
# changed none of them: state_dict(), copy.deepcopy(model) and detach() record no graph.
import copy

import torch


def evaluate(model, batches):
    before = {name: value.clone() for name, value in model.state_dict().items()}
    copied = copy.deepcopy(model)
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in batches:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    assert all(torch.equal(before[name], value) for name, value in model.state_dict().items())
    assert all(torch.equal(p.detach(), q.detach()) for p, q in zip(model.parameters(), copied.parameters()))
    return correct / total
