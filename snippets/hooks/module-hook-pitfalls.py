import warnings

import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(5, 4)  # a batch of data, as a loader gives it: it does not require grad


def look(module, grad_input, grad_output):
    print("  hook: grad_input", [None if g is None else tuple(g.shape) for g in grad_input],
          " weight.grad is None:", module.weight.grad is None)


# A full backward hook on the first layer, whose input does not require grad,
# then the same hook when the input does.
for needs_grad in (False, True):
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    handle = model[0].register_full_backward_hook(look)
    print(f"input requires grad: {needs_grad}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model(x.clone().requires_grad_(needs_grad)).sum().backward()
    handle.remove()
    print("  after backward: weight.grad is None:", model[0].weight.grad is None)
    for warning in caught:  # the message's first sentence, without the link to the docs
        print(f"  {warning.category.__name__}: {str(warning.message).split(' See ')[0]}")

# The same hook, with an in-place ReLU right after the hooked layer.
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(inplace=True), nn.Linear(3, 2))
handle = model[0].register_full_backward_hook(lambda module, grad_input, grad_output: None)
try:
    model(x)
except RuntimeError as error:
    print("ReLU(inplace=True) after the hooked layer: the forward raised")
    print(f"RuntimeError: {error}")
model[1].inplace = False
print("ReLU(inplace=False): the forward returns", tuple(model(x).shape))
handle.remove()
