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


def gradcheck_prints_the_transpose_of_the_jacobian():
    """gradcheck's mismatch message prints each Jacobian with one row per input element and one column per
    output element: for y = A x with A of shape 3 × 2 (J = A, one row per output), it prints Aᵀ, 2 × 3."""
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)

    class Linear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return a @ x

        @staticmethod
        def backward(ctx, grad_output):
            return 2 * (grad_output @ a)  # twice the true vector-Jacobian product: gradcheck must fail

    x = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    try:
        gradcheck(Linear.apply, (x,))
    except GradcheckError as error:
        message = str(error)
    else:
        raise AssertionError("gradcheck passed a backward that is off by a factor of 2")
    printed = message.split("numerical:")[1].split("analytical:")
    names = {"__builtins__": {}, "tensor": torch.tensor, "torch": torch}  # the text is a tensor's repr
    numerical, analytical = (eval(text.strip().rstrip(","), names) for text in printed)
    assert numerical.shape == (2, 3) and torch.allclose(numerical.double(), a.T, atol=1e-6), numerical
    assert torch.equal(analytical.double(), 2 * a.T), analytical


def _scaled(scale, error):
    """t ↦ scale·t, elementwise, whose backward returns scale + error instead of scale."""

    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * scale

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * (scale + error)

    return Scaled.apply


def _passes(function, *inputs, **settings):
    try:
        return gradcheck(function, inputs, **settings)
    except GradcheckError:
        return False


def gradcheck_tolerance_is_atol_plus_rtol_times_numerical():
    """A backward off by 0.9 · (atol + rtol·|numerical|) passes gradcheck; off by 1.1 times that, it fails.
    The bound is |numerical|, not |analytical|, and it holds element by element, not for the largest entry."""
    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(_softplus([], [], error=0.9), (t,))
    assert not _passes(_softplus([], [], error=1.1), t), "an error beyond atol + rtol·|numerical| passed"
    # Derivative 1, backward off by 1.0105e-3: beyond 1e-5 + 1e-3·|numerical| = 1.0100e-3, within
    # 1e-5 + 1e-3·|analytical| = 1.0110e-3 (finite-difference noise in float64: about 1e-10).
    assert not _passes(_scaled(torch.tensor([1.0], dtype=torch.float64), 1.0105e-3), t[:1]), "|analytical| used"
    # Scales 1 and 1000, the first off by 0.5: within 1e-5 + 1e-3·1000 but far beyond 1e-5 + 1e-3·1.
    scales = torch.tensor([1.0, 1000.0], dtype=torch.float64)
    assert not _passes(_scaled(scales, torch.tensor([0.5, 0.0], dtype=torch.float64)), t[:2]), "a global bound"


def gradcheck_checks_only_inputs_that_require_grad():
    """A backward that is wrong for one input passes gradcheck while that input does not require grad,
    and fails once it does; a tensor the function captures instead of taking it in `inputs` is not checked,
    even though it requires grad."""

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
    b.requires_grad_()
    assert _passes(lambda a: Two.apply(a, b), a), "a captured b that requires grad was checked"
    assert not _passes(Two.apply, a, b), "the wrong gradient for b should fail once b is an input that requires grad"


