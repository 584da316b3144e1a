"""Exercises of the chapter in-place-operations."""

import io
import re
import tokenize
from pathlib import Path

import torch

from exercise_judge.checking import Fail, exercise
from exercise_judge.checks._shared import graph_nodes
from exercise_judge.spies import TorchCalls


def reference(x, q):
    """The starter's computation with every edit out of place."""
    a = x * 2
    s = a.sigmoid() + 1
    c = a * q + 1
    return (s * c + (a + 1)).sum()


def inputs():
    torch.manual_seed(0)
    return (torch.randn(6, dtype=torch.float64, requires_grad=True),
            torch.randn(6, dtype=torch.float64, requires_grad=True))


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
        return ("sigmoid saves its output for backward (its derivative is s·(1 − s)), and s.add_(1) overwrote "
                "it. Write that edit out of place, s = s + 1, or edit a clone of s",
                "sigmoid 为反向保存了它的输出（导数是 s·(1 − s)），s.add_(1) 把它改掉了。"
                "把这一步改成非原地的 s = s + 1，或者改 s 的一个副本")
    if "modified by an inplace operation" in message:
        return ("the message names the tensor's current producer (an in-place add_ is an Add), not the node "
                "that failed. That node saved the tensor as an input: since q requires grad, a * q saved a, "
                "and a.add_(1) overwrote it. Write that edit out of place, a = a + 1, after the multiplication",
                "报错里的名字是这个张量现在的产生者（原地的 add_ 也叫 Add），不是出错的那个节点。出错的节点把它当输入"
                "保存了：q 要梯度，所以 a * q 保存了 a，a.add_(1) 把它改掉了。把这一步改成非原地的 a = a + 1，"
                "放在乘法之后")
    if "does not require grad" in message:
        return ("the result is not on the graph any more: a detach(), a .item() or a no_grad block cut it off. "
                "Keep the computation on the graph and change only the breaking edits",
                "结果已经不在计算图上了：detach()、.item() 或 no_grad 块把它切断了。"
                "让计算留在图上，只改会破坏反向的那几处编辑")
    return ("read the error: it names the tensor that changed after a node saved it",
            "读一读报错：它说出了哪个张量在被某个节点保存之后又被改了")


def edits_c(call, q) -> bool:
    """Is `call` an in-place edit (add_, +=, ...) of c = a * q, a product that no node saved?"""
    node = call.grad_fn
    return (call.name.endswith("_") and not call.name.startswith("_") and type(node).__name__ == "MulBackward0"
            and any(getattr(parent, "variable", None) is q for parent, _ in node.next_functions))


@exercise("in-place-operations/safe-edit",
          en="make a function with in-place edits safe for backward, with the same value and gradients",
          zh="让带原地操作的函数能反向，值和梯度都不变")
