"""Exercises of the chapter torch-func."""

import contextlib
import copy
import random
import sys
from dataclasses import dataclass

import torch
from torch import nn

from exercise_judge import spies
from exercise_judge.checking import Fail, described, exercise, times
from exercise_judge.spies import autograd_passes, counted

MARK = 7.0  # what every .grad holds before the reader's function runs: it must still hold it after
# The loss_fn the reader's function gets multiplies the gradient of every loss, not its value, by a factor
# drawn anew for every call of it, from the operating system's randomness (no seed the solution sets reaches
# it), between 1.5 and 2.5: its norms are that many times those of the plain loss, while the loss it returns
# is the plain one. Norms computed apart from it (the loss function found by name or written out, on a copy
# of the model) miss by that factor, and its value does not reveal it. Python lets a solution read the factor
# out of the function's closure (and the second factor below out of the hook's); the judge does not stop that,
# and the exercise's statement says so.
SCALES = (1.5, 2.5)
# A forward hook on the model multiplies the gradient that flows through the model's output, not its value, by
# a second factor from another range: only a loss computed from that run's output carries it, so the model run
# for show beside a forward of one's own, or a copy without the hook, misses it.
OUTPUT_SCALES = (3.0, 4.0)
_SCALES = random.SystemRandom()


def _scaled(tensor, scale):
    """tensor's value, with its gradient `scale` times: tensor + (k - 1) * (tensor - tensor.detach()). A tensor
    of tensor's dtype, since under jvp a Python float would turn the result into float64."""
    return tensor + (torch.tensor(scale, dtype=tensor.dtype) - 1) * (tensor - tensor.detach())


def _model(widths, seed):
    torch.manual_seed(seed)
    layers = []
    for n_in, n_out in zip(widths, widths[1:]):
        layers += [nn.Linear(n_in, n_out), nn.Tanh()]
    return nn.Sequential(*layers[:-1])


def _reference(model, loss_fn, x, y, out_scale):
    """Per-sample gradient norms by a plain loop over torch.autograd.grad, on a copy of the model, the gradient
    through its output times out_scale, as _instrumented's hook makes it."""
    copied = copy.deepcopy(model)
    params = list(copied.parameters())
    norms = []
    for xi, yi in zip(x, y):
        grads = torch.autograd.grad(loss_fn(_scaled(copied(xi[None]), out_scale), yi[None]), params)
        norms.append(torch.sqrt(sum(g.pow(2).sum() for g in grads)))
    return torch.stack(norms)


def _batch_norm(model, loss_fn, x, y, out_scale):
    """The norm of the batch gradient: the one number a batch backward() gives."""
    copied = copy.deepcopy(model)
    grads = torch.autograd.grad(loss_fn(_scaled(copied(x), out_scale), y), list(copied.parameters()))
    return torch.sqrt(sum(g.pow(2).sum() for g in grads)).item()


def _show(t):
    values = [f"{value:.4g}" for value in t.flatten().tolist()[:4]]
    return "[" + ", ".join(values) + (", ...]" if t.numel() > 4 else "]")


@dataclass
class _Run:
    """One run of one module, as its forward pre-hook saw it."""

    numel: int  # elements of its input, as the function sees it (under vmap: one sample's)
    mapped: bool  # under vmap: the input is a batched tensor, and vmap refuses .item() on it
    own: list  # the model's own Parameters it ran with, by name (functional_call swaps them out)
    swapped: dict  # the tensors swapped in for them, by name: (the tensor, the tensor it is a view of, or None)
    stack: list  # the torch.func transforms running, outermost first (_stack)
    called: bool  # torch's functional_call ran it, with the tensors swapped in (_inside_functional_call)


def _mapped(tensor) -> bool:
    try:
        tensor.detach().sum().item()
    except RuntimeError:  # vmap: "calling .item() on a Tensor" is not supported
        return True
    return False


def _transforms(tensor):
    """The torch.func transforms wrapped around `tensor`, the innermost transform first: "grad" (grad,
    vjp, jacrev: differentiated), "vmap" (batched). None on a torch without these functions."""
    functorch = getattr(torch._C, "_functorch", None)
    needed = ("is_gradtrackingtensor", "is_batchedtensor", "get_unwrapped")
    if not isinstance(tensor, torch.Tensor) or not all(hasattr(functorch, name) for name in needed):
        return None
    found = []
    while True:
        if functorch.is_gradtrackingtensor(tensor):
            found.append("grad")
        elif functorch.is_batchedtensor(tensor):
            found.append("vmap")
        else:
            return found
        tensor = functorch.get_unwrapped(tensor)


