"""Exercises of the chapter no-grad-and-detach."""

import torch
from torch import nn

from exercise_judge.checking import Fail, exercise
from exercise_judge.spies import TorchCalls

K = 3  # model[0] (Linear), model[1] (Tanh), model[2] (Linear) frozen; model[4] (Linear) trains
STEPS = 5


class Detaches(TorchCalls):
    """TorchCalls that also keeps what each detach() or detach_() returned (in .returned)."""

    def __init__(self):
        super().__init__()
        self.returned = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs)
        if getattr(func, "__name__", "") in ("detach", "detach_"):
            self.returned.append(result)
        return result


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def make_input(requires_grad=False):
    torch.manual_seed(1)
    return torch.randn(8, 6).requires_grad_(requires_grad)


def layer_names(model, indices) -> tuple[str, str]:
    """'model[0] (Linear), model[2] (Linear)': the layers, in English and in Chinese."""
    return (
        ", ".join(f"model[{i}] ({type(model[i]).__name__})" for i in sorted(indices)),
        "、".join(f"model[{i}]（{type(model[i]).__name__}）" for i in sorted(indices)),
    )


def layers_with_params(model):
    return [i for i, module in enumerate(model) if any(True for _ in module.parameters())]


def gradient_pattern(model, k):
    """(layers before k whose parameters got a gradient, layers from k on whose parameters got none)."""
    leaked = {i for i in layers_with_params(model) if i < k and any(p.grad is not None for p in model[i].parameters())}
    starved = {i for i in layers_with_params(model) if i >= k and any(p.grad is None for p in model[i].parameters())}
    return leaked, starved


def as_output(found, expected_shape, call):
    """The reader's return value as a tensor of the model's output shape, or a Fail that says what it was."""
    if not isinstance(found, torch.Tensor):
        raise Fail(
            f"{call} returned {type(found).__name__}, not a tensor",
            f"{call} 返回的是 {type(found).__name__}，不是张量",
            expected=(
                f"the model's output, a tensor of shape {tuple(expected_shape)}",
                f"模型的输出，形状为 {tuple(expected_shape)} 的张量",
            ),
            found=repr(found)[:80],
            hint_en="return the result of the last layers",
            hint_zh="把后面几层的结果 return 出来",
        )
    if found.shape != expected_shape:
        raise Fail(
            f"{call} returned a tensor of the wrong shape",
            f"{call} 返回的张量形状不对",
            expected=str(tuple(expected_shape)),
            found=str(tuple(found.shape)),
            hint_en="run every layer of the model, the first k and the rest",
            hint_zh="模型的每一层都要跑：前 k 层和其余各层",
        )
    return found


def run_or_fail(model, x, after):
    try:
        out = model(x)
        if isinstance(out, torch.Tensor) and out.shape == (len(x), 1):
            return out
        found = f"{type(out).__name__} {tuple(out.shape) if isinstance(out, torch.Tensor) else ''}"
    except Exception as error:  # the reader may have broken the model
        found = f"{type(error).__name__}: {error}"[:200]
    raise Fail(
        f"the model no longer runs after {after}",
        f"{after} 之后模型跑不起来了",
        expected=(
            f"model(x) returns a tensor of shape ({len(x)}, 1) as before",
            f"model(x) 和原来一样返回形状为 ({len(x)}, 1) 的张量",
        ),
        found=found,
        hint_en="change only the parameters' requires_grad, not the layers",
        hint_zh="只改参数的 requires_grad，不要动层本身",
    )


def parameter_names(names) -> tuple[str, str]:
    """'0.weight', '2.bias' as model[0].weight, model[2].bias, in English and in Chinese."""
    named = [f"model[{name.split('.')[0]}].{name.split('.', 1)[1]}" for name in names]
    return ", ".join(named), "、".join(named)


def each_k(check, after_en: str, after_zh: str):
    """The values of k each tool is tried with, each announced as the check of the gradients left
    after `after_en` (`after_zh` in Chinese), formatted with k."""
    for k in (K, 2):
        check(
            f"after {after_en.format(k=k)}, model[0]…model[{k - 1}] have .grad None, the later layers have gradients",
            f"{after_zh.format(k=k)}之后，model[0]…model[{k - 1}] 的 .grad 是 None，后面的层有梯度",
        )
        yield k


