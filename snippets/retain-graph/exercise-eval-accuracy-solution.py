"""Reference solution: eval() for the layers, no_grad() for the graph, and no backward."""

import torch


def evaluate(model, batches):
    model.eval()  # dropout off, batch norm on its running statistics
    correct = total = 0
    with torch.no_grad():  # record nothing: no graph, no saved tensors
        for x, y in batches:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()  # back to training mode for the next epoch
    return correct / total


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                                torch.nn.Dropout(0.5), torch.nn.Linear(16, 3))
    batches = [(torch.randn(n, 6), torch.randint(0, 3, (n,))) for n in (20, 20, 20, 20, 7)]
    print(evaluate(model, batches), model.training)
