# expect: parameters no longer required grad
# Freezes every parameter so that no forward records a graph, and never unfreezes them.
def evaluate(model, batches):
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    correct = total = 0
    for x, y in batches:
        correct += (model(x).argmax(dim=1) == y).sum().item()
        total += len(y)
    model.train()
    return correct / total