def gradcheck_takes_complex128_inputs_as_it_takes_float64():
    """gradcheck checks a function of complex128 inputs without a warning, as it does float64, and passes a correct
    one; with complex64 inputs it warns, as with float32, and the warning names complex as a fit input type."""
    torch.manual_seed(0)
    z = torch.randn(3, dtype=torch.complex128, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradcheck(lambda v: v * v.conj() + v ** 3, (z,))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradcheck(lambda v: v * v.conj() + v ** 3, (z.detach().to(torch.complex64).requires_grad_(),),
                  raise_exception=False)
    assert any("double precision floating point or complex" in str(warning.message) for warning in caught), caught

    class Square(torch.autograd.Function):  # z², whose backward forgets the conjugate: gradcheck must catch it
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return v ** 2

        @staticmethod
        def backward(ctx, grad_output):
            (v,) = ctx.saved_tensors
            return grad_output * 2 * v  # right: grad_output * (2 * v).conj()

    assert not gradcheck(Square.apply, (z,), raise_exception=False)


def _page_softplus(dtype_forward=None, dtype_backward=None):
    """The page's correct Softplus; forward or backward optionally computed in another dtype and cast back."""

    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            inner = t if dtype_forward is None else t.to(dtype_forward)
            return inner.exp().log1p().to(t.dtype)

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            if dtype_backward is None:
                return grad_output * t.sigmoid()
            return (grad_output.to(dtype_backward) * t.to(dtype_backward).sigmoid()).to(t.dtype)

    return Softplus.apply


# Correct backward functions: three of torch's own, and the page's Softplus written by hand.
CORRECT = {"2x": lambda x: 2 * x, "x²": lambda x: x ** 2, "F.softplus": torch.nn.functional.softplus,
           "the page's Softplus": _page_softplus()}


def float32_gradcheck_fails_correct_backward_functions():
    """With float32 inputs of order one (randn, seeds 0-4) and its default settings, gradcheck warns and fails
    correct backward functions: 2x, x², F.softplus and the page's custom Softplus."""
    for name, function in CORRECT.items():
        for seed in range(5):
            torch.manual_seed(seed)
            x = torch.randn(3, requires_grad=True)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert not _passes(function, x), f"a float32 gradcheck of {name} passed (seed {seed})"
            assert any("double precision" in str(w.message) for w in caught), [str(w.message) for w in caught]


def float32_gradcheck_at_small_inputs_passes_2x_and_x2_not_softplus():
    """With float32 inputs of about 0.01 (0.01·randn, seeds 0-4), gradcheck passes 2x and x², whose outputs are that
    small too, and fails F.softplus, whose outputs are near log 2; it warns about float32 inputs in every run. The
    pass is marginal: at 0.03·randn (seeds 0-199), 2x fails in most draws."""
    for name, passes in (("2x", True), ("x²", True), ("F.softplus", False)):
        for seed in range(5):
            torch.manual_seed(seed)
            x = (0.01 * torch.randn(3)).requires_grad_()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert _passes(CORRECT[name], x) == passes, f"float32 gradcheck of {name} at 0.01·randn (seed {seed})"
            assert any("double precision" in str(w.message) for w in caught), [str(w.message) for w in caught]
    failed = 0
    for seed in range(200):
        torch.manual_seed(seed)
        x = (0.03 * torch.randn(3)).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            failed += not _passes(CORRECT["2x"], x)
    assert failed > 100, f"2x failed in only {failed} of 200 draws at 0.03·randn"


def float32_forward_fails_gradcheck_float32_backward_passes():
    """In a float64 gradcheck of the page's correct Softplus with inputs of order one (randn, seeds 0-4), a forward
    computed in float32 fails, while a backward computed in float32, off by float32 rounding, passes."""
    for seed in range(5):
        torch.manual_seed(seed)
        t = torch.randn(3, dtype=torch.float64, requires_grad=True)
        assert not _passes(_page_softplus(dtype_forward=torch.float32), t), f"float32 forward passed (seed {seed})"
        backward32 = _page_softplus(dtype_backward=torch.float32)
        (grad,) = torch.autograd.grad(backward32(t), t, torch.ones_like(t))
        relative = ((grad - t.detach().sigmoid()) / t.detach().sigmoid()).abs().max().item()
        assert 1e-10 < relative < 1e-5, relative  # float32 rounding, far inside rtol = 1e-3
        assert _passes(backward32, t), f"float32 backward failed (seed {seed})"


def _max_central_difference_error(f, t, eps):
    (grad,) = torch.autograd.grad(f(t), t)
    with torch.no_grad():
        steps = eps * torch.eye(t.numel(), dtype=t.dtype)
        numeric = torch.stack([(f(t + step) - f(t - step)) / (2 * eps) for step in steps])
    return (numeric - grad).abs().max().item()


def central_difference_of_a_quadratic_has_no_truncation_error():
    """In float64, at five random points (randn(4), seeds 0-4), the central difference of Σ t² at eps = 0.1 agrees
    with autograd to 1e-12 (Σ t·cos t: off by more than 1e-3 at seed 0), and its error grows at every decade as eps
    shrinks to 1e-6: rounding, no minimum. The page says "at the five random points tried": at half-decade steps it
    does not always grow, and at one seed in 200 (164) it shrinks once between 1e-3 and 1e-4."""
    for seed in range(5):
        torch.manual_seed(seed)
        t = torch.randn(4, dtype=torch.float64, requires_grad=True)
        quadratic = [_max_central_difference_error(lambda v: (v * v).sum(), t, 10.0 ** -k) for k in range(1, 7)]
        assert quadratic[0] < 1e-12, (seed, quadratic)
        assert all(a < b for a, b in zip(quadratic, quadratic[1:])), (seed, quadratic)
        if seed == 0:
            assert _max_central_difference_error(lambda v: (v * v.cos()).sum(), t, 0.1) > 1e-3


def float64_rounding_grows_with_the_values():
    """In float64 at eps = 1e-6, the central difference of Σ t·cos t is within 1e-8 of autograd at the sweep's point,
    and off by more than 1e-5 at 1000 times that point. That is rounding: the truncation error there is at most
    eps²/6 times the largest third derivative, t sin t - 3 cos t, so below eps²/6 · (max|t| + 3), under 1e-9; and the
    error grows when eps shrinks to 1e-7."""
    torch.manual_seed(0)
    point = torch.randn(4, dtype=torch.float64)
    f = lambda v: (v * v.cos()).sum()  # noqa: E731
    assert _max_central_difference_error(f, point.clone().requires_grad_(), 1e-6) < 1e-8
    large = 1000 * point
    error = _max_central_difference_error(f, large.clone().requires_grad_(), 1e-6)
    truncation_bound = 1e-6 ** 2 / 6 * (large.abs().max().item() + 3)
    assert error > 1e-5 > 1e4 * truncation_bound, (error, truncation_bound)
    assert _max_central_difference_error(f, large.clone().requires_grad_(), 1e-7) > error



def gradcheck_calls_backward_with_zeros_and_wants_zeros_back():
    """By default gradcheck calls the backward twice with an all-zero grad_output, once with check_undefined_grad=False;
    a backward that returns anything but zeros for it fails, even with check_undefined_grad=False."""
    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    for setting, expected in ((True, 2), (False, 1)):
        grad_outputs = []
        assert gradcheck(_softplus([], grad_outputs), (t,), check_undefined_grad=setting)
        assert sum(int(g.count_nonzero()) == 0 for g in grad_outputs) == expected, (setting, grad_outputs)

    class NotZeroForZero(torch.autograd.Function):  # right for every grad_output but zeros
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return grad_output * t.sigmoid() + (grad_output == 0).all() * t.sigmoid()

    assert not _passes(NotZeroForZero.apply, t)
    try:
        gradcheck(NotZeroForZero.apply, (t,), check_undefined_grad=False)
    except GradcheckError as error:
        assert "not multiplied by grad_output" in str(error), str(error)
    else:
        raise AssertionError("a backward that returns non-zeros for a zero grad_output passed")


def check_undefined_grad_hands_none_without_materialized_grads():
    """A softplus Function that calls ctx.set_materialize_grads(False): of gradcheck's two all-zero backward calls,
    one (present only with check_undefined_grad=True, the default) hands backward None; a backward that returns
    None for None passes, one that multiplies it makes gradcheck raise a TypeError, with raise_exception=False too,
    and passes with check_undefined_grad=False."""

    def softplus(multiply_none, grad_outputs):
        class Softplus(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.set_materialize_grads(False)
                ctx.save_for_backward(t)
                return t.exp().log1p()

            @staticmethod
            def backward(ctx, grad_output):
                grad_outputs.append(grad_output)
                (t,) = ctx.saved_tensors
                if grad_output is None and not multiply_none:
                    return None
                return grad_output * t.sigmoid()

        return Softplus.apply

    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    for setting, nones in ((True, 1), (False, 0)):
        grad_outputs = []
        assert gradcheck(softplus(False, grad_outputs), (t,), check_undefined_grad=setting)
        assert sum(g is None for g in grad_outputs) == nones, (setting, grad_outputs)
        zeros = sum(g is not None and int(g.count_nonzero()) == 0 for g in grad_outputs)
        assert zeros == 1, (setting, grad_outputs)
    for raise_exception in (True, False):
        try:
            gradcheck(softplus(True, []), (t,), raise_exception=raise_exception)
        except TypeError as error:
            assert "NoneType" in str(error), str(error)
        else:
            raise AssertionError(f"a backward that multiplies None raised nothing ({raise_exception=})")
    assert gradcheck(softplus(True, []), (t,), check_undefined_grad=False)


def fast_mode_compares_the_jacobians_along_fixed_pseudorandom_directions():
    """With fast_mode=True, gradcheck never calls the backward with a one-hot grad_output: it nudges the input along a
    direction with no zero element and calls the backward with a grad_output with no zero element, the same ones
    whatever the global random seed."""
    torch.manual_seed(0)
    t = torch.randn(5, dtype=torch.float64, requires_grad=True)
    seen = []
    for seed in (1, 2):
        inputs, grad_outputs = [], []
        torch.manual_seed(seed)
        assert gradcheck(_softplus(inputs, grad_outputs), (t,), fast_mode=True)
        nudges = [x - t.detach() for x in inputs if not torch.equal(x, t.detach())]
        dense_nudges = [n for n in nudges if int(n.count_nonzero()) == t.numel()]
        dense_grads = [g for g in grad_outputs if int(g.count_nonzero()) == t.numel()]
        assert dense_nudges and dense_grads, (nudges, grad_outputs)
        assert not any(int(g.count_nonzero()) == 1 for g in grad_outputs), grad_outputs
        seen.append((dense_nudges[0], dense_grads[0]))
    assert torch.equal(seen[0][0], seen[1][0]) and torch.equal(seen[0][1], seen[1][1]), "the seed changed them"


def gradcheck_catches_a_forgotten_grad_output_with_one_output_element_by_the_zero_call():
    """A Function with one output element whose backward forgets grad_output (Σ exp t, backward exp t): the one-hot
    grad_output is then all ones, and gradcheck fails it with "backward not multiplied by grad_output", the check of
    the all-zero call, by default, with check_undefined_grad=False and with fast_mode=True."""

    class SumExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t.exp().sum()

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return t.exp()  # grad_output forgotten

    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    for settings in ({}, {"check_undefined_grad": False}, {"fast_mode": True}):
        try:
            gradcheck(SumExp.apply, (t,), **settings)
        except GradcheckError as error:
            assert "backward not multiplied by grad_output" in str(error), (settings, str(error))
        else:
            raise AssertionError(f"a backward that forgets grad_output passed with {settings}")


def gradcheck_fails_relu_within_eps_of_its_kink():
    """gradcheck (eps = 1e-6) fails torch.relu at inputs closer to its kink than eps (0, ±eps/3, the central
    difference straddles 0) and passes it at ±2·eps."""
    eps = 1e-6
    for d in (0.0, eps / 3, -eps / 3):
        assert not _passes(torch.relu, torch.tensor([d, 1.0], dtype=torch.float64, requires_grad=True)), d
    for d in (2 * eps, -2 * eps):
        assert _passes(torch.relu, torch.tensor([d, 1.0], dtype=torch.float64, requires_grad=True)), d


def gradcheck_checks_a_jvp_only_with_check_forward_ad():
    """A Softplus Function with a correct backward and a jvp off by a factor 2 passes gradcheck's defaults and fails
    with check_forward_ad=True."""

    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            ctx.save_for_forward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return grad_output * t.sigmoid()

        @staticmethod
        def jvp(ctx, t_dot):
            (t,) = ctx.saved_tensors
            return t_dot * t.sigmoid() * 2  # wrong

    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert _passes(Softplus.apply, t), "the defaults checked the jvp"
    assert not _passes(Softplus.apply, t, check_forward_ad=True), "check_forward_ad missed a wrong jvp"


def gradcheck_checks_a_modules_parameters_through_functional_call():
    """A float64 module whose backward is 1000x wrong for its parameter passes gradcheck(model, (x,)) and fails once
    the parameters are inputs, through torch.func.functional_call; a correct nn.Linear passes that way."""

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, grad_output):
            x, w = ctx.saved_tensors
            return grad_output * w, grad_output * x * 1000  # wrong for w

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(3))

        def forward(self, x):
            return Scale.apply(x, self.w)

    def with_parameters_as_inputs(model):
        names = [name for name, _ in model.named_parameters()]
        params = tuple(p.detach().requires_grad_() for p in model.parameters())
        return (lambda x, *params: torch.func.functional_call(model, dict(zip(names, params)), (x,))), params

    torch.manual_seed(0)
    model = Model().double()
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert _passes(model, x), "a captured parameter was checked"
    function, params = with_parameters_as_inputs(model)
    assert not _passes(function, x, *params), "a wrong gradient for a parameter passed as input"
    function, params = with_parameters_as_inputs(torch.nn.Linear(3, 2).double())
    assert _passes(function, x, *params)



