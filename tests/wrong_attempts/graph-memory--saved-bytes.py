# expect: summed over all 7 hook calls
# The usual first try: add up every tensor the hook sees, as if each call were new memory.

import torch


def saved_bytes(model, x):
    total = 0

    def pack(t):
        nonlocal total
        total += t.numel() * t.element_size()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return total
