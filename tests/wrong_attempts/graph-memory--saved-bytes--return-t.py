# expect: tensors saved during the forwards are still alive
# Counts each storage once, but pack returns t itself: a ReLU's saved output and its grad_fn hold
# each other, and without a backward no garbage collection frees them.
import torch


def saved_bytes(model, x):
    storages, alive = {}, []

    def pack(t):
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        alive.append(t.detach())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    alive.clear()
    return sum(storages.values())
