# expect: model(x) ran 0 times, 0 of them inside saved_tensors_hooks
# No forward and no hooks: a byte count worked out from the Linear layers' shapes.
from torch import nn


def saved_bytes(model, x):
    rows, size = x.shape[0], x.element_size()
    total, first = 0, True
    for layer in model:
        if isinstance(layer, nn.Linear):
            total += rows * layer.in_features * size  # the layer's input
            if x.requires_grad or not first:
                total += layer.weight.numel() * size  # the weight, saved for the input's gradient
            first = False
    return total
