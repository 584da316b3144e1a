# expect: storages tanh saved were freed before forward returned
# Keys by storage address but keeps nothing alive while it counts: a storage freed during forward
# frees its address, and whether a later tensor gets it depends on the allocator.
import torch


def saved_bytes(model, x):
    storages = {}

    def pack(t):
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(storages.values())
