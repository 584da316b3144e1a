import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, cut=False):
        super().__init__()
        torch.manual_seed(0)  # the same weights for every way of freezing
        self.embed = nn.Linear(8, 16)
        self.body = nn.Linear(16, 16)
        self.head = nn.Linear(16, 1)
        self.cut = cut

    def forward(self, x):
        h = self.body(self.embed(x).relu()).relu()
        if self.cut:
            h = h.detach()  # nothing before this line gets a gradient
        return self.head(h)


x = torch.randn(4, 8)
print("after one backward, which weights have a .grad?")
print(f"{'how body is frozen':28}{'body requires_grad':20}"
      f"{'embed':7}{'body':7}head")
for way in ("not frozen", "body.requires_grad_(False)",
            "h.detach() after body"):
    net = Net(cut=way.startswith("h.detach"))
    if way.startswith("body.requires_grad_"):
        net.body.requires_grad_(False)
    net(x).sum().backward()
    weights = net.embed.weight, net.body.weight, net.head.weight
    got = ["None" if w.grad is None else "grad" for w in weights]
    print(f"{way:28}{net.body.weight.requires_grad!s:20}"
          f"{got[0]:7}{got[1]:7}{got[2]}")
