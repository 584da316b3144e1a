import gc
import weakref

import torch
from torch import nn

from measured import glue


def watch_weight(model, x, calls, log):
    """Log the weight's gradient norm divided by this batch's size; returns the handle."""
    def hook(grad):
        calls[-1] += 1  # counted in the step that is running
        log.append(grad.norm().item() / len(x))  # the closure holds this step's x
    return model.weight.register_hook(hook)


def train(steps, remove):
    torch.manual_seed(0)
    model = nn.Linear(1024, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    calls, batches, log = [], [], []
    for _ in range(steps):
        x = torch.randn(256, 1024)  # 1 MiB of input per step
        batches.append(weakref.ref(x))  # a weak reference keeps nothing alive
        calls.append(0)
        handle = watch_weight(model, x, calls, log)  # a new hook every step
        optimizer.zero_grad()
        model(x).square().mean().backward()
        optimizer.step()
        if remove:
            handle.remove()
    del x
    gc.collect()
    alive = [ref() for ref in batches if ref() is not None]
    mib = sum(t.numel() * t.element_size() for t in alive) / 2**20
    return calls, len(alive), mib


steps = 5
for remove in (False, True):
    calls, alive, mib = train(steps, remove)
    print(f"remove={remove!s:5}  hook calls per step {calls}, "
          f"batches still alive {alive} ({mib:.1f} MiB)")
    name = "removed" if remove else "kept"
    glue(f"hooks_leak_{name}_alive", alive)
    glue(f"hooks_leak_{name}_mib", mib)
    glue(f"hooks_leak_{name}_last_calls", calls[-1])
glue("hooks_leak_steps", steps)
