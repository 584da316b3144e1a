"""Exercise: measure the memory one forward saves for backward.

Fill in `saved_bytes`, then judge it:
    python -m exercise_judge graph-memory/saved-bytes exercise-saved-bytes.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
from torch import nn


def saved_bytes(model, x):
    """Run model(x) once, forward only, inside torch.autograd.graph.saved_tensors_hooks, and
    return (an int) the bytes of the distinct storages that forward saved for backward.

    One storage can be saved several times: count each one once, whole. Include every storage
    that was saved, the parameters' too. Run no backward, and once the function has returned
    leave no saved tensor or storage alive."""
    raise NotImplementedError("count in a pack hook, one entry per storage")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8))
    print("saved for backward:", saved_bytes(model, torch.randn(4, 16)), "bytes")