def _inside_functional_call(module, swapped) -> bool:
    """Whether torch's functional_call is running `module` now: the innermost frame of
    torch.nn.utils.stateless._functional_call (which torch.func.functional_call calls) on the stack was given
    `module` or a module containing it, and every tensor swapped in for its parameters is a value of the dict
    it was given. Parameters swapped by hand, or functional_call on another module, are not."""
    code = getattr(getattr(torch.nn.utils.stateless, "_functional_call", None), "__code__", None)
    if code is None:
        return True  # a torch without it: not observed
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not code:
        frame = frame.f_back
    if frame is None:
        return False
    given, values = frame.f_locals.get("module"), list((frame.f_locals.get("parameters_and_buffers") or {}).values())
    return (
        isinstance(given, torch.nn.Module)
        and any(m is module for m in given.modules())
        and all(any(t is v for v in values) for t, _ in swapped.values())
    )


def _stack():
    """The torch.func transforms running now, outermost first, as (kind, level): kind "Vmap", "Grad"
    (grad, vjp, jacrev: reverse mode) or "Jvp" (jvp, jacfwd: forward mode), then ("ForwardAD", level) while a
    forward-mode dual level is open (torch.autograd.forward_ad, which jvp opens too). None on a torch without
    torch._C._functorch.get_interpreter_stack."""
    functorch = getattr(torch._C, "_functorch", None)
    if not hasattr(functorch, "get_interpreter_stack"):
        return None
    found = [(i.key().name, i.level()) for i in functorch.get_interpreter_stack() or ()]
    dual = getattr(getattr(torch.autograd, "forward_ad", None), "_current_level", -1)
    return found + [("ForwardAD", dual)] if dual >= 0 else found


class _Inputs(spies._ENGINE):
    """Below the judge's recording engine (spies._RecordingEngine, whose run_backward calls this one's), the
    tensors each backward pass differentiates: the `inputs` that torch.func's grad hands the engine."""

    def run_backward(self, *args, **kwargs):
        try:
            inputs = spies._PARAMETERS.bind(*args, **kwargs).arguments.get("inputs")
        except TypeError:  # wrong arguments: the engine raises the reader's error below
            inputs = None
        self.passes.append(tuple(inputs or ()))
        return super().run_backward(*args, **kwargs)


class _InputsEngine(spies._RecordingEngine, _Inputs):
    pass


@contextlib.contextmanager
def _pass_inputs():
    """The inputs of every backward pass run inside the block, one tuple per pass (inside autograd_passes())."""
    spies.install()
    engine, recording = spies._VARIABLE._execution_engine, _InputsEngine()
    recording.passes = []
    spies._VARIABLE._execution_engine = recording
    try:
        yield recording.passes
    finally:
        spies._VARIABLE._execution_engine = engine


@dataclass
class _Loss:
    """One call of the loss_fn the reader's function gets."""

    around: list  # the transforms wrapped around the loss it returned, innermost first (_transforms)
    stack: list  # the transforms running at the call, outermost first (_stack)


def _observed(loss_fn, scale, calls):
    """loss_fn as the reader's function gets it, its gradient times `scale` and its value unchanged: each call
    appends a _Loss. It keeps no __wrapped__, so that the reader cannot call the loss unseen that way."""

    def observed(*args, **kwargs):
        loss = loss_fn(*args, **kwargs)
        loss = _scaled(loss, scale)
        calls.append(_Loss(_transforms(loss), _stack()))
        return loss

    observed.__name__ = observed.__qualname__ = loss_fn.__name__
    return observed


