"""Exercises of the chapter leaf-tensors."""

import copy

import torch
from torch import nn

from exercise_judge.checking import Fail, exercise
from exercise_judge.checks._shared import refuse_passes
from exercise_judge.spies import autograd_passes

ANSWERS = ("no-requires-grad", "not-a-leaf", "not-reached", "has-grad")

WHY = {
    "no-requires-grad": ("it does not require grad", "它不要梯度"),
    "not-a-leaf": ("it requires grad but is not a leaf", "它要梯度，但不是叶子张量"),
    "not-reached": ("it is a leaf that requires grad, but backward from the loss never reaches it",
                    "它是要梯度的叶子张量，但从 loss 出发的反向走不到它"),
    "has-grad": ("none of the three reasons: backward gives it a .grad", "三种原因都不成立：反向给了它 .grad"),
}


def cases():
    """(English name, Chinese description, tensor, loss, answer[, (hint_en, hint_zh)]), built the way real
    code builds them; every loss has been backwarded, as when a reader finds a None after backward."""
    torch.manual_seed(0)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    mse = nn.functional.mse_loss

    w1 = torch.randn(3, 1, requires_grad=True)
    b1 = torch.zeros(1)  # meant to be learned, created without requires_grad
    loss1 = mse(x @ w1 + b1, y)

    w2 = torch.randn(3, 1, requires_grad=True) * 0.1  # the product, not the leaf
    loss2 = mse(x @ w2, y)

    w3 = torch.randn(3, 1, requires_grad=True).to(torch.float64)  # a dtype change is an operation too
    loss3 = mse(x.double() @ w3, y.double())

    first, second = nn.Linear(3, 4), nn.Linear(4, 1)
    with torch.no_grad():
        hidden = first(x)
    loss4 = mse(second(hidden), y)

    head, tail = nn.Linear(3, 4), nn.Linear(4, 1)
    loss5 = mse(tail(head(x).detach()), y)
    twin = copy.deepcopy(tail)  # a copy of the layer, as for a target network: equal values, other tensors

    for loss in (loss1, loss2, loss3, loss4, loss5):
        loss.backward()
    return [
        ("b1 = torch.zeros(1), used as a bias", "b1 = torch.zeros(1)，当作偏置使用", b1, loss1, "no-requires-grad"),
        ("the input data x", "输入数据 x", x, loss1, "no-requires-grad"),
        ("w2 = torch.randn(3, 1, requires_grad=True) * 0.1", "w2 = torch.randn(3, 1, requires_grad=True) * 0.1",
         w2, loss2, "not-a-leaf"),
        ("w3 = torch.randn(3, 1, requires_grad=True).to(torch.float64)",
         "w3 = torch.randn(3, 1, requires_grad=True).to(torch.float64)", w3, loss3, "not-a-leaf"),
        ("first.weight, the first layer run under no_grad", "first.weight，第一层在 no_grad 里运行",
         first.weight, loss4, "not-reached"),
        ("second.weight, the layer after it", "second.weight，它后面的那一层", second.weight, loss4, "has-grad"),
        ("head.weight, the layer before a detach()", "head.weight，detach() 之前的那一层",
         head.weight, loss5, "not-reached"),
        ("tail.bias, the layer after the detach()", "tail.bias，detach() 之后的那一层", tail.bias, loss5, "has-grad"),
        ("w2 against loss4, a loss it takes no part in (two reasons hold: the first one counts)",
         "w2 对 loss4，一个与它无关的 loss（两个原因都成立：按顺序取第一个）", w2, loss4, "not-a-leaf"),
        # The method: a .grad left by another loss, and a tensor equal in value to a reached one.
        ("second.weight against loss5 (its .grad is from loss4)", "second.weight 对 loss5（它的 .grad 来自 loss4）",
         second.weight, loss5, "not-reached",
         ("it holds a .grad from loss4, but backward from loss5 never reaches it. Don't read .grad: it may come from "
          "any earlier backward. Walk from loss.grad_fn along next_functions",
          "它的 .grad 来自 loss4，从 loss5 出发的反向传播走不到它。不要看 .grad：它可能来自之前任何一次 backward()。"
          "从 loss.grad_fn 沿 next_functions 往回走")),
        ("twin.weight against loss5 (twin = copy.deepcopy(tail))", "twin.weight 对 loss5（twin = copy.deepcopy(tail)）",
         twin.weight, loss5, "not-reached",
         ("twin.weight is equal in value to tail.weight, but it is another tensor. Compare node.variable with `is`: "
          "equal values are not the same tensor",
          "twin.weight 和 tail.weight 数值相等，却是另一个张量。用 `is` 比较 node.variable：数值相等不等于是同一个张量")),
    ]