def gradcheck_returns_false_with_raise_exception_false():
    """On a failure gradcheck raises GradcheckError; with raise_exception=False it returns False instead (a backward
    that forgets grad_output), and True on the page's correct Softplus."""
    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)

    class Forgetful(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return t.sigmoid()  # grad_output forgotten

    try:
        gradcheck(Forgetful.apply, (t,))
    except GradcheckError:
        pass
    else:
        raise AssertionError("gradcheck did not raise on a backward that forgets grad_output")
    assert gradcheck(Forgetful.apply, (t,), raise_exception=False) is False
    assert gradcheck(_page_softplus(), (t,), raise_exception=False) is True


def gradcheck_runs_no_batched_backward_unless_check_batched_grad():
    """A backward that reads grad_output.tolist() breaks under vmap: torch.autograd.grad(..., is_grads_batched=True)
    raises. gradcheck passes it by default (check_batched_grad=False), in both modes, and fails it with
    check_batched_grad=True."""

    class Unbatchable(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return torch.tensor(grad_output.tolist(), dtype=t.dtype) * t.sigmoid()

    torch.manual_seed(0)
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.autograd.grad(Unbatchable.apply(t), t, torch.eye(3, dtype=t.dtype), is_grads_batched=True)
        except RuntimeError:
            pass
        else:
            raise AssertionError("the backward ran under vmap")
        for fast_mode in (False, True):
            assert gradcheck(Unbatchable.apply, (t,), fast_mode=fast_mode)
            assert not _passes(Unbatchable.apply, t, fast_mode=fast_mode, check_batched_grad=True), fast_mode


def assert_close_against_a_plain_torch_twin_needs_no_eps():
    """The page's Softplus against its twin in plain torch ops, t.exp().log1p(), differentiated by autograd, for a
    random grad_output (seeds 0-4): torch.testing.assert_close with its default tolerances passes in float64 and in
    float32, and fails a backward off by 0.05 % (gcheck_off_small of gradcheck-limits.py), which gradcheck passes."""

    class Off(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t.exp().log1p()

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return grad_output * t.sigmoid() * (1 + 5e-4)

    for seed in range(5):
        for function, dtype, off in ((_page_softplus(), torch.float64, False),
                                     (_page_softplus(), torch.float32, False), (Off.apply, torch.float64, True)):
            torch.manual_seed(seed)
            t = torch.randn(3, dtype=dtype, requires_grad=True)
            grad_output = torch.randn(3, dtype=dtype)
            (mine,) = torch.autograd.grad(function(t), t, grad_output)
            (twin,) = torch.autograd.grad(t.exp().log1p(), t, grad_output)
            try:
                torch.testing.assert_close(mine, twin)
            except AssertionError:
                assert off, f"assert_close failed the page's Softplus in {dtype} (seed {seed})"
            else:
                assert not off, f"assert_close let a backward off by 0.05 % through (seed {seed})"
        assert gradcheck(Off.apply, (t,)), seed
