from collections import Counter

import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

from measured import glue

calls = Counter()


def softplus(off_by=0.0, noise=0.0):
    """The correct Softplus, counting its calls; its backward optionally off by a factor
    (1 + off_by), a number or one per element, and with random noise of size `noise` added,
    fresh on every call."""

    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            calls["forward"] += 1
            ctx.save_for_backward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            calls["backward"] += 1
            calls["one-hot"] += bool((grad_output.count_nonzero() == 1) and grad_output.sum() == 1)
            calls["all-zero"] += bool(grad_output.count_nonzero() == 0)
            (t,) = ctx.saved_tensors
            slope = t.sigmoid() * (1 + off_by) + noise * torch.randn_like(t)
            return grad_output * slope

    return Softplus.apply


def outcome(function, t, **settings):
    try:
        return f"gradcheck -> {gradcheck(function, (t,), **settings)}"
    except GradcheckError as error:
        return f"{type(error).__name__}: {error}"


print(f"{'calls during gradcheck':28}{'forward':>8}{'backward':>9}{'one-hot':>9}{'all-zero':>9}")
for fast_mode in (False, True):
    for n in (3, 30):
        calls.clear()
        torch.manual_seed(0)
        t = torch.randn(n, dtype=torch.float64, requires_grad=True)
        assert gradcheck(softplus(), (t,), fast_mode=fast_mode)
        name = f"{n} elements" + (", fast_mode=True" if fast_mode else "")
        print(f"{name:28}{calls['forward']:8}{calls['backward']:9}{calls['one-hot']:9}{calls['all-zero']:9}")
        mode = "fast" if fast_mode else "slow"
        glue(f"gcheck_{mode}_forward_{n}", calls["forward"])
        glue(f"gcheck_{mode}_backward_{n}", calls["backward"])

torch.manual_seed(0)
t = torch.randn(3, dtype=torch.float64, requires_grad=True)
for name, off_by in (("small", 5e-4), ("large", 5e-3)):
    print(f"backward off by {off_by:.2%}:", outcome(softplus(off_by=off_by), t).splitlines()[0])
    glue(f"gcheck_off_{name}", off_by)

# fast_mode compares one projection of each Jacobian: an error in one entry is mixed with the others.
ONE_OFF = 0.1
torch.manual_seed(0)
t30 = torch.randn(30, dtype=torch.float64, requires_grad=True)
first_off = torch.zeros(30, dtype=torch.float64)
first_off[0] = ONE_OFF
for fast_mode in (False, True):
    result = outcome(softplus(off_by=first_off), t30, fast_mode=fast_mode).splitlines()[0]
    print(f"30 elements, element 0 off by {ONE_OFF:.0%}, fast_mode={fast_mode}:", result)
glue("gcheck_one_off", ONE_OFF)

NOISE = 1e-12
noisy = softplus(noise=NOISE)  # a backward whose result changes from call to call
print(f"backward with noise of {NOISE:g}:", outcome(noisy, t).splitlines()[0])
glue("gcheck_noise", NOISE)
print("the same, nondet_tol=1e-9:", outcome(noisy, t, nondet_tol=1e-9))

# relu has a kink at 0: its backward returns 0 there, the central difference 1/2.
kinked = torch.tensor([0.0, 1.0, -1.0], dtype=torch.float64, requires_grad=True)
print("torch.relu at [0, 1, -1]:", outcome(torch.relu, kinked))