def check_gradient_pattern(model, k, leaked, starved) -> None:
    """After a backward, Fail unless model[0]…model[k - 1] have .grad None and the later layers have
    gradients. Each tool says why in its own words, each an (English, Chinese) pair: leaked is
    (because, found, hint) for an earlier layer with a gradient (found None: the layers' names),
    starved is (because, hint) for a later layer without one."""
    too_early, too_late = gradient_pattern(model, k)
    if too_early:
        (because, found, hint), names = leaked, layer_names(model, too_early)
        raise Fail(
            f"the parameters of {names[0]} still received gradients: {because[0]}",
            f"{names[1]} 的参数仍然收到了梯度：{because[1]}",
            expected=(f".grad None for model[0]…model[{k - 1}]", f"model[0]…model[{k - 1}] 的 .grad 是 None"),
            found=found or (f"gradients in {names[0]}", f"{names[1]} 有梯度"),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if too_late:
        (because, hint), names = starved, layer_names(model, too_late)
        raise Fail(
            f"{names[0]} got no gradient: {because[0]}",
            f"{names[1]} 没有梯度：{because[1]}",
            expected=(f"gradients from model[{k}] on", f"从 model[{k}] 起都有梯度"),
            found=(".grad None", ".grad 是 None"),
            hint_en=hint[0],
            hint_zh=hint[1],
        )


def check_adamw(model, forward, frozen, idle) -> None:
    """STEPS AdamW steps (weight decay 0.1) on all of model.parameters(), the frozen ones included on
    purpose, each through forward(model, x). Fail when a layer of model[:K] moved, or one after them
    did not: frozen is (expected, hint), idle is (text, hint), each an (English, Chinese) pair."""
    before = {i: [p.detach().clone() for p in model[i].parameters()] for i in layers_with_params(model)}
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    x = make_input()
    for _ in range(STEPS):
        optimizer.zero_grad()
        forward(model, x).pow(2).mean().backward()
        optimizer.step()
    moved = {i for i, old in before.items() if any(not torch.equal(p, q) for p, q in zip(model[i].parameters(), old))}
    # a NaN or an infinity counts as moved for a frozen layer (a failure), but not as training for a later one
    trained = {i for i in moved if all(torch.isfinite(p).all() for p in model[i].parameters())}
    if moved & set(range(K)):
        names = layer_names(model, moved & set(range(K)))
        raise Fail(
            f"{names[0]} moved under AdamW",
            f"{names[1]} 被 AdamW 改动了",
            expected=frozen[0],
            found=("changed values", "数值变了"),
            hint_en=frozen[1][0],
            hint_zh=frozen[1][1],
        )
    if not trained >= set(before) - set(range(K)):
        broken = moved - trained
        raise Fail(
            *idle[0],
            expected=(f"model[{K}] and later moved, to finite values", f"model[{K}] 及之后的层有变化，数值有限"),
            found=(
                f"NaN or infinite values in {layer_names(model, broken)[0]}",
                f"{layer_names(model, broken)[1]} 里出现了 NaN 或无穷大",
            )
            if broken
            else ("no change", "没有变化"),
            hint_en="leave the later layers' gradients as backward computed them" if broken else idle[1][0],
            hint_zh="后面各层的梯度保持反向传播算出来的样子，不要改" if broken else idle[1][1],
        )


def same_output_after_freeze(out, k) -> None:
    """Fail unless out, the frozen model's output, equals a fresh model's output bit for bit."""
    expected = make_model()(make_input())
    if out.shape != expected.shape or not torch.equal(out, expected):
        raise Fail(
            f"the model computes something else after freeze_first(model, {k})",
            f"freeze_first(model, {k}) 之后模型算出来的东西变了",
            expected=("the same output as before, to the bit", "和之前逐位相同的输出"),
            found=("a different output", "不同的输出"),
            hint_en="freezing changes whether a parameter gets a gradient, never its value: "
            "don't zero, re-initialise or replace anything",
            hint_zh="冻结只决定参数拿不拿梯度，不改它的值：不要清零、重新初始化或替换任何东西",
        )


def same_output_as_model(found, k) -> None:
    """Fail unless found, what forward_cut(model, x, k) returned, is a fresh model(x) to within 1e-6."""
    expected = make_model()(make_input())
    if not torch.allclose(found, expected, rtol=0, atol=1e-6):
        raise Fail(
            f"forward_cut(model, x, {k}) computes something else than the model",
            f"forward_cut(model, x, {k}) 算出来的和模型不一样",
            expected=("model(x), to within 1e-6", "model(x)，误差在 1e-6 以内"),
            found=(
                f"a difference of up to {(found - expected).abs().max().item():.3g}",
                f"最多相差 {(found - expected).abs().max().item():.3g}",
            ),
            hint_en="run model[:k] on x, detach the result, then run model[k:] on it; detach() does not "
            "change the values",
            hint_zh="先用 model[:k] 算 x，把结果 detach，再交给 model[k:]；detach() 不改数值",
        )


@exercise(
    "no-grad-and-detach/freeze-two-ways",
    en="freeze the first k layers two ways: requires_grad_(False), and detach() after them",
    zh="两种方式冻结前 k 层：requires_grad_(False)，以及在它们之后 detach()",
)
def freeze_two_ways(solution, check):
    # --- freeze_first: the parameters stop requiring grad; gradients still flow through them ---
    check("freeze_first(model, 3) leaves the model's output unchanged", "freeze_first(model, 3) 之后模型的输出不变")
    model = make_model()
    solution.freeze_first(model, K)
    same_output_after_freeze(run_or_fail(model, make_input(), "freeze_first(model, 3)"), K)

    for k in each_k(check, "freeze_first(model, {k}) and a backward", "freeze_first(model, {k}) 再做一次反向传播"):
        model = make_model()
        solution.freeze_first(model, k)
        out = run_or_fail(model, make_input(), f"freeze_first(model, {k})")
        same_output_after_freeze(out, k)  # the values at every k, not only at k = 3
        if out.requires_grad:  # otherwise every layer is frozen: the check below names the later ones
            out.sum().backward()
        still = [
            f"model[{i}].{name}" for i in range(k) for name, p in model[i].named_parameters() if p.grad is not None
        ]
        # None of the first k layers frozen: the reader "froze" without touching requires_grad.
        untouched = all(p.requires_grad for i in range(k) for p in model[i].parameters())
        check_gradient_pattern(
            model,
            k,
            leaked=(
                ("not frozen", "没有冻结"),
                (f"a gradient in {', '.join(still)}", f"{'、'.join(still)} 有梯度"),
                (
                    "their requires_grad is still True, so the next backward fills .grad again: setting .grad to "
                    "None or a torch.no_grad() block changes nothing for later backwards. Call requires_grad_(False) "
                    "on the first k layers",
                    "它们的 requires_grad 还是 True，下一次反向传播又会填上 .grad：把 .grad 设成 None、或者套一个 "
                    "torch.no_grad() 块，对之后的反向传播都不起作用。要对前 k 层调用 requires_grad_(False)",
                )
                if untouched
                else (
                    f"freeze every layer from model[0] to model[{k - 1}]: model[:k] is a slice of them",
                    f"从 model[0] 到 model[{k - 1}] 每一层都要冻结：model[:k] 就是它们",
                ),
            ),
            starved=(
                ("frozen too", "也被冻结了"),
                (
                    f"freeze only the first k = {k} entries of the Sequential, model[:{k}]",
                    f"只冻结 Sequential 的前 k = {k} 项，也就是 model[:{k}]",
                ),
            ),
        )

    check(
        "with freeze_first, the gradient still flows through the frozen layers to the input",
        "用 freeze_first 冻结时，梯度仍然穿过被冻结的层，流到输入",
    )
    model, x = make_model(), make_input(requires_grad=True)
    solution.freeze_first(model, K)
    model(x).sum().backward()
    if x.grad is None or not x.grad.abs().sum() > 0:
        raise Fail(
            "the input x got no gradient: nothing flows through the frozen layers any more",
            "输入 x 没有拿到梯度：梯度不再穿过被冻结的层",
            expected=("a non-zero x.grad", "非零的 x.grad"),
            found="None" if x.grad is None else ("zeros", "全零"),
            hint_en="requires_grad_(False) freezes a layer's own parameters only; the backward still passes "
            "through the layer to what comes before. Don't detach or wrap the forward in no_grad",
            hint_zh="requires_grad_(False) 只冻结这一层自己的参数，反向传播照样穿过它流向前面。"
            "不要 detach，也不要把前向套进 no_grad",
        )

    check(
        f"AdamW(weight_decay=0.1) over all parameters for {STEPS} steps leaves the frozen ones bit-for-bit unchanged",
        f"把全部参数交给 AdamW(weight_decay=0.1) 走 {STEPS} 步，冻结参数一位不变",
    )
    model = make_model()
    solution.freeze_first(model, K)
    check_adamw(
        model,
        lambda m, x: m(x),
        frozen=(
            (
                "frozen parameters unchanged: AdamW skips a parameter whose .grad is None, weight decay included",
                "冻结参数不变：.grad 为 None 的参数，AdamW 整个跳过，权重衰减也不做",
            ),
            (
                "a frozen parameter must keep .grad None through every backward: requires_grad_(False)",
                "冻结参数在每次反向传播之后都要保持 .grad 为 None：用 requires_grad_(False)",
            ),
        ),
        idle=(
            ("the layers after the frozen ones did not train", "冻结层之后的层没有训练"),
            ("freeze only model[:k]", "只冻结 model[:k]"),
        ),
    )

    # --- forward_cut: the activation is detached; the parameters keep requires_grad=True ---
    check(
        "forward_cut(model, x, 3) returns the same output as model(x)",
        "forward_cut(model, x, 3) 返回的结果和 model(x) 相同",
    )
    model, x = make_model(), make_input()
    expected = model(x)
    same_output_as_model(as_output(solution.forward_cut(model, x, K), expected.shape, "forward_cut(model, x, 3)"), K)

    for k in each_k(
        check, "forward_cut(model, x, {k}).sum().backward()", "forward_cut(model, x, {k}).sum().backward() "
    ):
        model = make_model()
        found = as_output(solution.forward_cut(model, make_input(), k), expected.shape, f"forward_cut(model, x, {k})")
        same_output_as_model(found, k)  # the values at every k, not only at k = 3
        if found.grad_fn is None:
            raise Fail(
                f"forward_cut(model, x, {k}) returned a tensor off the graph: no backward can reach any layer",
                f"forward_cut(model, x, {k}) 返回的张量不在计算图上：反向传播到不了任何一层",
                expected=("an output with a grad_fn", "带 grad_fn 的输出"),
                found="grad_fn None",
                hint_en="detach only the activation after model[k - 1], not the final output, and don't "
                "run the later layers under no_grad",
                hint_zh="只 detach model[k - 1] 之后的中间结果，不要 detach 最终输出，也不要在 no_grad 里跑后面的层",
            )
        found.sum().backward()
        check_gradient_pattern(
            model,
            k,
            leaked=(
                (f"the cut is not after model[{k - 1}]", f"切口不在 model[{k - 1}] 之后"),
                None,
                (
                    f"h = model[:{k}](x).detach(), then model[{k}:](h): detach the activation itself and use the "
                    "detached tensor",
                    f"h = model[:{k}](x).detach()，再算 model[{k}:](h)：要 detach 中间结果本身，并且接着用 detach 出来的"
                    "那个张量",
                ),
            ),
            starved=(
                ("the cut is too late", "切口太靠后了"),
                (
                    f"cut right after the first k = {k} entries: model[:{k}](x).detach()",
                    f"就在前 k = {k} 项之后切：model[:{k}](x).detach()",
                ),
            ),
        )

    check(
        "forward_cut leaves every parameter's requires_grad True",
        "forward_cut 不改任何参数的 requires_grad，都还是 True",
    )
    model = make_model()
    solution.forward_cut(model, make_input(), K)
    changed = {int(name.split(".")[0]) for name, p in model.named_parameters() if not p.requires_grad}
    if changed:
        names = layer_names(model, changed)
        raise Fail(
            f"after forward_cut, the parameters of {names[0]} no longer require grad",
            f"forward_cut 之后，{names[1]} 的参数不再要梯度了",
            expected="requires_grad True",
            found="requires_grad False",
            hint_en="that freezes those layers for every later forward too: forward_cut must cut the graph "
            "at the activation, with detach(), and leave the parameters as they are",
            hint_zh="那样这些层在以后每次前向里都被冻结了：forward_cut 要切的是中间结果处的计算图，对中间结果 "
            "detach()，参数保持原样",
        )

    check(
        "with forward_cut, no gradient reaches the input: everything before the cut is cut off",
        "用 forward_cut 时，梯度到不了输入：切口之前的一切都被切断",
    )
    model, x = make_model(), make_input(requires_grad=True)
    solution.forward_cut(model, x, K).sum().backward()
    if x.grad is not None:
        raise Fail(
            "the input x received a gradient: the gradient went through model[:3]",
            "输入 x 收到了梯度：梯度穿过了 model[:3]",
            expected=("x.grad None", "x.grad 是 None"),
            found=("a gradient", "有梯度"),
            hint_en="switching requires_grad off (and on again) freezes the parameters but lets the gradient "
            "pass through the layers; detach() cuts the path itself",
            hint_zh="关掉（再打开）requires_grad 只冻结参数，梯度照样穿过这些层；detach() 切断的是路径本身",
        )

    check(
        f"AdamW(weight_decay=0.1) for {STEPS} steps through forward_cut leaves model[:3] bit-for-bit unchanged",
        f"经过 forward_cut 用 AdamW(weight_decay=0.1) 走 {STEPS} 步，model[:3] 一位不变",
    )
    check_adamw(
        make_model(),
        lambda m, x: solution.forward_cut(m, x, K),
        frozen=(
            (
                "unchanged: their .grad stays None, so AdamW skips them",
                "不变：它们的 .grad 一直是 None，AdamW 跳过它们",
            ),
            ("the layers before the cut must get no gradient in any step", "切口之前的层在每一步都不能拿到梯度"),
        ),
        idle=(
            ("the layers after the cut did not train", "切口之后的层没有训练"),
            ("cut after model[k - 1], not later", "在 model[k - 1] 之后切，不要更靠后"),
        ),
    )

    # --- the method, for every k tried: requires_grad_(False) on the parameters, detach() on the activation ---
    for k in (K, 2):
        check(
            f"freeze_first(model, {k}) keeps the model's parameters and switches off their requires_grad, "
            f"and no other layer's",
            f"freeze_first(model, {k}) 保留模型原来的参数，只关掉它们的 requires_grad，不动其他层的",
        )
        check_freeze_method(solution, k)
        check(
            f"forward_cut(model, x, {k}) runs model[:{k}] on the graph and hands model[{k}] the tensor detach() "
            f"returned for model[{k - 1}]'s output",
            f"forward_cut(model, x, {k}) 在计算图上运行 model[:{k}]，交给 model[{k}] 的是对 model[{k - 1}] 的输出调用 "
            "detach() 得到的那个张量",
        )
        check_cut_method(solution, k)


def check_freeze_method(solution, k) -> None:
    """Fail unless freeze_first(model, k) keeps every parameter object, switches off requires_grad
    on those of model[:k] and leaves the others' as it was: the last layer comes frozen already, as
    if the user had frozen it, and must stay frozen."""
    model = make_model()
    model[-1].requires_grad_(False)
    before = dict(model.named_parameters())
    wanted = {name: parameter.requires_grad for name, parameter in before.items()}
    solution.freeze_first(model, k)
    after = dict(model.named_parameters())
    replaced = [name for name in before if after.get(name) is not before[name]]
    if replaced:
        gone = parameter_names(replaced)
        raise Fail(
            f"freeze_first replaced parameters ({gone[0]} are no longer parameters of the model)",
            f"freeze_first 替换了参数（{gone[1]} 不再是模型的参数）",
            expected=("the same parameter objects, with requires_grad False", "同样的参数对象，requires_grad 为 False"),
            found=(f"{gone[0]} gone from model.named_parameters()", f"model.named_parameters() 里没有了 {gone[1]}"),
            hint_en="keep the parameters, switch off their requires_grad: model[:k].requires_grad_(False)",
            hint_zh="保留参数，只关掉它们的 requires_grad：model[:k].requires_grad_(False)",
        )
    still = [name for name, parameter in before.items() if int(name.split(".")[0]) < k and parameter.requires_grad]
    if still:
        unfrozen = parameter_names(still)
        raise Fail(
            f"freeze_first left requires_grad True on {unfrozen[0]}: their gradients are still computed and "
            "thrown away",
            f"freeze_first 之后 {unfrozen[1]} 的 requires_grad 仍是 True：它们的梯度照样被算出来再扔掉",
            expected="requires_grad False",
            found="requires_grad True",
            hint_en="model[:k].requires_grad_(False), whatever k is: then backward does not compute them at all",
            hint_zh="不管 k 是多少，都用 model[:k].requires_grad_(False)：这样 backward() 根本不会计算它们的梯度",
        )
    touched = [
        name
        for name, parameter in before.items()
        if int(name.split(".")[0]) >= k and parameter.requires_grad != wanted[name]
    ]
    if touched:
        names = parameter_names(touched)
        raise Fail(
            f"freeze_first changed requires_grad on {names[0]}, after the first k = {k} layers: a layer the "
            "user had frozen would train again",
            f"freeze_first 改了前 k = {k} 层之后的 {names[1]} 的 requires_grad：用户已经冻结的层会重新开始训练",
            expected=(
                f"requires_grad of model[{k}] and later as it was (model[{len(model) - 1}] came frozen)",
                f"model[{k}] 及之后各层的 requires_grad 保持原样（model[{len(model) - 1}] 传进来时已经冻结）",
            ),
            found=(f"requires_grad changed on {names[0]}", f"{names[1]} 的 requires_grad 被改了"),
            hint_en="touch only model[:k]: model[:k].requires_grad_(False), nothing on the later layers",
            hint_zh="只动 model[:k]：model[:k].requires_grad_(False)，后面的层一概不碰",
        )


def check_cut_method(solution, k) -> None:
    """Fail unless forward_cut(model, x, k) runs every layer of model[:k] with recording on, calls
    detach() on model[k - 1]'s output, and hands model[k] that detached tensor: off the graph, the
    same storage and the same version counter as model[k - 1]'s output (not .data, not a copy); and
    unless each layer of model[k:] then runs once, on the previous one's output, the last one's
    output being what forward_cut returns."""
    model, recorded, outputs, received, later = make_model(), {}, [], [], {}

    def spy(index):
        """model[index]'s own forward, wrapped on the instance: a call through module(...) and a direct
        .forward(...) both go through it, where a module hook would miss the second."""
        forward = model[index].forward

        def spied(*args, **kwargs):
            given = args[0] if args else next(iter(kwargs.values()), None)
            if index == k:
                received.append(given)
            output = forward(*args, **kwargs)
            if index >= k:
                later.setdefault(index, []).append((given, output))
            if index < k:
                # grad_fn now: a later detach_() would clear it
                recorded.setdefault(index, []).append(output.grad_fn is not None)
                if index == k - 1:
                    outputs.append(output)
            return output

        return spied

    for i in range(len(model)):
        model[i].forward = spy(i)
    try:
        with Detaches() as seen:
            returned = solution.forward_cut(model, make_input(), k)
    finally:
        for i in range(len(model)):
            del model[i].forward
    off_graph = sorted(i for i in range(k) if not recorded.get(i) or not all(recorded[i]))
    if off_graph:
        names = (f"model[:{k}]",) * 2 if off_graph == list(range(k)) else layer_names(model, off_graph)
        never = [i for i in off_graph if not recorded.get(i)]
        raise Fail(
            f"{names[0]} ran without recording a graph (torch.no_grad, or requires_grad switched off), or did "
            "not run: the exercise asks for the other way, detach() on the output of the first k layers",
            f"{names[1]} 运行时没有记录计算图（torch.no_grad，或关掉了 requires_grad），或者根本没有运行："
            "这道练习要的是另一种方式，对前 k 层的输出 detach()",
            expected=(
                f"every layer of model[:{k}] run with recording on, its output with a grad_fn",
                f"model[:{k}] 的每一层都在记录计算图时运行，输出带 grad_fn",
            ),
            found=(
                f"{layer_names(model, never)[0]} never ran" if never else f"an output of {names[0]} without a graph",
                f"{layer_names(model, never)[1]} 一次也没有运行" if never else f"{names[1]} 的输出不在计算图上",
            ),
            hint_en=f"no_grad would cut too, but this exercise contrasts requires_grad_(False) with detach(): "
            f"h = model[:{k}](x).detach(), for every k",
            hint_zh=f"no_grad 也能切断，但这道练习对比的是 requires_grad_(False) 和 detach()："
            f"h = model[:{k}](x).detach()，k 是多少都一样",
        )
    if not any(
        call.name in ("detach", "detach_") and any(call.tensor is output for output in outputs) for call in seen.calls
    ):
        raise Fail(
            f"forward_cut did not call detach() on the output of model[{k - 1}] (.data cuts the graph but gives "
            "the new tensor a version counter of its own; a copy is not a cut)",
            f"forward_cut 没有对 model[{k - 1}] 的输出调用 detach()（.data 切断了图，但新张量的版本计数器是它自己的、"
            "不和原张量共享；复制一份也不算切断）",
            expected=(f"model[:{k}](x).detach()", f"model[:{k}](x).detach()"),
            found=(f"no detach() of model[{k - 1}]'s output", f"没有对 model[{k - 1}] 的输出调用 detach()"),
            hint_en="detach() returns a tensor that shares the values, is off the graph, and keeps the version "
            "counter, so autograd still notices a later in-place edit",
            hint_zh="detach() 返回一个共享数值、不在计算图上的张量，并且沿用同一个版本计数器，"
            "之后的原地修改 autograd 依然能察觉",
        )
    if not received:
        raise Fail(
            f"model[{k}] was never called: forward_cut computed the later layers without running them, so "
            "nothing shows what they were handed",
            f"model[{k}] 一次也没有被调用：forward_cut 没有运行后面的层，而是自己算出了它们的结果，"
            "看不出交给它们的是什么",
            expected=(
                f"model[{k}:](h) run on the tensor h that detach() returned",
                f"在 detach() 返回的张量 h 上运行 model[{k}:](h)",
            ),
            found=(f"no call of model[{k}]", f"没有调用 model[{k}]"),
            hint_en=f"h = model[:{k}](x).detach(), then model[{k}:](h): run the model's own layers",
            hint_zh=f"h = model[:{k}](x).detach()，再算 model[{k}:](h)：要运行模型自己的层",
        )
    for h in received:
        if not isinstance(h, torch.Tensor):
            raise Fail(
                f"model[{k}] was called without a tensor",
                f"调用 model[{k}] 时传的不是张量",
                expected=("the tensor detach() returned", "detach() 返回的张量"),
                found=repr(h)[:80],
                hint_en=f"h = model[:{k}](x).detach(), then model[{k}:](h)",
                hint_zh=f"h = model[:{k}](x).detach()，再算 model[{k}:](h)",
            )
        if h.grad_fn is not None:
            raise Fail(
                f"model[{k}] received a tensor that is still on the graph",
                f"model[{k}] 收到的张量还在计算图上",
                expected=("its input off the graph: grad_fn None", "它的输入不在计算图上：grad_fn 是 None"),
                found=f"grad_fn {type(h.grad_fn).__name__}",
                hint_en=f"hand model[{k}:] the tensor that detach() returned, not model[{k - 1}]'s output itself",
                hint_zh=f"交给 model[{k}:] 的应该是 detach() 返回的张量，而不是 model[{k - 1}] 的输出本身",
            )
        same = [output for output in outputs if output.data_ptr() == h.data_ptr() and output.shape == h.shape]
        if not same:
            raise Fail(
                f"model[{k}] received a copy of model[{k - 1}]'s output, not the tensor detach() returned",
                f"model[{k}] 收到的是 model[{k - 1}] 输出的一份拷贝，而不是 detach() 返回的那个张量",
                expected=(f"the storage of model[{k - 1}]'s output", f"和 model[{k - 1}] 的输出共用存储"),
                found=("a tensor with storage of its own", "一个有自己存储的张量"),
                hint_en="detach() copies nothing: it returns the same values, off the graph. Hand that tensor "
                "itself to the later layers",
                hint_zh="detach() 什么都不复制：它返回同样的数值，只是不在计算图上。把这个张量本身交给后面的层",
            )
        version = h._version
        torch.autograd.graph.increment_version(same[0])  # as an in-place edit of the output would
        if h._version != version + 1:
            raise Fail(
                f"model[{k}] received a tensor that shares the storage of model[{k - 1}]'s output but not its "
                "version counter: .data, not detach()",
                f"model[{k}] 收到的张量和 model[{k - 1}] 的输出共用存储，却不共用版本计数器：这是 .data，不是 detach()",
                expected=(
                    f"an in-place edit of the output seen through the tensor model[{k}] received",
                    f"对输出的原地修改，在 model[{k}] 收到的张量上也看得到",
                ),
                found=(f"its _version stayed {version}", f"它的 _version 停在 {version}"),
                hint_en=".data cuts the graph but gives the new tensor a version counter of its own, so autograd "
                "no longer sees in-place edits through it; detach() keeps the counter",
                hint_zh=".data 切断了图，但新张量的版本计数器是它自己的、不和原张量共享，之后的原地修改 autograd "
                "就察觉不到了；detach() 沿用同一个版本计数器",
            )
        if not any(h is returned for returned in seen.returned):
            raise Fail(
                f"model[{k}] received a tensor that detach() did not return (a view of model[{k - 1}]'s output "
                "made under no_grad, say): the cut must be detach() itself",
                f"model[{k}] 收到的张量不是 detach() 返回的（比如在 no_grad 里对 model[{k - 1}] 的输出取的视图）："
                "切断必须靠 detach() 本身",
                expected=("the very tensor detach() returned", "正是 detach() 返回的那个张量"),
                found=("another tensor over the same storage", "同一块存储上的另一个张量"),
                hint_en=f"h = model[:{k}](x).detach(), then model[{k}:](h)",
                hint_zh=f"h = model[:{k}](x).detach()，再算 model[{k}:](h)",
            )
    check_later_layers(model, k, later, returned)


def check_later_layers(model, k, later, returned) -> None:
    """Fail unless each layer of model[k:] ran once, each on what the one before it returned, and the
    last one's output is what forward_cut returned: later maps each index to its (input, output) calls.
    A dummy call of model[k] on a detached tensor, with the real work done on .data, a copy or through
    the class's forward, fails here."""
    last = len(model) - 1
    for i in range(k, last + 1):
        calls = later.get(i, [])
        given = calls[0][0] if len(calls) == 1 else None
        if len(calls) != 1 or (i > k and given is not later[i - 1][0][1]):
            raise Fail(
                f"model[{i}] ran {'once' if len(calls) == 1 else f'{len(calls)} times'}"
                + ("" if len(calls) != 1 else f", not on the output of model[{i - 1}]")
                + ": the later layers must run once each, one after "
                "the other, on the tensor detach() returned",
                f"model[{i}] 运行了 {len(calls)} 次"
                + ("" if len(calls) != 1 else f"，输入不是 model[{i - 1}] 的输出")
                + "：后面的层要各跑一次，一层接一层，从 detach() 返回的张量开始",
                expected=(
                    f"model[{i}] called once, on model[{i - 1}]'s output",
                    f"model[{i}] 被调用一次，输入是 model[{i - 1}] 的输出",
                ),
                found=(
                    f"{len(calls)} calls" if len(calls) != 1 else "another input",
                    f"{len(calls)} 次调用" if len(calls) != 1 else "另一个输入",
                ),
                hint_en=f"h = model[:{k}](x).detach(), then return model[{k}:](h): no extra calls, and no "
                "second computation beside them",
                hint_zh=f"h = model[:{k}](x).detach()，再 return model[{k}:](h)：不要多调用，也不要在旁边另算一遍",
            )
    if returned is not later[last][0][1]:
        raise Fail(
            f"forward_cut returned something else than the output of model[{last}]",
            f"forward_cut 返回的不是 model[{last}] 的输出",
            expected=(f"the very tensor model[{last}] returned", f"正是 model[{last}] 返回的那个张量"),
            found=("another tensor", "另一个张量") if isinstance(returned, torch.Tensor) else repr(returned)[:80],
            hint_en=f"return model[{k}:](h), where h = model[:{k}](x).detach()",
            hint_zh=f"return model[{k}:](h)，其中 h = model[:{k}](x).detach()",
        )
