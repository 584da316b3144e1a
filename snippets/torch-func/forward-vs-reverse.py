import statistics
import time
import warnings

import torch
from torch.func import jacfwd, jacrev
from torch.utils.flop_counter import FlopCounterMode

from measured import TIMING, figure, glue

# Forward mode (jvp, jacfwd) scripts torch's own decompositions on first use, and torch.jit.script
# warns that it is deprecated (shown as a FutureWarning from torch 2.14 on): a note about torch's
# internals, not about this code.
warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")

HIDDEN, FIXED = 256, 16
SIZES = [4, 16, 64, 256, 1024]
REPEATS = 15
THREADS = 1  # one thread: less disturbed by whatever else the machine runs
glue("tf_sweep_hidden", HIDDEN)
glue("tf_sweep_fixed", FIXED)
glue("tf_sweep_largest", SIZES[-1])


def make_f(n_in, n_out):
    generator = torch.Generator().manual_seed(0)
    w1 = torch.randn(n_in, HIDDEN, generator=generator) / n_in**0.5
    w2 = torch.randn(HIDDEN, n_out, generator=generator) / HIDDEN**0.5
    return lambda x: (torch.tanh(x[None] @ w1) @ w2)[0]


def measure(transform, f, x):
    """Floating-point operations (counted) and median milliseconds (timed)."""
    with FlopCounterMode(display=False) as flops:
        transform(f)(x)
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        transform(f)(x)
        times.append((time.perf_counter() - start) * 1e3)
    return flops.get_total_flops(), statistics.median(times)


threads = torch.get_num_threads()
torch.set_num_threads(THREADS)
sweeps = {"outputs grow": [(FIXED, n) for n in SIZES],
          "inputs grow": [(n, FIXED) for n in SIZES]}
results = {}
print(f"{'n_in':>5} {'n_out':>5}  {'MFLOP jacrev':>12} {'jacfwd':>8}"
      f"  {'jacfwd/jacrev':>13}")
for pairs in sweeps.values():
    for n_in, n_out in pairs:
        if (n_in, n_out) in results:
            continue
        f, x = make_f(n_in, n_out), torch.randn(n_in)
        assert torch.allclose(jacrev(f)(x), jacfwd(f)(x), atol=1e-5)
        results[n_in, n_out] = {"jacrev": measure(jacrev, f, x),
                                "jacfwd": measure(jacfwd, f, x)}
        rev, fwd = results[n_in, n_out]["jacrev"], results[n_in, n_out]["jacfwd"]
        print(f"{n_in:>5} {n_out:>5}  {rev[0] / 1e6:>12.2f} {fwd[0] / 1e6:>8.2f}"
              f"  {fwd[0] / rev[0]:>13.3g}")
        glue(f"tf_sweep_{n_in}_{n_out}_flop_ratio", fwd[0] / rev[0])
for (n_in, n_out), found in results.items():
    rev, fwd = found["jacrev"][1], found["jacfwd"][1]
    print(f"{TIMING} n_in {n_in:>4} n_out {n_out:>4}  jacrev {rev:.3g} ms"
          f"  jacfwd {fwd:.3g} ms  jacfwd/jacrev {fwd / rev:.2f}")
    glue(f"tf_sweep_{n_in}_{n_out}_time_ratio", fwd / rev, varies=True)
# Where this run's time disagrees with the count: the timed ratio on the other side of 1.
disagree = sum((fwd[1] / rev[1] - 1) * (fwd[0] / rev[0] - 1) < 0
               for rev, fwd in ((found["jacrev"], found["jacfwd"]) for found in results.values()))
print(f"{TIMING} timed and counted ratio on opposite sides of 1: {disagree} of {len(results)} shapes")
glue("tf_sweep_disagree", disagree, varies=True)
glue("tf_sweep_shapes", len(results))
glue("tf_sweep_16_16_jacrev_ms", results[16, 16]["jacrev"][1], varies=True)
glue("tf_sweep_16_16_jacfwd_ms", results[16, 16]["jacfwd"][1], varies=True)
for n_out in (4, 64, 1024):
    glue(f"tf_sweep_16_{n_out}_jacrev_ms", results[16, n_out]["jacrev"][1], varies=True)
torch.set_num_threads(threads)

fig, panels = figure(7.0, 3.2)
panels.remove()
panels = fig.subplots(1, 2, sharey=True)
for ax, (title, pairs) in zip(panels, sweeps.items()):
    sizes = [n_out if title == "outputs grow" else n_in for n_in, n_out in pairs]
    for name, style in (("jacrev", "o-"), ("jacfwd", "s--")):
        ax.plot(sizes, [results[p][name][1] for p in pairs], style, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    fixed = "n_in" if title == "outputs grow" else "n_out"
    ax.set_title(f"{title} ({fixed} = {FIXED})", fontsize=10)
    ax.set_xlabel("n_out" if title == "outputs grow" else "n_in")
    ax.legend(fontsize=8)
panels[0].set_ylabel("median time (ms)")
glue("tf_sweep_fig", fig)
