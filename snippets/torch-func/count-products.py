import warnings

import torch
from torch.func import jacfwd, jacrev, jvp, vjp
from torch.utils.flop_counter import FlopCounterMode

from measured import glue

# Forward mode (jvp, jacfwd) scripts torch's own decompositions on first use, and torch.jit.script
# warns that it is deprecated (shown as a FutureWarning from torch 2.14 on): a note about torch's
# internals, not about this code.
warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")

HIDDEN = 64
SHAPES = [(4, 64), (64, 4)]  # (inputs, outputs): few in, many out; the reverse
calls = {"f": 0, "vjp_fn": 0, "jvp": 0}


def make_f(n_in, n_out):
    """R^n_in -> R^n_out through a hidden layer; counts its own calls."""
    generator = torch.Generator().manual_seed(0)
    w1 = torch.randn(n_in, HIDDEN, generator=generator) / n_in**0.5
    w2 = torch.randn(HIDDEN, n_out, generator=generator) / HIDDEN**0.5

    def f(x):
        calls["f"] += 1
        # FlopCounterMode counts the two matrix products, not the elementwise tanh.
        return (torch.tanh(x[None] @ w1) @ w2)[0]
    return f


def by_rows(f, x):
    """Reverse mode by hand: one vjp per output, each giving a row of J."""
    out, vjp_fn = vjp(f, x)
    rows = []
    for e in torch.eye(out.numel()):
        calls["vjp_fn"] += 1
        rows.append(vjp_fn(e)[0])
    return torch.stack(rows)


def by_columns(f, x):
    """Forward mode by hand: one jvp per input, each giving a column of J."""
    columns = []
    for e in torch.eye(x.numel()):
        calls["jvp"] += 1
        columns.append(jvp(f, (x,), (e,))[1])
    return torch.stack(columns, dim=1)


def run(method, f, x):
    """J, the calls it made and the floating-point operations it counted."""
    for key in calls:
        calls[key] = 0
    with FlopCounterMode(display=False) as flops:
        jacobian = method(f, x)
    return jacobian, dict(calls), flops.get_total_flops()


METHODS = {"by_rows": by_rows, "by_columns": by_columns,
           "jacrev": lambda f, x: jacrev(f)(x),
           "jacfwd": lambda f, x: jacfwd(f)(x)}
for n_in, n_out in SHAPES:
    f, x = make_f(n_in, n_out), torch.randn(n_in)
    print(f"f: {n_in} inputs -> {n_out} outputs, J is {n_out} x {n_in}")
    results = {name: run(method, f, x) for name, method in METHODS.items()}
    reference = results["jacrev"][0]
    for name, (jacobian, counted, flop) in results.items():
        made = ", ".join(f"{key} {n}" for key, n in counted.items() if n)
        same = torch.allclose(jacobian, reference, atol=1e-6)
        print(f"  {name:10} calls: {made:22} {flop / 1e3:8.1f} kFLOP"
              f"   J matches jacrev: {same}")
        tag = f"tf_count_{n_in}_{n_out}_{name}"
        glue(f"{tag}_kflop", flop / 1e3)
    # The page says jacrev counts exactly the row loop's operations: the raw counts, not the rounded kFLOP.
    assert results["jacrev"][2] == results["by_rows"][2], (results["jacrev"][2], results["by_rows"][2])
    glue(f"tf_count_{n_in}_{n_out}_rows", results["by_rows"][1]["vjp_fn"])
    glue(f"tf_count_{n_in}_{n_out}_columns", results["by_columns"][1]["jvp"])
    glue(f"tf_count_{n_in}_{n_out}_ratio",
         results["jacrev"][2] / results["jacfwd"][2])
glue("tf_count_hidden", HIDDEN)

# What the column loop repeats for every input: one call of f, and one jvp.
n_in, n_out = SHAPES[0]
f, x = make_f(n_in, n_out), torch.randn(n_in)
_, _, one_f = run(lambda f, x: f(x), f, x)
_, _, one_jvp = run(lambda f, x: jvp(f, (x,), (torch.eye(n_in)[0],)), f, x)
print(f"f: {n_in} inputs -> {n_out} outputs: one call of f {one_f / 1e3:.1f} kFLOP, "
      f"one jvp {one_jvp / 1e3:.1f} kFLOP ({one_jvp / one_f:g} x f)")
glue(f"tf_count_{n_in}_{n_out}_f_kflop", one_f / 1e3)
glue(f"tf_count_{n_in}_{n_out}_jvp_kflop", one_jvp / 1e3)
