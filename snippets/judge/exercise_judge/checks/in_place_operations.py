"""Exercises of the chapter in-place-operations."""

import contextlib
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.overrides import TorchFunctionMode

from exercise_judge.checking import Fail, exercise
from exercise_judge.checks._shared import graph_nodes

# (seed, length) of the x and q each check is run on: every check, the method's included, holds for each.
INPUTS = ((0, 6), (1, 3))


def reference(x, q):
    """The starter's computation with every edit out of place."""
    a = x * 2
    s = a.sigmoid() + 1
    c = a * q + 1
    return (s * c + (a + 1)).sum()


def inputs(seed: int, length: int):
    torch.manual_seed(seed)
    return (
        torch.randn(length, dtype=torch.float64, requires_grad=True),
        torch.randn(length, dtype=torch.float64, requires_grad=True),
    )


def code_of(solution) -> str:
    """The reader's code without comments and strings, to spot `.data` or `detach` in it."""
    try:
        source = Path(solution.__file__).read_text(encoding="utf-8")
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        return " ".join(t.string for t in tokens if t.type not in (tokenize.COMMENT, tokenize.STRING))
    except (OSError, SyntaxError, tokenize.TokenError, TypeError):
        return ""


def backward_hint(message: str) -> tuple[str, str]:
    """What the reader most likely did, from the text of the error backward raised."""
    if "output 0 of Sigmoid" in message:
        return (
            "sigmoid saves its output for backward (its derivative is s·(1 − s)), and s.add_(1) overwrote "
            "it. Write that edit out of place, s = s + 1, or edit a clone of s",
            "sigmoid 为反向保存了它的输出（导数是 s·(1 − s)），s.add_(1) 把它改掉了。"
            "把这一步改成非原地的 s = s + 1，或者改 s 的 clone",
        )
    if "modified by an inplace operation" in message:
        return (
            "the message names the tensor's current producer (an in-place add_ is an Add), not the node "
            "that failed. That node saved the tensor as an input: since q requires grad, a * q saved a, "
            "and a.add_(1) overwrote it. Write that edit out of place, a = a + 1, after the multiplication",
            "报错里的名字是这个张量现在的产生者（原地的 add_ 也叫 Add），不是出错的那个节点。出错的节点把它当输入"
            "保存了：q 要梯度，所以 a * q 保存了 a，a.add_(1) 把它改掉了。把这一步改成非原地的 a = a + 1，"
            "放在乘法之后",
        )
    if "does not require grad" in message:
        return (
            "the result is not on the graph any more: a detach(), a .item() or a no_grad block cut it off. "
            "Keep the computation on the graph and change only the breaking edits",
            "结果已经不在计算图上了：detach()、.item() 或 no_grad 块把它切断了。"
            "让计算留在图上，只改会破坏反向传播的那几处修改",
        )
    return (
        "read the error: it names the tensor that changed after a node saved it",
        "读一读报错：它说出了哪个张量在被某个节点保存之后又被改了",
    )


@dataclass
class Call:
    """One torch call made by forward: its name, its tensor arguments with their grad_fn and version as the call
    found them, its results, the nodes that recorded the results, and whether backward still checked versions when
    it ran; for an in-place call, its tensor's grad_fn and values before and after."""

    name: str
    inputs: list
    input_nodes: list
    input_versions: list
    outputs: list
    nodes: list
    checked: bool = True
    tensor: torch.Tensor | None = None
    grad_fn_before: object = None
    grad_fn_after: object = None
    before: torch.Tensor | None = None
    after: torch.Tensor | None = None


def _tensors(values) -> list:
    found = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found += [item for item in value if isinstance(item, torch.Tensor)]
    return found


def version(tensor) -> int | None:
    """tensor._version; None for a tensor without a counter (made under inference_mode)."""
    try:
        return tensor._version
    except RuntimeError:
        return None


def version_check_on() -> bool:
    """Does backward still refuse a saved tensor that was edited in place? Not while a saved-tensor hook is active,
    however it was installed (a `with` block, save_on_cpu, or torch's internal push): the hook, not autograd, then
    hands backward what was saved. Asked by running the check on a tensor of its own."""
    with torch.enable_grad(), torch.inference_mode(False):
        probe = torch.zeros(2, dtype=torch.float64, requires_grad=True)
        saved = probe.exp()  # ExpBackward0 saves its output
        saved.add_(0)
        try:
            torch.autograd.grad(saved.sum(), probe)
        except RuntimeError as error:
            return "modified by an inplace operation" in str(error)
    return False


