"""Reference solution: one entry per storage, keyed by its address."""

import torch
from torch import nn


def saved_bytes(model, x):
    storages, alive = {}, []

    def pack(t):
        # A ReLU's output is saved by the ReLU and again by the next Linear: the same storage,
        # so the same key. A transposed weight is a view: its storage is the parameter's.
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        alive.append(t.detach())  # until forward returns: a storage freed meanwhile would free its address
        return t.detach()  # not t itself: a saved output would hold its own graph alive

    def unpack(t):
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        model(x)
    alive.clear()
    return sum(storages.values())


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8))
    print("saved for backward:", saved_bytes(model, torch.randn(4, 16)), "bytes")