def safe_edit(solution, check):
    x, q = inputs()
    expected_value = reference(x, q)
    expected_x, expected_q = torch.autograd.grad(expected_value, (x, q))

    check("forward(x, q) returns the value of the computation in the docstring",
          "forward(x, q) 返回文档字符串里那个计算的值")
    x, q = inputs()
    found = solution.forward(x, q)
    if not isinstance(found, torch.Tensor) or found.numel() != 1:
        raise Fail("forward must return a tensor holding one number", "forward 应当返回只含一个数的张量",
                   expected=("a one-element tensor with a grad_fn", "带 grad_fn 的单元素张量"),
                   found=(f"a tensor of shape {tuple(found.shape)}" if isinstance(found, torch.Tensor)
                          else f"{type(found).__name__}: {found!r}"[:80],
                          f"形状为 {tuple(found.shape)} 的张量" if isinstance(found, torch.Tensor)
                          else f"{type(found).__name__}：{found!r}"[:80]),
                   hint_en="return the tensor (s * c + a).sum(), not .item() or a list",
                   hint_zh="返回张量 (s * c + a).sum()，不要 .item()，也不要返回列表")
    value = found.detach().double().reshape(())
    if not torch.allclose(value, expected_value.detach(), rtol=1e-9, atol=1e-9):
        raise Fail("forward(x, q) computes another number", "forward(x, q) 算出来的数不一样",
                   expected=f"{expected_value.item():.6f}", found=f"{value.item():.6f}",
                   hint_en="order matters: the multiplication a * q uses a before it is increased by 1, and the "
                           "last line uses the edited s and a. When you write an edit out of place, the name must "
                           "point to the new tensor from that line on",
                   hint_zh="顺序要紧：乘法 a * q 用的是加 1 之前的 a，最后一行用的是改过的 s 和 a。"
                           "把一步改成非原地时，从那一行起名字要指向新张量")

    check("backward through forward(x, q) runs", "对 forward(x, q) 的结果可以反向")
    try:
        found.backward()
    except RuntimeError as error:
        message = str(error)
        part = re.search(r"which is output \d+ of \w+, is at version \d+; expected version \d+ instead", message)
        hint_en, hint_zh = backward_hint(message)
        raise Fail("backward raised RuntimeError", "反向抛出了 RuntimeError",
                   expected=("backward runs", "反向正常完成"),
                   found=(f"RuntimeError: … modified by an inplace operation: … {part.group()} …" if part
                          else f"RuntimeError: {message.splitlines()[0][:200]}",
                          f"RuntimeError：…… modified by an inplace operation：…… {part.group()} ……" if part
                          else f"RuntimeError：{message.splitlines()[0][:200]}"),
                   hint_en=hint_en, hint_zh=hint_zh) from None

    check("x.grad and q.grad equal the gradients of the same computation without in-place edits",
          "x.grad 和 q.grad 等于同一计算不用原地操作时的梯度")
    for name, grad, expected in (("x", x.grad, expected_x), ("q", q.grad, expected_q)):
        if grad is None:
            raise Fail(f"{name}.grad is None: no gradient reached {name}", f"{name}.grad 是 None：梯度没有到达 {name}",
                       expected=(f"a gradient for {name}", f"{name} 的梯度"), found="None",
                       hint_en=f"a detach() or a no_grad block cut every path from the result to {name}",
                       hint_zh=f"某个 detach() 或 no_grad 块切断了从结果到 {name} 的所有路径")
    differences = {name: (grad.double() - expected).abs().max().item()
                   for name, grad, expected in (("x", x.grad, expected_x), ("q", q.grad, expected_q))}
    wrong = {name: difference for name, difference in differences.items() if difference > 1e-9}
    if wrong:
        code = code_of(solution)
        if re.search(r"\.\s*data\b", code):
            hint_en = ("you edited through .data, which shares the storage but not the version counter: the check "
                       "that raised before saw nothing, and backward computed with the edited tensors (for "
                       "instance sigmoid's derivative from s + 1 instead of s, or a * q's from a + 1 instead of a). "
                       "Write the edits out of place instead")
            hint_zh = ("你是通过 .data 改的：.data 和原张量共享存储，却不共享版本计数器，原来会报错的那道检查什么也没"
                       "看到，反向就拿改过的张量去算了（比如 sigmoid 的导数用了 s + 1 而不是 s，a * q 用了 a + 1 而不是 a）。"
                       "应当把这些修改写成非原地的")
        elif re.search(r"\bdetach\b|\bno_grad\b", code):
            hint_en = ("a detach() or a no_grad block cut one of the paths from the result to the inputs: the "
                       "value is right, but no gradient flows back along that path. Keep every step on the graph")
            hint_zh = ("某个 detach() 或 no_grad 块切断了从结果到输入的一条路径：值是对的，但梯度不再沿这条路径回传。"
                       "每一步都要留在计算图上")
        else:
            hint_en = ("backward ran with values that differ from the forward's: some saved tensor was changed "
                       "without the version counter noticing, or a path to the inputs was cut")
            hint_zh = "反向用的值和前向的不一样：某个为反向保存的张量被改了而版本计数器没有察觉，或者通往输入的某条路径被切断了"
        which = " and ".join(f"{name}.grad" for name in wrong)
        raise Fail(f"backward ran without an error, but {which} {'are' if len(wrong) > 1 else 'is'} wrong",
                   f"反向没有报错，但 {' 和 '.join(f'{name}.grad' for name in wrong)} 不对",
                   expected=("the gradients of the computation without in-place edits",
                             "不用原地操作时的梯度"),
                   found=("; ".join(f"{name}.grad off by up to {d:.3g}" for name, d in wrong.items()),
                          "；".join(f"{name}.grad 最多差 {d:.3g}" for name, d in wrong.items())),
                   hint_en=hint_en, hint_zh=hint_zh)

    # --- the method: the same computation, with only the breaking edits changed ---
    check("forward still computes with the docstring's operations (a sigmoid, no custom Function)",
          "forward 仍然用文档字符串里的那些运算来算（有 sigmoid，没有自定义 Function）")
    x, q = inputs()
    with TorchCalls() as seen:
        out = solution.forward(x, q)
    nodes = graph_nodes(out) if isinstance(out, torch.Tensor) else []
    names = {type(node).__name__ for node in nodes}
    custom = any(isinstance(node, torch.autograd.function.BackwardCFunction) for node in nodes)
    if custom or "SigmoidBackward0" not in names:
        raise Fail(f"the result is not computed by the code of forward any more (graph nodes: "
                   f"{', '.join(sorted(names))}): fix the edits, don't replace the computation",
                   f"结果已经不是由 forward 里那段代码算出来的了（图中节点：{', '.join(sorted(names))}）："
                   "要修的是那几处修改，不是换掉整个计算",
                   expected=("a graph with SigmoidBackward0, MulBackward0, AddBackward0 …",
                             "图中有 SigmoidBackward0、MulBackward0、AddBackward0 ……"),
                   found=", ".join(sorted(names)),
                   hint_en="keep the starter's lines and rewrite only the in-place edits that backward rejects",
                   hint_zh="保留起始文件里的代码，只改写让 backward() 报错的那几处原地修改")

    check("the harmless in-place edit c.add_(1) is kept", "无害的原地修改 c.add_(1) 保留了下来")
    if not any(edits_c(call, q) for call in seen.calls):
        raise Fail("c.add_(1) was rewritten too: no node saved c, so that in-place edit was harmless; change only "
                   "the edits of s and a",
                   "c.add_(1) 也被改掉了：没有节点保存 c，这处原地修改是无害的；只改 s 和 a 的那两处",
                   expected=("c = a * q, then c.add_(1), in place", "c = a * q，然后原地 c.add_(1)"),
                   found=("c computed out of place", "c 是非原地算出来的"),
                   hint_en="ask for each edit which node saved the tensor: sigmoid saved s, a * q saved a, nobody "
                           "saved c",
                   hint_zh="对每处修改问一句：是哪个节点保存了它？sigmoid 保存了 s，a * q 保存了 a，c 没有被任何节点保存")