class Recorded(TorchFunctionMode):
    """`with Recorded() as seen:` keeps in seen.calls every torch function and Tensor method called, and whether
    backward still checked versions when it was called (run inside the mode's handler, the probe is not recorded).
    It also copies each tensor a new node saved, right after the call that made the node, and before each later
    call compares the saved tensor with that copy: seen.changed holds the (node, attribute) pairs whose values a
    write changed, whatever made the write (an in-place call, `.data`, NumPy). Call seen.compare() once more when
    forward has returned."""

    def __init__(self):
        super().__init__()
        self.calls: list[Call] = []
        self.copies: list = []  # (node, attribute, saved tensor, its values when saved)
        self.recorded: set = set()
        self.changed: set = set()

    def compare(self):
        for node, name, saved, copy in self.copies:
            if saved.shape != copy.shape or not torch.equal(saved.detach(), copy):
                self.changed.add((node, name))

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.compare()
        name = getattr(func, "__name__", "")
        first = args[0] if args and isinstance(args[0], torch.Tensor) else None
        augmented = r"__i(add|sub|mul|(true|floor)?div|mod|pow|matmul|and|or|xor|[lr]shift)__"  # s += 1
        in_place = first is not None and (
            (name.endswith("_") and not name.startswith("_")) or re.fullmatch(augmented, name) is not None
        )
        before = (first.grad_fn, first.detach().clone()) if in_place else (None, None)
        inputs = _tensors(list(args) + list(kwargs.values()))
        input_nodes, input_versions = [t.grad_fn for t in inputs], [version(t) for t in inputs]
        checked = version_check_on()
        result = func(*args, **kwargs)
        outputs = _tensors([result])
        call = Call(name, inputs, input_nodes, input_versions, outputs, [t.grad_fn for t in outputs], checked)
        if in_place:
            call.tensor, (call.grad_fn_before, call.before) = first, before
            call.grad_fn_after, call.after = first.grad_fn, first.detach().clone()
        self.calls.append(call)
        for node in call.nodes:
            if node is not None and node not in self.recorded:  # a node seen again (x.contiguous()) is not new
                self.recorded.add(node)
                self.copies += [
                    (node, attribute, saved, saved.detach().clone())
                    for attribute, saved in saved_tensors_of(node).items()
                ]
        return result


@dataclass
class Hooks:
    entered: list = field(default_factory=list)  # the class name of each saved-tensor hooks context entered


@contextlib.contextmanager
def saved_tensor_hooks_entered():
    """Records each `with` of torch.autograd.graph.saved_tensors_hooks or a subclass (save_on_cpu, ...)."""
    hooks_class = torch.autograd.graph.saved_tensors_hooks
    original = hooks_class.__enter__
    seen = Hooks()

    def spy(self):
        seen.entered.append(type(self).__name__)
        return original(self)

    hooks_class.__enter__ = spy
    try:
        yield seen
    finally:
        hooks_class.__enter__ = original


def storage(tensor) -> int | None:
    """The address of tensor's storage; None for a tensor without one of its own (a functional wrapper)."""
    try:
        return tensor.untyped_storage().data_ptr()
    except RuntimeError:
        return None


def copied_saved_tensors(calls: list[Call], nodes: list) -> list[str]:
    """Nodes of the result's graph, made by an out-of-place call, that hold a saved tensor (not a number) which
    is neither an argument nor a result of that call: what a saved-tensor hook that copies leaves."""
    in_graph = set(nodes)
    found = []
    for call in calls:
        if call.tensor is not None:  # in place: mul_ and the like save a clone of the old value by design
            continue
        own = {storage(t) for t in call.inputs + call.outputs} - {None}
        for node in {node for node in call.nodes if node is not None and node in in_graph}:
            for name in dir(node):
                if not name.startswith("_saved_"):
                    continue
                try:
                    saved = getattr(node, name)
                except RuntimeError:
                    continue
                if (
                    isinstance(saved, torch.Tensor)
                    and saved.dim() > 0
                    and storage(saved) is not None
                    and storage(saved) not in own
                ):
                    found.append(f"{type(node).__name__}.{name}")
    return sorted(set(found))