@contextlib.contextmanager
def _instrumented(model, out_scale):
    """Every run of every module of `model` (the model itself under the name "model"), by name; the gradient
    through the model's output multiplied by out_scale."""
    seen, handles = {}, [model.register_forward_hook(lambda module, args, out: _scaled(out, out_scale))]
    for name, module in model.named_modules():
        own = dict(module.named_parameters(recurse=False))
        prefix, name = (name + "." if name else ""), name or "model"
        seen[name] = []

        def hook(module, args, name=name, own=own, prefix=prefix):
            first = args[0] if args and isinstance(args[0], torch.Tensor) else None
            swapped = {
                prefix + n: (getattr(module, n), getattr(getattr(module, n), "_base", None))
                for n, p in own.items()
                if getattr(module, n) is not p
            }
            seen[name].append(
                _Run(
                    first.numel() if first is not None else 0,
                    first is not None and _mapped(first),
                    [prefix + n for n, p in own.items() if getattr(module, n) is p],
                    swapped,
                    _stack(),
                    _inside_functional_call(module, swapped),
                )
            )

        handles.append(module.register_forward_pre_hook(hook))
    try:
        yield seen
    finally:
        for handle in handles:
            handle.remove()


@exercise(
    "torch-func/per-sample-norms",
    en="every sample's gradient norm, with vmap, grad and functional_call",
    zh="用 vmap、grad 和 functional_call 算出每个样本的梯度范数",
)
def per_sample_norms(solution, check):
    torch.manual_seed(0)
    cases = [
        ("mse_loss", nn.functional.mse_loss, _model([5, 8, 1], 0), torch.randn(16, 5), torch.randn(16, 1)),
        (
            "smooth_l1_loss",
            nn.functional.smooth_l1_loss,
            _model([3, 6, 6, 2], 1),
            torch.randn(8, 3),
            2 * torch.randn(8, 2),
        ),
    ]
    # Every case is judged on the call that gave its numbers: the method, not only the result.
    for loss_name, plain_loss_fn, model, x, y in cases:
        scale, out_scale = _SCALES.uniform(*SCALES), _SCALES.uniform(*OUTPUT_SCALES)

        def loss_fn(*args, plain=plain_loss_fn, scale=scale, **kwargs):
            loss = plain(*args, **kwargs)
            return loss + (scale - 1) * (loss - loss.detach())

        loss_fn.__name__ = loss_fn.__qualname__ = plain_loss_fn.__name__
        expected = _reference(model, loss_fn, x, y, out_scale)
        batch = len(x)
        call = f"per_sample_norms(model, {loss_name}, x, y)"
        check(
            f"{call} with a batch of {batch} returns {batch} norms, "
            "one per sample, equal to a loop of one backward pass per sample",
            f"{call} 对 {batch} 个样本的批次返回 {batch} 个范数，每个样本一个，和逐个样本做反向传播的循环结果相同",
        )
        for p in model.parameters():
            p.grad = torch.full_like(p, MARK)
        losses = []
        with _instrumented(model, out_scale) as seen, autograd_passes() as passes, _pass_inputs() as inputs:
            found = solution.per_sample_norms(model, _observed(plain_loss_fn, scale, losses), x, y)
        if not isinstance(found, torch.Tensor):
            raise Fail(
                "per_sample_norms must return a tensor",
                "per_sample_norms 应当返回一个张量",
                expected=(f"a tensor of shape [{batch}]", f"形状为 [{batch}] 的张量"),
                found=described(found),
                hint_en="stack the norms into one tensor, one entry per sample",
                hint_zh="把范数拼成一个张量，每个样本一个分量",
            )
        found = found.detach()
        if found.is_floating_point():  # a float64 result is compared as float32, as the reference is
            found = found.to(expected.dtype)
        if found.numel() == 1:
            whole = _batch_norm(model, loss_fn, x, y, out_scale)
            same = abs(found.item() - whole) <= 1e-4 * max(1.0, whole)
            raise Fail(
                "one norm for the whole batch" + (": the norm of the batch gradient" if same else ""),
                "整个批次只得到一个范数" + ("：这是批次梯度的范数" if same else ""),
                expected=(
                    f"{batch} norms, one per sample: {_show(expected)}",
                    f"{batch} 个范数，每个样本一个：{_show(expected)}",
                ),
                found=f"{found.item():.4g}",
                hint_en="a loss over the whole batch gives one gradient, the batch's; write the loss of one "
                "sample as a function of the parameters and map grad of it over the samples with vmap",
                hint_zh="对整个批次求损失，只能得到一个梯度，即批次梯度；把单个样本的损失写成参数的函数，"
                "再用 vmap 把它的 grad 映射到每个样本上",
            )
        if found.shape != (batch,):
            raise Fail(
                f"per_sample_norms must return a tensor of shape [{batch}]",
                f"per_sample_norms 应当返回形状为 [{batch}] 的张量",
                expected=f"[{batch}]",
                found=str(list(found.shape)),
                hint_en="one number per sample: each parameter's per-sample gradient has a leading batch "
                "dimension; flatten the rest, add the squares over all parameters, then sqrt",
                hint_zh="每个样本一个数：每个参数的逐样本梯度第一维是批次维；把其余维展平，"
                "对所有参数的平方求和，再开方",
            )

        if not torch.allclose(found, expected, rtol=1e-4, atol=1e-6):

            def near(factor):
                return torch.allclose(found, expected / factor, rtol=1e-4, atol=1e-6)

            if near(out_scale):
                raise Fail(
                    f"the norms of a loss not computed from the model's output ({loss_name}): the judge "
                    f"multiplies the gradient that flows through the model's output by {out_scale:.4f}, and "
                    "these norms miss that factor",
                    f"这些范数对应的损失不是由模型的输出算出来的（{loss_name}）：评测程序把流经模型输出的梯度乘了 "
                    f"{out_scale:.4f}，这些范数里没有这个因子",
                    expected=_show(expected),
                    found=_show(found),
                    hint_en="compute the loss from what functional_call(model, params, (xi[None],)) returns, "
                    "inside the function that grad differentiates",
                    hint_zh="损失要由 functional_call(model, params, (xi[None],)) 的返回值算出来，"
                    "而且就在 grad 求导的那个函数里",
                )
            if near(scale) or near(scale * out_scale):
                raise Fail(
                    f"the norms of {loss_name} itself, not of the loss_fn passed in, which multiplies the "
                    f"gradient of every loss by {scale:.4f}: they were computed apart from what "
                    "vmap(grad(...)) returned for it",
                    f"这是 {loss_name} 本身的范数，不是传进来的 loss_fn 的：它把每个损失的梯度都乘了 {scale:.4f}；"
                    "这些范数不是从 vmap(grad(...)) 对它的返回值算出来的",
                    expected=_show(expected),
                    found=_show(found),
                    hint_en="differentiate the loss_fn you are given, and compute the norms from what "
                    "vmap(grad(loss_of_one), in_dims=(None, 0, 0)) returns",
                    hint_zh="对传进来的 loss_fn 求导，范数要从 vmap(grad(loss_of_one), in_dims=(None, 0, 0)) "
                    "的返回值算出来",
                )
            smaller = bool((found < expected * (1 - 1e-4)).all())
            raise Fail(
                f"the norms differ from those of a per-sample loop ({loss_name})",
                f"范数和逐样本循环算出的不同（{loss_name}）",
                expected=_show(expected),
                found=_show(found),
                hint_en="every norm is too small: the norm must run over all parameters together, biases too"
                if smaller
                else "the loss of sample i is loss_fn(model(x[i:i+1]), y[i:i+1]): call the "
                "loss_fn you are given on a batch of one",
                hint_zh="每个范数都偏小：范数要把所有参数（包括 bias）合在一起算"
                if smaller
                else "第 i 个样本的损失是 loss_fn(model(x[i:i+1]), y[i:i+1])：用传进来的 loss_fn，输入一个样本的批次",
            )

        check(
            f"every parameter's .grad held {MARK:g}s before {call}: it leaves them as they were",
            f"调用 {call} 之前每个参数的 .grad 都是 {MARK:g}：调用之后它们不变",
        )
        changed = [
            name
            for name, p in model.named_parameters()
            if p.grad is None or not torch.equal(p.grad, torch.full_like(p, MARK))
        ]
        if changed:
            first = dict(model.named_parameters())[changed[0]].grad
            raise Fail(
                f"per_sample_norms changed the parameters' .grad ({', '.join(changed)}) with {loss_name}",
                f"per_sample_norms 在 {loss_name} 上改动了参数的 .grad（{'、'.join(changed)}）",
                expected=(f"every .grad still all {MARK:g}", f"每个 .grad 仍然全是 {MARK:g}"),
                found=(
                    f"model.{changed[0]}.grad = " + ("None" if first is None else _show(first)),
                    f"model.{changed[0]}.grad = " + ("None" if first is None else _show(first)),
                ),
                hint_en="backward() and zero_grad() write into .grad; torch.func.grad returns the gradients "
                "and writes no .grad",
                hint_zh="backward() 和 zero_grad() 都会写 .grad；torch.func.grad 只返回梯度，不写任何 .grad",
            )

        check(
            f"{call} calls neither backward() nor torch.autograd.grad itself",
            f"{call} 自己不调用 backward()，也不调用 torch.autograd.grad",
        )
        own = [found for found in passes if found.by(solution.__file__)]
        if own:
            raise Fail(
                f"per_sample_norms ran {len(own)} backward passes itself ({loss_name})",
                f"per_sample_norms 自己做了 {len(own)} 次反向传播（{loss_name}）",
                expected=("the gradients from torch.func.grad under vmap", "由 vmap 下的 torch.func.grad 求梯度"),
                found=counted(own),
                hint_en="write the loss of one sample as a function of a dict of parameters (functional_call) "
                "and take vmap(grad(that function))",
                hint_zh="把单个样本的损失写成参数字典的函数（functional_call），再用 vmap(grad(这个函数))",
            )

        check(
            f"{call}: the model and each of its layers run once, for all {batch} samples together (vmap), "
            "not once per sample",
            f"{call}：模型和它的每一层都只运行一次，一次处理全部 {batch} 个样本（vmap），而不是每个样本运行一次",
        )
        model_runs = len(seen["model"])
        if model_runs != 1:
            raise Fail(
                f"the model ran {times(model_runs)}: vmap runs it once over the whole batch ({loss_name})",
                f"模型运行了 {model_runs} 次：vmap 一次就处理整个批次（{loss_name}）",
                expected=("one run of the model", "模型运行一次"),
                found=(f"{model_runs} runs", f"{model_runs} 次"),
                hint_en="a Python loop over the samples runs the model once per sample (and vmap's chunk_size "
                "once per chunk); vmap(grad(loss_of_one), in_dims=(None, 0, 0)) maps over the samples "
                "in one call",
                hint_zh="对样本写 Python 循环，每个样本都要运行一次模型（vmap 的 chunk_size 则是每块一次）；"
                "vmap(grad(loss_of_one), in_dims=(None, 0, 0)) 一次调用就映射到所有样本",
            )
        layers = {name: len(runs) for name, runs in seen.items() if name != "model" and len(runs) != 1}
        if layers:
            name, n = next(iter(layers.items()))
            raise Fail(
                f"the model ran once, but its layer {name} ran {times(n)} ({loss_name}): the layers ran "
                "outside the model's one run",
                f"模型只运行了一次，它的第 {name} 层却运行了 {n} 次（{loss_name}）：这些层是在模型那一次运行之外运行的",
                expected=(
                    "every layer runs once, inside the model's one run",
                    "每一层只运行一次，就在模型那一次运行里",
                ),
                found=(
                    ", ".join(f"layer {k}: {v} runs" for k, v in layers.items()),
                    "、".join(f"第 {k} 层：{v} 次" for k, v in layers.items()),
                ),
                hint_en="call the whole model through functional_call(model, params, (xi[None],)) inside the "
                "function that vmap maps over the samples",
                hint_zh="在 vmap 映射到各样本的那个函数里，通过 functional_call(model, params, (xi[None],)) "
                "调用整个模型",
            )

        check(
            f"{call}: one backward pass for the whole batch, run by torch.func (grad under vmap)",
            f"{call}：整个批次只有一次反向传播，由 torch.func 完成（vmap 下的 grad）",
        )
        if len(passes) == 1 and passes[0].origin != "torch.func":
            origin = passes[0].origin
            functional = origin == "torch.autograd.functional"
            raise Fail(
                f"the one backward pass was run by {origin}, not by torch.func (grad under vmap) ({loss_name})",
                f"唯一的一次反向传播由 {origin} 发起，而不是由 torch.func 完成（vmap 下的 grad）（{loss_name}）",
                expected=("1 × torch.autograd.grad (by torch.func)", "1 × torch.autograd.grad（由 torch.func 发起）"),
                found=counted(passes),
                hint_en="torch.autograd.functional.jacobian runs one backward pass per output, or one batched "
                "pass with vectorize=True; either way it differentiates the batch's vector of losses, "
                "not the loss of one sample under vmap: take vmap(grad(loss_of_one), in_dims=(None, 0, 0))"
                if functional
                else "torch.func.grad under vmap differentiates every sample's loss in one "
                "batched backward pass: vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
                hint_zh="torch.autograd.functional.jacobian 每个输出做一次反向传播，传 vectorize=True 时做一次"
                "批量的反向传播；无论哪种，它求导的都是整批的损失向量，而不是 vmap 下单个样本的损失："
                "改用 vmap(grad(loss_of_one), in_dims=(None, 0, 0))"
                if functional
                else "vmap 下的 torch.func.grad 用一次批量的反向传播求出每个样本损失的梯度："
                "vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
            )
        if len(passes) != 1:
            said = counted(passes) if passes else ("none", "没有")
            raise Fail(
                f"{len(passes)} backward passes where vmap(grad(...)) runs one, by torch.func ({loss_name})",
                f"做了 {len(passes)} 次反向传播，而 vmap(grad(...)) 只做一次，由 torch.func 完成（{loss_name}）",
                expected=("1 × torch.autograd.grad (by torch.func)", "1 × torch.autograd.grad（由 torch.func 发起）"),
                found=said,
                hint_en="torch.func.grad under vmap differentiates every sample's loss in one batched backward "
                "pass; a loop of backward passes runs one per sample, and so does "
                "torch.autograd.functional.jacobian without vectorize=True (one per output)",
                hint_zh="vmap 下的 torch.func.grad 用一次批量的反向传播求出每个样本损失的梯度；反向传播的循环"
                "每个样本做一次，不传 vectorize=True 的 torch.autograd.functional.jacobian 也一样"
                "（每个输出一次）",
            )

        check(
            f"{call}: the model's one run sees one sample (vmap's view of the batch) and runs inside "
            "functional_call, with the parameters it passes",
            f"{call}：模型那一次运行看到的是一个样本（vmap 眼中的批次），在 functional_call 里运行，用的是它传入的参数",
        )
        (run,) = seen["model"]
        one = x[0].numel()
        if run.numel != one or not run.mapped:
            whole = run.numel // one if run.numel % one == 0 else 0
            if run.numel == one:
                said = ("one sample, outside vmap", "单个样本，但不在 vmap 里")
            else:
                said = (
                    f"{whole} samples at once" if whole else f"an input of {run.numel} elements",
                    f"一次 {whole} 个样本" if whole else f"{run.numel} 个元素的输入",
                )
                if not run.mapped:
                    said = (said[0] + ", not under vmap", said[1] + "，不在 vmap 里")
            raise Fail(
                f"the model ran on {said[0]} ({loss_name}): vmap(grad(...)) runs it on one sample, "
                "mapped over the batch",
                f"模型的输入是{said[1]}（{loss_name}）：vmap(grad(...)) 让模型处理单个样本，再映射到整个批次",
                expected=(
                    f"one sample under vmap: an input of {one} elements, batched by vmap",
                    f"vmap 下的单个样本：{one} 个元素的输入，由 vmap 批量处理",
                ),
                found=said,
                hint_en="a loss of the whole batch (jacrev of a vector of losses, or one forward and a backward "
                "per sample) is another method; write loss_of_one(params, xi, yi) and take "
                "vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
                hint_zh="对整个批次的损失求导（对损失向量取 jacrev，或一次前向再逐样本反向传播）是另一种方法；"
                "写出 loss_of_one(params, xi, yi)，再用 vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
            )
        own_params = list(dict.fromkeys(name for runs in seen.values() for r in runs for name in r.own))
        if own_params:
            raise Fail(
                f"the model ran with its own parameters ({', '.join(own_params)}) ({loss_name}): "
                "functional_call runs it with the tensors you differentiate",
                f"模型用的是它自己的参数（{'、'.join(own_params)}）（{loss_name}）：functional_call "
                "才会用你求导的那些张量运行它",
                expected=("the tensors of the dict passed to functional_call", "传给 functional_call 的字典里的张量"),
                found=("the model's own Parameters", "模型自己的 Parameter"),
                hint_en="grad differentiates with respect to its argument: pass the parameters as a dict and "
                "run the model with functional_call(model, params, (xi[None],))",
                hint_zh="grad 对它的参数求导：把模型参数做成字典传进去，再用 functional_call(model, params, "
                "(xi[None],)) 运行模型",
            )

        if not run.called:
            raise Fail(
                f"the model did not run as functional_call(model, params, ...) runs it ({loss_name}): "
                "the exercise asks for functional_call to run it with the parameters you differentiate",
                f"模型不是由 functional_call(model, params, ...) 运行的（{loss_name}）：题目要求用 "
                "functional_call 以你求导的那些参数运行它",
                expected=(
                    "one run inside functional_call(model, params, (xi[None],))",
                    "在 functional_call(model, params, (xi[None],)) 里运行一次",
                ),
                found=(
                    "a run outside it, or with tensors that functional_call on the model did not swap in",
                    "不在其中的一次运行，或者换进模型的张量不是对模型调用的 functional_call 换的",
                ),
                hint_en="functional_call(model, params, args) runs the model with the tensors of the dict "
                "params in place of its parameters, for that call only; call it inside "
                "loss_of_one(params, xi, yi)",
                hint_zh="functional_call(model, params, args) 只在这一次调用里用字典 params 中的张量代替模型的"
                "参数；在 loss_of_one(params, xi, yi) 里调用它",
            )

        check(
            f"{call}: loss_fn runs once, and grad (or vjp: reverse mode) differentiates the loss it returns "
            "inside vmap",
            f"{call}：loss_fn 只运行一次，它返回的损失在 vmap 里面由 grad（或 vjp：反向模式）求导",
        )
        if len(losses) != 1:
            raise Fail(
                f"loss_fn ran {times(len(losses))}: vmap(grad(...)) calls it once ({loss_name})",
                f"loss_fn 运行了 {len(losses)} 次：vmap(grad(...)) 只调用它一次（{loss_name}）",
                expected=(
                    "one call of loss_fn, on the loss of one sample under grad and vmap",
                    "调用一次 loss_fn，算的是 grad 和 vmap 下单个样本的损失",
                ),
                found=(f"{len(losses)} calls", f"{len(losses)} 次"),
                hint_en="the norms must come from what vmap(grad(loss_of_one)) returns; a second computation "
                "of the losses (a loop, a copy of the model) is another method",
                hint_zh="范数要从 vmap(grad(loss_of_one)) 的返回值算出来；另外再算一遍损失（循环、模型的副本）"
                "就是另一种方法了",
            )
        (call_seen,) = losses
        around, stack = call_seen.around, call_seen.stack
        # Forward mode anywhere around the loss, not only innermost: a dummy grad inside jacfwd would hide it.
        if stack is not None and any(kind in ("Jvp", "ForwardAD") for kind, _ in stack):
            raise Fail(
                f"the loss was differentiated in forward mode (jvp, jacfwd or torch.autograd.forward_ad), "
                f"not by grad ({loss_name})",
                f"损失是用前向模式（jvp、jacfwd 或 torch.autograd.forward_ad）求导的，而不是用 grad（{loss_name}）",
                expected=(
                    "no forward-mode transform around the loss: grad (reverse mode), inside vmap",
                    "损失外面没有前向模式的变换：grad（反向模式），在 vmap 里面",
                ),
                found=(" > ".join(kind for kind, _ in stack), " > ".join(kind for kind, _ in stack)),
                hint_en="forward mode needs one Jacobian-vector product per parameter entry; grad takes the "
                "gradient of the one-number loss in one backward pass: "
                "vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
                hint_zh="前向模式每个参数分量都要做一次雅可比-向量积；grad 做一次反向传播就得到单个数的损失的梯度："
                "vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
            )
        if stack is not None and stack != run.stack:
            raise Fail(
                f"loss_fn ran in other torch.func transforms than the model's one run ({loss_name}): the loss "
                "was not computed from that run's output",
                f"loss_fn 运行时所在的 torch.func 变换和模型那一次运行的不同（{loss_name}）：损失不是用那次运行的"
                "输出算的",
                expected=(
                    "the transforms of the model's run: " + " > ".join(k for k, _ in run.stack),
                    "模型那次运行所在的变换：" + " > ".join(k for k, _ in run.stack),
                ),
                found=(" > ".join(k for k, _ in stack) or "none", " > ".join(k for k, _ in stack) or "没有"),
                hint_en="call the model and loss_fn in the same function, loss_of_one(params, xi, yi), and "
                "take vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
                hint_zh="在同一个函数 loss_of_one(params, xi, yi) 里调用模型和 loss_fn，"
                "再用 vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
            )
        if around is not None and not (around[:1] == ["grad"] and "vmap" in around[1:]):
            said = (", ".join(around) or "none", "、".join(around) or "没有")
            raise Fail(
                f"the loss was differentiated outside vmap, not by grad inside it ({loss_name})",
                f"损失是在 vmap 外面求导的，而不是由 vmap 里面的 grad 求导（{loss_name}）",
                expected=(
                    "around the loss, innermost first: grad, then vmap",
                    "损失外面的变换，由内到外：先 grad，再 vmap",
                ),
                found=(f"around the loss, innermost first: {said[0]}", f"损失外面的变换，由内到外：{said[1]}"),
                hint_en="jacrev of the vector of losses that vmap computes differentiates the batch's losses "
                "together; take grad of the loss of one sample and vmap that: "
                "vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
                hint_zh="对 vmap 算出的损失向量取 jacrev，是把整批损失放在一起求导；应该对单个样本的损失取 grad，"
                "再 vmap 它：vmap(grad(loss_of_one), in_dims=(None, 0, 0))",
            )

        check(
            f"{call}: grad (or vjp: reverse mode) differentiates the parameters passed to functional_call, "
            "and no other tensor",
            f"{call}：grad（或 vjp：反向模式）求导的正是传给 functional_call 的参数，不对别的张量求导",
        )
        # Each tensor swapped in must be one that torch.func's one pass differentiates (an input it hands the
        # engine) or a view of one: a tensor computed from what grad differentiates ("p + 0 * offset") is not.
        differentiated = inputs[0] if len(inputs) == 1 else ()
        constant = [
            name
            for runs in seen.values()
            for r in runs
            for name, (t, base) in r.swapped.items()
            if not any(t is i or (base is not None and base is i) for i in differentiated)
        ]
        constant = list(dict.fromkeys(constant))
        if constant:
            raise Fail(
                f"the model ran with parameters that grad does not differentiate ({', '.join(constant)}) "
                f"({loss_name}): the norms come from the gradients with respect to other tensors",
                f"grad 没有对模型运行时用的参数（{'、'.join(constant)}）求导（{loss_name}）：范数来自对别的张量"
                "求的梯度",
                expected=(
                    "the tensors passed to functional_call are the ones grad differentiates, or views of them",
                    "传给 functional_call 的张量正是 grad 求导的那些，或者是它们的视图",
                ),
                found=(
                    "tensors that grad does not differentiate (computed from them, or apart from them)",
                    "grad 不对其求导的张量（由它们算出的，或与它们无关的）",
                ),
                hint_en="pass the dict of parameters as the argument that grad differentiates (the first, "
                "unless argnums says otherwise) and run the model with functional_call(model, params, "
                "(xi[None],))",
                hint_zh="把参数字典作为 grad 求导的那个参数传进去（默认是第一个，除非用 argnums 另选），"
                "再用 functional_call(model, params, (xi[None],)) 运行模型",
            )
        # And torch.func's one pass differentiates nothing else: each of its inputs is a tensor swapped in or the
        # tensor one is a view of, and they hold as many elements as the parameters. Zero offsets differentiated
        # beside the parameters (argnums=(0, 1)), or packed into one flat tensor with them, would give the norms
        # from the offsets' gradients, the parameters' computed and thrown away.
        swapped = [
            t for runs in seen.values() for r in runs for pair in r.swapped.values() for t in pair if t is not None
        ]
        extra = [i for i in differentiated if not any(i is t for t in swapped)]
        elements = sum(i.numel() for i in differentiated)
        parameters = sum(p.numel() for p in model.parameters())
        if extra or elements != parameters:
            shapes = ", ".join(str(list(i.shape)) for i in (extra or differentiated))
            raise Fail(
                f"grad differentiates more than the parameters passed to functional_call ({loss_name}): "
                "the norms may come from the gradients of the rest",
                f"grad 求导的不只是传给 functional_call 的参数（{loss_name}）：范数可能来自对其余部分求的梯度",
                expected=(
                    f"the parameters and nothing else: {parameters} elements",
                    f"只有模型参数：{parameters} 个元素",
                ),
                found=(
                    f"{len(extra)} other tensors ({shapes})"
                    if extra
                    else f"{elements} elements, in tensors of shapes {shapes}",
                    f"另外 {len(extra)} 个张量（{shapes}）" if extra else f"{elements} 个元素，张量形状为 {shapes}",
                ),
                hint_en="differentiate only the dict of parameters (grad's default argnums=0) and compute the "
                "norms from the gradients grad returns for them",
                hint_zh="只对参数字典求导（grad 默认的 argnums=0），范数要从 grad 对它们返回的梯度算出来",
            )
