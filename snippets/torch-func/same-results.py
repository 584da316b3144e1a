import warnings

import torch
import torch.autograd.functional as AF
from torch.func import hessian, jacfwd, jacrev, jvp, vjp

from measured import glue

# Forward mode (jvp, jacfwd) scripts torch's own decompositions on first use, and torch.jit.script
# warns that it is deprecated (shown as a FutureWarning from torch 2.14 on): a note about torch's
# internals, not about this code.
warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")


def f(x):
    """Three outputs that mix three inputs (scalar-outputs' f)."""
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


def energy(x):
    """A scalar function, for the Hessian."""
    return (x.sin() * x).sum()


x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.5, -2.0])  # weights of the outputs (vjp)
u = torch.tensor([1.0, 0.0, 0.0])   # a direction in the inputs (jvp)

# backward(v), as in the scalar-outputs chapter
leaf = x.clone().requires_grad_()
f(leaf).backward(v)

_, vjp_fn = vjp(f, x)   # one forward now; vjp_fn(v) runs one backward pass
_, jvp_out = jvp(f, (x,), (u,))
pairs = {
    "Jacobian: jacrev  vs AF.jacobian": (jacrev(f)(x), AF.jacobian(f, x)),
    "Jacobian: jacfwd  vs AF.jacobian": (jacfwd(f)(x), AF.jacobian(f, x)),
    "v @ J:    vjp     vs AF.vjp":      (vjp_fn(v)[0], AF.vjp(f, x, v)[1]),
    "v @ J:    vjp     vs backward(v)": (vjp_fn(v)[0], leaf.grad),
    "J @ u:    jvp     vs AF.jvp":      (jvp_out, AF.jvp(f, x, u)[1]),
    "Hessian:  hessian vs AF.hessian":  (hessian(energy)(x),
                                         AF.hessian(energy, x)),
}
largest = 0.0
for name, (ours, theirs) in pairs.items():
    difference = (ours - theirs).abs().max().item()
    largest = max(largest, difference)
    print(f"{name:33} {str(list(ours.shape)):7} "
          f"max |difference| {difference:.1e}")
glue("tf_same_largest", largest)
print("v @ J =", vjp_fn(v)[0].tolist(), "  J @ u =", jvp_out.tolist())