def hooked_saved_tensors(nodes: list) -> list[str]:
    """Saved tensors of the nodes that a saved-tensor hook packed, however the hook was installed: torch lets hooks
    be set once per saved tensor, so registering a pair of our own on each `_raw_saved_*` raises "... hooks have
    already been set" exactly for those. Call it after backward with retain_graph=True (our hooks are then never
    unpacked); the pack hook keeps a detached tensor, so an output saved by its own node makes no reference cycle."""
    found = []
    for node in nodes:
        for name in dir(node):
            if not name.startswith("_raw_saved_"):
                continue
            try:
                raw = getattr(node, name)
            except RuntimeError:
                continue
            for saved in raw if isinstance(raw, (list, tuple)) else [raw]:
                if not isinstance(saved, torch._C._autograd.SavedTensor):
                    continue
                try:
                    saved.register_hooks(lambda t: t.detach(), lambda t: t)
                except RuntimeError as error:
                    if "already been set" in str(error):
                        found.append(f"{type(node).__name__}.{name.removeprefix('_raw')}")
    return sorted(set(found))


def saved_tensors_of(node) -> dict:
    """The saved tensors (not numbers) of node, by attribute name, as reading `_saved_*` gives them."""
    found = {}
    for name in dir(node):
        if name.startswith("_saved_"):
            try:
                saved = getattr(node, name)
            except RuntimeError:
                continue
            if isinstance(saved, torch.Tensor) and saved.dim() > 0 and saved.numel() > 0:
                found[name] = saved
    return found


def changed_saved_tensors(seen: Recorded, nodes: list) -> list[str]:
    """Saved tensors of the result's graph whose values changed after their node saved them, up to now."""
    seen.compare()
    in_graph = set(nodes)
    return sorted({f"{type(node).__name__}.{name}" for node, name in seen.changed if node in in_graph})


def unedited_a(calls: list[Call], x, q, sigmoid, nodes: list) -> tuple[str, str] | None:
    """None when the sigmoid of the result and each product with q in its graph took a = x * 2 itself, at version 0
    (before any edit), or a clone of it taken at version 0, the one a, as the calls found it; else what they took
    (en, zh). A call hidden from torch function modes is not seen, and fails."""

    def origin(node, at_version):
        if at_version != 0:
            return None
        parents = [getattr(parent, "variable", None) for parent, _ in getattr(node, "next_functions", ())]
        if type(node).__name__ == "MulBackward0" and any(p is x for p in parents) and not any(p is q for p in parents):
            return node
        if type(node).__name__ == "CloneBackward0":
            clone = next((call for call in calls if node in call.nodes and call.input_nodes), None)
            return clone and origin(clone.input_nodes[0], clone.input_versions[0])
        return None

    def took(call, position, zh=False):
        node, at_version = call.input_nodes[position], call.input_versions[position]
        name = type(node).__name__ if node is not None else ("无 grad_fn" if zh else "no grad_fn")
        return f"{name}，版本 {at_version}" if zh else f"{name}, version {at_version}"

    in_graph = set(nodes)
    made_sigmoid = [call for call in calls if sigmoid in call.nodes and call.inputs]
    products = [
        (call, next(i for i, t in enumerate(call.inputs) if t is not q))
        for call in calls
        if len(call.inputs) == 2
        and any(t is q for t in call.inputs)
        and not all(t is q for t in call.inputs)
        and any(type(node).__name__ == "MulBackward0" and node in in_graph for node in call.nodes)
    ]
    if not made_sigmoid or not products:
        what = ("the sigmoid", "sigmoid ") if not made_sigmoid else ("a product with q", "与 q 的乘积")
        return (
            f"no call that made {what[0]} was seen (a call hidden from torch's function modes?)",
            f"没有看到算出 {what[1]}的那次调用（这次调用躲开了 torch 的 function mode？）",
        )
    taken = [(made_sigmoid[0], 0, "sigmoid")] + [(call, i, "a * q") for call, i in products]
    origins = [origin(call.input_nodes[i], call.input_versions[i]) for call, i, _ in taken]
    if origins[0] is None or any(found is not origins[0] for found in origins):
        twice = None not in origins  # each took an unedited x * 2, but not the same one
        return (
            "; ".join(f"{what} took a tensor made by {took(call, i)}" for call, i, what in taken)
            + (" (two separate x * 2)" if twice else ""),
            "；".join(f"{what} 拿到的张量来自 {took(call, i, zh=True)}" for call, i, what in taken)
            + ("（是两次分别算出的 x * 2）" if twice else ""),
        )
    return None


