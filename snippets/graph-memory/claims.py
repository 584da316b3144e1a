"""Checks behind graph-memory's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`graph-memory/<name>` on a page names one)."""

import torch
from torch import nn


def _new_saved_bytes(model, x):
    """Bytes of the distinct storages one forward saves, leaving out parameters and x."""
    held_anyway = {p.untyped_storage().data_ptr() for p in model.parameters()} | {x.untyped_storage().data_ptr()}
    found = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in held_anyway:
            found[storage.data_ptr()] = storage.nbytes()
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return sum(found.values()), out  # out keeps the saved storages alive, so no pointer is reused


def freezing_a_linear_behind_a_relu_saves_nothing():
    """A Linear's input is saved for its weight's gradient. Freeze the Linear and it no longer
    saves it, but a ReLU in front saves the same tensor (its output) for its own backward."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64))
    x = torch.randn(32, 64)
    before, _ = _new_saved_bytes(model, x)
    model[2].requires_grad_(False)
    after, _ = _new_saved_bytes(model, x)
    assert before == after == 2 * 32 * 64 * 4  # the two ReLU outputs