def hint(tensor, answer, found):
    """(English, Chinese) hint for the most likely mistake behind `found`."""
    if answer == "not-a-leaf":
        made_by = type(tensor.grad_fn).__name__
        if found == "not-reached":
            return (f"check is_leaf before walking the graph, as the chapter orders it: tensor.is_leaf is False "
                    f"(made by {made_by}), and a non-leaf's .grad stays None whether backward reaches it or not",
                    f"按本章的顺序，先看 is_leaf 再查图：tensor.is_leaf 是 False（由 {made_by} 产生），"
                    f"不是叶子张量，不论反向走不走得到，它的 .grad 都是 None")
        return (f"tensor.requires_grad is True, yet the tensor is not a leaf: tensor.is_leaf is False, it was made "
                f"by {made_by}. requires_grad alone cannot tell; check is_leaf next",
                f"tensor.requires_grad 是 True，但它不是叶子张量：tensor.is_leaf 是 False，它由 {made_by} 产生。"
                f"只看 requires_grad 分辨不出来，接着要看 is_leaf")
    if answer == "no-requires-grad":
        return ("tensor.requires_grad is False: check it first, nothing else matters then",
                "tensor.requires_grad 是 False：先查这一项，它成立时别的都不用看")
    if answer == "not-reached":
        return ("requires_grad is True and is_leaf is True, so look at the graph: walk from loss.grad_fn along "
                "next_functions; no AccumulateGrad node has .variable that is this tensor (a no_grad or a detach() "
                "cut the path)",
                "requires_grad 是 True，is_leaf 也是 True，那就查图：从 loss.grad_fn 沿 next_functions 往回走，"
                "没有哪个 AccumulateGrad 节点的 .variable 是这个张量（no_grad 或 detach() 切断了路）")
    return ("requires_grad is True, is_leaf is True, and walking from loss.grad_fn along next_functions reaches an "
            "AccumulateGrad node whose .variable is this tensor (compare with `is`, not ==)",
            "requires_grad 是 True，is_leaf 是 True，从 loss.grad_fn 沿 next_functions 往回走，能走到一个 .variable "
            "正是这个张量的 AccumulateGrad 节点（用 `is` 比较，不要用 ==）")


@exercise("leaf-tensors/why-none",
          en="name the reason a .grad is None: requires_grad, then is_leaf, then the graph",
          zh="说出 .grad 为 None 的原因：先看 requires_grad，再看 is_leaf，最后查图")
def why_none(solution, check):
    for name_en, name_zh, tensor, loss, answer, *hints in cases():
        check(f"why_grad_is_none({name_en}) is {answer!r}", f"why_grad_is_none({name_zh}) 是 {answer!r}")
        with autograd_passes() as passes:
            try:
                found = solution.why_grad_is_none(tensor, loss)
            except RuntimeError:
                if not passes:
                    raise
                found = None  # a second backward through a freed graph: named below
        refuse_passes(passes, ("why_grad_is_none ran a backward pass: decide from the attributes and the graph, "
                               "without calling backward again",
                               "why_grad_is_none 做了一次反向传播：要根据属性和计算图来判断，不要再调用 backward()"),
                      ("no backward pass", "不做任何反向传播"),
                      ("backward already ran; a second one raises on a freed graph, or adds into .grad. Read "
                       "requires_grad, is_leaf, and walk from loss.grad_fn along next_functions",
                       "loss.backward() 已经调用过了；再调用一次，要么因为图已释放而报错，要么往 .grad 里又加一份。"
                       "看 requires_grad 和 is_leaf，再从 loss.grad_fn 沿 next_functions 往回走"))
        if not isinstance(found, str) or found not in ANSWERS:
            raise Fail("the answer is not one of the four names the starter file defines",
                       "返回值不是起始文件定义的四个名字之一",
                       expected=" / ".join(map(repr, ANSWERS)), found=repr(found)[:80],
                       hint_en="return one of the constants NO_REQUIRES_GRAD, NOT_A_LEAF, NOT_REACHED, HAS_GRAD",
                       hint_zh="返回常量 NO_REQUIRES_GRAD、NOT_A_LEAF、NOT_REACHED、HAS_GRAD 之一")
        if found != answer:
            hint_en, hint_zh = hints[0] if hints else hint(tensor, answer, found)
            raise Fail(f"wrong reason for {name_en}", f"{name_zh} 的原因不对",
                       expected=(f"{answer!r}: {WHY[answer][0]}", f"{answer!r}：{WHY[answer][1]}"),
                       found=(f"{found!r}", f"{found!r}"), hint_en=hint_en, hint_zh=hint_zh)