def edits_c(call: Call, q, nodes: list) -> bool:
    """Is `call` the harmless edit: an in-place call on c = a * q (a product no node saved) that adds 1 to it and
    makes c the output of a new node of the result's graph?"""
    node = call.grad_fn_before
    return (
        call.tensor is not None
        and type(node).__name__ == "MulBackward0"
        and any(getattr(parent, "variable", None) is q for parent, _ in node.next_functions)
        and call.grad_fn_after is not node
        and call.grad_fn_after in set(nodes)
        and call.before.shape == call.after.shape
        and torch.allclose(call.after - call.before, torch.ones_like(call.before), rtol=0, atol=1e-12)
    )


def adds_one(calls: list[Call], parent) -> list:
    """The nodes of the calls that add 1 to a tensor made by the node parent, or to a clone of it: out of place
    (s + 1, s.clone() + 1) or in place (s.clone().add_(1)). The reader's edits of s and a, wherever they stand."""

    def made_by(node):
        return node is parent or (
            type(node).__name__ == "CloneBackward0"
            and bool(node.next_functions)
            and node.next_functions[0][0] is parent
        )

    def one_more(after, before):
        return after.shape == before.shape and torch.allclose(
            after.detach().double() - before.detach().double(),
            torch.ones_like(before.detach().double()),
            rtol=0,
            atol=1e-12,
        )

    found = []
    for call in calls:
        if call.tensor is not None:
            if made_by(call.grad_fn_before) and one_more(call.after, call.before):
                found.append(call.grad_fn_after)
        elif len(call.outputs) == 1:
            found += [
                call.nodes[0]
                for tensor, node in zip(call.inputs, call.input_nodes)
                if made_by(node) and call.outputs[0] is not tensor and one_more(call.outputs[0], tensor)
            ]
    return [node for node in found if node is not None]


def origin_of(node):
    """The node that made the tensor a clone was taken of, or node itself when it is no clone."""
    if type(node).__name__ == "CloneBackward0" and node.next_functions:
        return node.next_functions[0][0]
    return node


@exercise(
    "in-place-operations/safe-edit",
    en="make a function with in-place edits safe for backward, with the same value and gradients",
    zh="让带原地操作的函数能正常反向传播，值和梯度都不变",
)
def safe_edit(solution, check):
    for seed, length in INPUTS:
        check_one(solution, check, seed, length)


