"""Checks behind gradient-checking's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`gradient-checking/<name>` on a page names one)."""

import warnings

import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError


def _softplus(inputs_seen, grad_outputs_seen, error=0.0):
    """A softplus Function that records the inputs of its forward and the grad_output of its backward;
    its backward is off by error · (atol + rtol·|sigmoid(t)|) with gradcheck's default tolerances."""

    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            inputs_seen.append(t.detach().clone())
            ctx.save_for_backward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            grad_outputs_seen.append(grad_output.detach().clone())
            (t,) = ctx.saved_tensors
            slope = t.sigmoid()
            return grad_output * (slope + error * (1e-5 + 1e-3 * slope))

    return Softplus.apply


def gradcheck_builds_both_jacobians_element_by_element():
    """gradcheck evaluates the forward at t ± eps for each input element (central differences) and
    calls the backward with a one-hot grad_output for each output element."""
    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    inputs, grad_outputs = [], []
    assert gradcheck(_softplus(inputs, grad_outputs), (t,), eps=1e-6)
    for j in range(3):
        for sign in (1, -1):
            nudged = t.detach().clone()
            nudged[j] += sign * 1e-6
            assert any(torch.equal(seen, nudged) for seen in inputs), (j, sign)
        one_hot = torch.zeros(3, dtype=torch.float64)
        one_hot[j] = 1
        assert any(torch.equal(seen, one_hot) for seen in grad_outputs), j


def gradcheck_tolerance_is_atol_plus_rtol_times_numerical():
    """A backward off by 0.9 · (atol + rtol·|numerical|) passes gradcheck; off by 1.1 times that, it fails."""
    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(_softplus([], [], error=0.9), (t,))
    try:
        gradcheck(_softplus([], [], error=1.1), (t,))
    except GradcheckError:
        return
    raise AssertionError("an error beyond atol + rtol·|numerical| passed")


def gradcheck_checks_only_inputs_that_require_grad():
    """A backward that is wrong for one input passes gradcheck while that input does not require grad,
    and fails once it does."""

    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2 + b * 3

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2, grad_output * 1000  # wrong for b

    torch.manual_seed(0)
    a = torch.randn(3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64)
    assert gradcheck(Two.apply, (a, b))
    try:
        gradcheck(Two.apply, (a, b.requires_grad_()))
    except GradcheckError:
        return
    raise AssertionError("the wrong gradient for b should fail once b requires grad")


def float32_gradcheck_fails_correct_backwards():
    """With float32 inputs and its default settings, gradcheck warns and fails correct backwards: 2x, x², softplus."""
    for function in (lambda x: 2 * x, lambda x: x ** 2, torch.nn.functional.softplus):
        torch.manual_seed(0)
        x = torch.randn(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                gradcheck(function, (x,))
            except GradcheckError:
                pass
            else:
                raise AssertionError("a float32 gradcheck passed")
        assert any("double precision" in str(w.message) for w in caught), [str(w.message) for w in caught]
