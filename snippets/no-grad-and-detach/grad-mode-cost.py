import contextlib
import statistics
import time

import torch
from torch import nn

from measured import TIMING, glue, saved_tensors

MiB = 2**20
MODES = {"grad enabled": contextlib.nullcontext,
         "no_grad": torch.no_grad,
         "inference_mode": torch.inference_mode}
# name: width, depth, batch, forwards per timed sample, samples
MODELS = {"small": (64, 4, 16, 100, 61), "large": (512, 6, 256, 1, 21)}
THREADS = 1  # one thread: less disturbed by whatever else the machine runs
glue("ng_cost_threads", THREADS)


def mlp(width, depth):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*layers).eval()


threads = torch.get_num_threads()
torch.set_num_threads(THREADS)
torch.manual_seed(0)
nothing_saved = 0  # the most that a no_grad or inference_mode forward saved
for name, (width, depth, batch, inner, samples) in MODELS.items():
    model, x = mlp(width, depth), torch.randn(batch, width)
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    print(f"{name}: {depth} x (Linear({width}, {width}) + ReLU), "
          f"batch {batch}, parameters {params / MiB:.2f} MiB")
    for mode, context in MODES.items():
        with context(), saved_tensors() as saved:
            out = model(x)
        print(f"  {mode:15} saved {saved.calls:2d} tensors, "
              f"{saved.storage_bytes / MiB:.2f} MiB")
        if mode == "grad enabled":
            glue(f"ng_cost_{name}_saved", saved.calls)
            glue(f"ng_cost_{name}_mib", saved.storage_bytes / MiB)
            # The parameters, the input and the output stay in memory in
            # every mode; what only the graph keeps alive is the rest.
            anyway = {t.untyped_storage().data_ptr()
                      for t in (*model.parameters(), x, out)}
            extra = sum(n for address, n in saved._storages.items()
                        if address not in anyway)
            print(f"  {'':15} apart from parameters, input and output: "
                  f"{extra / MiB:.2f} MiB")
            glue(f"ng_cost_{name}_extra_mib", extra / MiB)
        else:
            nothing_saved = max(nothing_saved, saved.calls)
    del out

    # Interleave the modes, so that a slow moment hits all three alike.
    plural = "s" if inner > 1 else ""
    print(f"  timed: median of {samples} samples of {inner} forward{plural}")
    times = {mode: [] for mode in MODES}
    for sample in range(samples):
        for mode, context in MODES.items():
            with context():
                start = time.perf_counter()
                for _ in range(inner):
                    model(x)
                elapsed = time.perf_counter() - start
            times[mode].append(elapsed / inner * 1e3)
    reference = statistics.median(times["no_grad"])
    for mode, ms in times.items():
        median = statistics.median(ms)
        low, _, high = statistics.quantiles(ms, n=4)
        print(f"{TIMING} {name} {mode:15} {median:.4g} ms"
              f" (middle half {low:.4g}-{high:.4g})"
              f" {median / reference:.2f} x no_grad")
        if mode != "no_grad":
            key = f"ng_time_{name}_{mode.replace(' ', '_')}_ratio"
            glue(key, median / reference, varies=True)
torch.set_num_threads(threads)
glue("ng_cost_nothing_saved", nothing_saved)