def check_one(solution, check, seed: int, length: int):
    on = (f" (x, q of {length} elements)", f"（x、q 各 {length} 个元素）")
    x, q = inputs(seed, length)
    expected_value = reference(x, q)
    expected_x, expected_q = torch.autograd.grad(expected_value, (x, q))

    check(
        "forward(x, q) returns the value of the computation in the docstring" + on[0],
        "forward(x, q) 返回文档字符串里那个计算的值" + on[1],
    )
    x, q = inputs(seed, length)
    found = solution.forward(x, q)
    if not isinstance(found, torch.Tensor) or found.numel() != 1:
        raise Fail(
            "forward must return a tensor holding one number",
            "forward 应当返回只含一个数的张量",
            expected=("a one-element tensor with a grad_fn", "带 grad_fn 的单元素张量"),
            found=(
                f"a tensor of shape {tuple(found.shape)}"
                if isinstance(found, torch.Tensor)
                else f"{type(found).__name__}: {found!r}"[:80],
                f"形状为 {tuple(found.shape)} 的张量"
                if isinstance(found, torch.Tensor)
                else f"{type(found).__name__}：{found!r}"[:80],
            ),
            hint_en="return the tensor (s * c + a).sum(), not .item() or a list",
            hint_zh="返回张量 (s * c + a).sum()，不要 .item()，也不要返回列表",
        )
    value = found.detach().double().reshape(())
    if not torch.allclose(value, expected_value.detach(), rtol=1e-9, atol=1e-9):
        raise Fail(
            "forward(x, q) computes another number",
            "forward(x, q) 算出来的数不一样",
            expected=f"{expected_value.item():.6f}",
            found=f"{value.item():.6f}",
            hint_en="order matters: the multiplication a * q uses a before it is increased by 1, and the "
            "last line uses the edited s and a. When you write an edit out of place, the name must "
            "point to the new tensor from that line on",
            hint_zh="顺序要紧：乘法 a * q 用的是加 1 之前的 a，最后一行用的是改过的 s 和 a。"
            "把一步改成非原地时，从那一行起名字要指向新张量",
        )

    check("backward() through forward(x, q) runs" + on[0], "对 forward(x, q) 的结果调用 backward() 能跑通" + on[1])
    try:
        found.backward()
    except RuntimeError as error:
        message = str(error)
        part = re.search(r"which is output \d+ of \w+, is at version \d+; expected version \d+ instead", message)
        hint_en, hint_zh = backward_hint(message)
        raise Fail(
            "backward() raised RuntimeError",
            "backward() 抛出了 RuntimeError",
            expected=("backward() runs", "backward() 正常跑完"),
            found=(
                f"RuntimeError: … modified by an inplace operation: … {part.group()} …"
                if part
                else f"RuntimeError: {message.splitlines()[0][:200]}",
                f"RuntimeError：…… modified by an inplace operation：…… {part.group()} ……"
                if part
                else f"RuntimeError：{message.splitlines()[0][:200]}",
            ),
            hint_en=hint_en,
            hint_zh=hint_zh,
        ) from None

    check(
        "x.grad and q.grad equal the gradients of the same computation without in-place edits" + on[0],
        "x.grad 和 q.grad 等于同一计算不用原地操作时的梯度" + on[1],
    )
    for name, grad, expected in (("x", x.grad, expected_x), ("q", q.grad, expected_q)):
        if grad is None:
            raise Fail(
                f"{name}.grad is None: no gradient reached {name}",
                f"{name}.grad 是 None：梯度没有到达 {name}",
                expected=(f"a gradient for {name}", f"{name} 的梯度"),
                found="None",
                hint_en=f"a detach() or a no_grad block cut every path from the result to {name}",
                hint_zh=f"某个 detach() 或 no_grad 块切断了从结果到 {name} 的所有路径",
            )
    differences = {
        name: (grad.double() - expected).abs().max().item()
        for name, grad, expected in (("x", x.grad, expected_x), ("q", q.grad, expected_q))
    }
    wrong = {name: difference for name, difference in differences.items() if difference > 1e-9}
    if wrong:
        code = code_of(solution)
        if re.search(r"\.\s*data\b", code):
            hint_en = (
                "you edited through .data, which shares the storage but not the version counter: the check "
                "that raised before saw nothing, and backward computed with the edited tensors (for "
                "instance sigmoid's derivative from s + 1 instead of s, or a * q's from a + 1 instead of a). "
                "Write the edits out of place instead"
            )
            hint_zh = (
                "你是通过 .data 改的：.data 和原张量共享存储，却不共享版本计数器，原来会报错的那道检查什么也没"
                "看到，反向传播就拿改过的张量去算了（比如 sigmoid 的导数用了 s + 1 而不是 s，a * q 用了 a + 1 而不是 a）。"
                "应当把这些修改写成非原地的"
            )
        elif re.search(r"saved_tensors_hooks|save_on_cpu", code):
            hint_en = (
                "a saved-tensor hook switches the version check off, so backward computed with the edited "
                "tensors. Remove the hook and write the breaking edits out of place instead"
            )
            hint_zh = (
                "保存张量钩子关掉了版本检查，反向传播就拿改过的张量去算了。去掉钩子，把会出事的那几处修改写成非原地的"
            )
        elif re.search(r"\bdetach\b|\bno_grad\b", code):
            hint_en = (
                "a detach() or a no_grad block cut one of the paths from the result to the inputs: the "
                "value is right, but no gradient flows back along that path. Keep every step on the graph"
            )
            hint_zh = (
                "某个 detach() 或 no_grad 块切断了从结果到输入的一条路径：值是对的，但梯度不再沿这条路径回传。"
                "每一步都要留在计算图上"
            )
        else:
            hint_en = (
                "backward ran with values that differ from the forward's: some saved tensor was changed "
                "without the version counter noticing, or a path to the inputs was cut"
            )
            hint_zh = "反向传播用的值和前向的不一样：某个为反向保存的张量被改了而版本计数器没有察觉，或者通往输入的某条路径被切断了"
        which = " and ".join(f"{name}.grad" for name in wrong)
        raise Fail(
            f"backward ran without an error, but {which} {'are' if len(wrong) > 1 else 'is'} wrong",
            f"反向传播没有报错，但 {' 和 '.join(f'{name}.grad' for name in wrong)} 不对",
            expected=("the gradients of the computation without in-place edits", "不用原地操作时的梯度"),
            found=(
                "; ".join(f"{name}.grad off by up to {d:.3g}" for name, d in wrong.items()),
                "；".join(f"{name}.grad 最多差 {d:.3g}" for name, d in wrong.items()),
            ),
            hint_en=hint_en,
            hint_zh=hint_zh,
        )

    # --- the method: the same computation, with only the breaking edits changed ---
    x, q = inputs(seed, length)
    with saved_tensor_hooks_entered() as hooks, Recorded() as seen:
        out = solution.forward(x, q)
    nodes = graph_nodes(out) if isinstance(out, torch.Tensor) else []

    check(
        "forward still computes with the docstring's operations: one sigmoid, whose backward receives c, both it "
        "and a * q applied to a = x * 2 before any edit, and no custom Function" + on[0],
        "forward 仍然用文档字符串里的那些运算来算：只有一个 sigmoid，它的反向节点收到 c，它和 a * q 用的都是还没被改过的 "
        "a = x * 2，没有自定义 Function" + on[1],
    )
    names = sorted(type(node).__name__ for node in nodes)
    custom = any(isinstance(node, torch.autograd.function.BackwardCFunction) for node in nodes)
    sigmoids = [node for node in nodes if type(node).__name__ == "SigmoidBackward0"]
    if custom or len(sigmoids) != 1:
        raise Fail(
            f"the result is not computed by the code of forward any more (graph nodes: "
            f"{', '.join(sorted(set(names)))}): fix the edits, don't replace the computation",
            f"结果已经不是由 forward 里那段代码算出来的了（图中节点：{', '.join(sorted(set(names)))}）："
            "要修的是那几处修改，不是换掉整个计算",
            expected=(
                "a graph with one SigmoidBackward0, MulBackward0, AddBackward0 …",
                "图中有一个 SigmoidBackward0，还有 MulBackward0、AddBackward0 ……",
            ),
            found=(
                f"{len(sigmoids)} × SigmoidBackward0" + (", a custom Function" if custom else ""),
                f"{len(sigmoids)} 个 SigmoidBackward0" + ("，还有自定义 Function" if custom else ""),
            ),
            hint_en="keep the starter's lines and rewrite only the in-place edits that backward rejects",
            hint_zh="保留起始文件里的代码，只改写让 backward() 报错的那几处原地修改",
        )
    copied = copied_saved_tensors(seen.calls, nodes)  # before backward frees what the nodes saved
    edited = changed_saved_tensors(seen, nodes)
    unchecked = sorted({call.name for call in seen.calls if not call.checked})
    received = []
    handles = [sigmoids[0].register_prehook(lambda grad_outputs: received.append(grad_outputs[0]))]
    # the gradients that reach the nodes of the three edits tell whether the result uses what each edit made
    in_graph = set(nodes)
    edit_nodes = {
        "c": [call.grad_fn_after for call in seen.calls if edits_c(call, q, nodes)],
        "s": [node for node in adds_one(seen.calls, sigmoids[0]) if node in in_graph],
        "a": [node for node in adds_one(seen.calls, origin_of(sigmoids[0].next_functions[0][0])) if node in in_graph],
    }
    reached: dict = {}
    for node in {node for found in edit_nodes.values() for node in found}:
        handles.append(node.register_prehook(lambda grad_outputs, node=node: reached.update({node: grad_outputs[0]})))
    try:
        out.backward(retain_graph=True)  # kept for hooked_saved_tensors, which asks what was saved and how
    finally:
        for handle in handles:
            handle.remove()
    hooked = hooked_saved_tensors(nodes)
    with torch.no_grad():
        a_value = 2 * x.detach()
        gradients = {"c": a_value.sigmoid() + 1, "s": a_value * q.detach() + 1, "a": torch.ones_like(a_value)}

    def used(what):
        """Does the gradient of the result reach one of the nodes of that edit, as it reaches it in the starter?"""
        return any(
            reached.get(node) is not None
            and torch.allclose(reached[node].double(), gradients[what], rtol=1e-9, atol=1e-9)
            for node in edit_nodes[what]
        )

    c = (2 * x * q + 1).detach()
    if not received or received[0] is None or not torch.allclose(received[0].double(), c, rtol=1e-9, atol=1e-9):
        got = (
            "nothing"
            if not received or received[0] is None
            else f"off from c by up to {(received[0].double() - c).abs().max().item():.3g}"
        )
        raise Fail(
            "the sigmoid in the graph is not the one the result is computed with: its backward does not "
            "receive c = a * q + 1",
            "图里的 sigmoid 不是算出结果的那一个：它的反向节点收到的梯度不是 c = a * q + 1",
            expected=("the gradient c = a * q + 1 at SigmoidBackward0", "SigmoidBackward0 收到梯度 c = a * q + 1"),
            found=(got, "什么也没收到" if got == "nothing" else got.replace("off from c by up to", "与 c 最多差")),
            hint_en="compute s with a.sigmoid(), as the starter does, and let the result use that s",
            hint_zh="像起始文件那样用 a.sigmoid() 算 s，并让结果用的就是这个 s",
        )

    moved = unedited_a(seen.calls, x, q, sigmoids[0], nodes)
    if moved:
        raise Fail(
            "the sigmoid and the product a * q do not both take a = x * 2 as it was before any edit, the same "
            "a, in calls the judge sees: the breaking edit was moved or hidden, or the computation rewritten, "
            "instead of fixed",
            "sigmoid 和乘积 a * q 拿到的并不都是评测看得到的、同一个还没被改过的 a = x * 2：出事的修改被挪了位置或藏了起来，"
            "或者计算被改写了，并没有修好",
            expected=(
                "a = x * 2 at version 0, or a clone of it, given to a.sigmoid() and to a * q",
                "交给 a.sigmoid() 和 a * q 的都是版本为 0 的 a = x * 2，或者它的 clone",
            ),
            found=moved,
            hint_en="keep the starter's order: the edit a.add_(1) comes after the multiplication; write it "
            "out of place (a = a + 1) or apply it to a clone",
            hint_zh="保持起始文件的顺序：a.add_(1) 在乘法之后；把它写成非原地的 a = a + 1，或者改在 clone 上",
        )

    check(
        "no saved-tensor hooks, and no edit of a saved tensor: each node saved the very tensors its operation "
        "used, and they still held the values they were saved with when forward returned" + on[0],
        "没有保存张量钩子，也没有改动被保存的张量：每个节点保存的正是它的运算用到的那些张量，直到 forward 返回时，"
        "它们的值仍和保存时一样" + on[1],
    )
    hint = (
        "remove the hook, keep every edit that breaks nothing in place, and write the ones that change a saved "
        "tensor out of place (or apply them to a clone)",
        "去掉钩子；不会出事的修改照旧原地做，改到被保存张量的那几处写成非原地的（或者改在 clone 上）",
    )
    if hooks.entered or unchecked or hooked:
        raise Fail(
            "forward ran under saved-tensor hooks: they switch the version check off, which hides a "
            "breaking edit instead of fixing it",
            "forward 是在保存张量钩子里运行的：钩子关掉了版本检查，只会把出事的修改藏起来，而不是修好它",
            expected=(
                "no saved_tensors_hooks, save_on_cpu or hook pushed by torch._C around the computation, "
                "so that backward checks the version counter of every saved tensor",
                "计算外面不套 saved_tensors_hooks、save_on_cpu，也不用 torch._C 压入钩子，"
                "让反向传播检查每个保存张量的版本计数器",
            ),
            found=(
                ", ".join(hooks.entered)
                if hooks.entered
                else "the version check was off during: " + ", ".join(unchecked)
                if unchecked
                else "saved tensors packed by a hook: " + ", ".join(hooked),
                "、".join(hooks.entered)
                if hooks.entered
                else "这些调用运行时版本检查是关着的：" + "、".join(unchecked)
                if unchecked
                else "被钩子打包的保存张量：" + "、".join(hooked),
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if edited:
        raise Fail(
            "a tensor that a node had saved for backward changed after it was saved (in place, through "
            ".data, NumPy or otherwise): the breaking edit is still there, only hidden from the version check",
            "某个节点为反向保存的张量在保存之后被改了（原地操作、.data、NumPy 或别的途径）："
            "出事的修改还在，只是躲过了版本检查",
            expected=(
                "saved tensors that keep the values they were saved with; in-place edits only of "
                "tensors that no node saved (c)",
                "被保存的张量保持保存时的值；只对没有节点保存的张量（c）做原地修改",
            ),
            found=", ".join(edited),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if copied:
        raise Fail(
            "some nodes saved copies instead of the tensors their operations used: the breaking edits were "
            "not fixed, the saved tensors were swapped",
            "有些节点保存的是拷贝，不是它的运算用到的张量：出事的修改没有修好，只是换掉了被保存的张量",
            expected=("each node saves the tensors its operation used", "每个节点保存的就是它的运算用到的张量"),
            found=", ".join(copied),
            hint_en=hint[0],
            hint_zh=hint[1],
        )

    check(
        "the harmless in-place edit c.add_(1) is kept: 1 added in place to the product c the result uses" + on[0],
        "无害的原地修改 c.add_(1) 保留了下来：对结果用到的乘积 c 原地加 1" + on[1],
    )
    if not used("c"):
        touched = sorted(
            {
                call.name
                for call in seen.calls
                if call.tensor is not None and type(call.grad_fn_before).__name__ == "MulBackward0"
            }
        )
        raise Fail(
            "c.add_(1) was rewritten too: no node saved c, so that in-place edit was harmless; change only "
            "the edits of s and a",
            "c.add_(1) 也被改掉了：没有节点保存 c，这处原地修改是无害的；只改 s 和 a 的那两处",
            expected=(
                "c = a * q, then c.add_(1), in place, on the c the result uses",
                "c = a * q，然后对结果用到的这个 c 原地做 c.add_(1)",
            ),
            found=(
                (f"in-place calls on a product, but none adds 1 to the c the result uses: {', '.join(touched)}")
                if touched
                else "c computed out of place",
                (f"对乘积做了原地调用，但没有一次是对结果用到的 c 加 1：{'、'.join(touched)}")
                if touched
                else "c 是非原地算出来的",
            ),
            hint_en="ask for each edit which node saved the tensor: sigmoid saved s, a * q saved a, nobody saved c",
            hint_zh="对每处修改问一句：是哪个节点保存了它？sigmoid 保存了 s，a * q 保存了 a，c 没有被任何节点保存",
        )

    check(
        "the breaking edits are fixed, not deleted: 1 is added to s and to a, out of place or on a clone, and the "
        "result uses both sums where the starter uses the edited tensors" + on[0],
        "出事的修改是修好了，不是删掉了：s 和 a 都加了 1（非原地，或者加在 clone 上），结果在起始文件用改后张量的地方"
        "用的正是这两个和" + on[1],
    )
    missing = [name for name in ("s", "a") if not used(name)]
    if missing:
        raise Fail(
            f"no addition of 1 to {' or '.join(missing)} whose result the computation goes on with: the "
            "edit was deleted and its 1 folded in elsewhere, or the sum is not used where the edited "
            "tensor was",
            f"没有找到一次给 {' 或 '.join(missing)} 加 1、且后面的计算接着用它的结果的加法：这处修改被删掉了，"
            "它的 1 挪到了别处，或者后面用的不是这个和",
            expected=(
                "s + 1 multiplied by c, and a + 1 added to the product, each written out of place or "
                "applied to a clone where the starter edits in place",
                "s + 1 与 c 相乘，a + 1 加到乘积上；两者都在起始文件原地修改的位置，写成非原地的或改在 clone 上",
            ),
            found=(
                f"the gradient of the result reaches no such addition to {' or '.join(missing)}",
                f"结果的梯度没有到达任何一次给 {' 或 '.join(missing)} 加 1 的加法",
            ),
            hint_en="keep each edit where it stands and change only how it is written: s = s + 1, a = a + 1",
            hint_zh="每处修改留在原来的位置，只改写法：s = s + 1，a = a + 1",
        )
