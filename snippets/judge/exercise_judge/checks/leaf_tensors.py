"""Exercises of the chapter leaf-tensors."""

from __future__ import annotations

import contextlib
import copy
import os
import random
import sys
from dataclasses import dataclass

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from exercise_judge.checking import Fail, exercise, times
from exercise_judge.checks._shared import refuse_passes
from exercise_judge.spies import autograd_passes

ANSWERS = ("no-requires-grad", "not-a-leaf", "not-reached", "reached")
ROUNDS = 3
# Lines of the solution's own code one call may run: far more than a walk that visits each node once runs on
# the largest graph (a residual network, under 300 nodes), far fewer than one that keeps no visited set runs:
# it walks every path anew, 2^depth of them. A walk without one that stops within the budget misses the layer
# joined halfway up the stack (see cases), in whatever order, depth first or breadth first.
LINE_BUDGET = 30_000

WHY = {
    "no-requires-grad": ("it does not require grad", "它不要梯度"),
    "not-a-leaf": ("it requires grad but is not a leaf", "它要梯度，但不是叶子张量"),
    "not-reached": (
        "it is a leaf that requires grad, but backward from the loss never reaches it",
        "它是要梯度的叶子张量，但从损失出发的反向传播走不到它",
    ),
    "reached": (
        "none of the three reasons: an AccumulateGrad node of the loss's graph holds it",
        "三种原因都不成立：损失的图里有持有它的 AccumulateGrad 节点",
    ),
}


class AttributeReads(TorchFunctionMode):
    """`with AttributeReads() as seen:` records in seen.reads (attribute, tensor) for every tensor attribute
    read inside the block (requires_grad, is_leaf, grad_fn, grad, ...): torch routes a tensor's property
    getters through the active TorchFunctionMode as the descriptor's __get__. It also records in
    seen.operands every tensor passed to any other torch call (loss.view_as(loss), loss.detach(), ...)."""

    def __init__(self):
        super().__init__()
        self.reads: list[tuple[str, torch.Tensor]] = []
        self.operands: list[torch.Tensor] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") == "__get__" and args and isinstance(args[0], torch.Tensor):
            self.reads.append((getattr(getattr(func, "__self__", None), "__name__", ""), args[0]))
        else:
            for arg in [*args, *(kwargs or {}).values()]:
                self.operands += [
                    t for t in (arg if isinstance(arg, (list, tuple)) else [arg]) if isinstance(t, torch.Tensor)
                ]
        return func(*args, **(kwargs or {}))

    def touched(self, tensor: torch.Tensor) -> bool:
        """Was `tensor` (the same object) read from or passed to a torch call inside the block?"""
        return any(on is tensor for _, on in self.reads) or any(on is tensor for on in self.operands)

    def read(self, attribute: str, tensor: torch.Tensor | None = None) -> int:
        """How many times `attribute` was read, on `tensor` (the same object) or on any tensor."""
        return sum(1 for name, on in self.reads if name == attribute and (tensor is None or on is tensor))


class ScaleBy(torch.autograd.Function):
    """h * s, whose backward gives s no gradient (an author who left that input's gradient out)."""

    @staticmethod
    def forward(ctx, h, s):
        ctx.save_for_backward(s)
        return h * s

    @staticmethod
    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return grad * s, None


class _OverBudget(BaseException):
    """Raised inside the solution when it passes LINE_BUDGET: a BaseException, so that the solution's own
    `except Exception` cannot swallow it."""


@contextlib.contextmanager
def line_budget(file: str, budget: int):
    """`with line_budget(path, n) as spent:` counts the lines run in frames of the file `path` inside the
    block, and raises _OverBudget inside the solution past `budget` (spent["over"] records it, in case the
    solution catches even that). It also records in spent["hidden"] the first line where one of those frames,
    or one of code the solution's frames run from a string (exec), ran a step while torch-function modes were switched off
    (torch._C.DisableTorchFunction) or the mode stack was not as at entry (a mode popped or pushed): reads
    made then never reach AttributeReads. It checks every opcode: one line can switch off, read and switch on."""
    spent, ours, previous = {"lines": 0, "over": False, "hidden": None}, {}, sys.gettrace()
    depth = torch._C._len_torch_function_stack()

    def watch(frame):
        if spent["hidden"] is None and (
            not torch._C._is_torch_function_mode_enabled() or torch._C._len_torch_function_stack() != depth
        ):
            spent["hidden"] = frame.f_lineno

    def local(frame, event, arg):
        watch(frame)
        if event == "line":
            spent["lines"] += 1
            if spent["lines"] > budget:
                spent["over"] = True
                raise _OverBudget
        return local

    def strings(frame, event, arg):
        watch(frame)
        return strings

    def calls(frame, event, arg):
        name = frame.f_code.co_filename
        if name not in ours:
            ours[name] = os.path.realpath(name) == file
        mine = (
            local
            if ours[name]
            else strings
            if (
                name.startswith("<")
                and not name.startswith("<frozen")
                and frame.f_back is not None
                and frame.f_back.f_trace in (local, strings)
            )
            else None
        )  # exec'd by the solution's own code
        if mine is not None:
            frame.f_trace_opcodes = True
        return mine

    sys.settrace(calls)
    try:
        yield spent
    finally:
        if sys.gettrace() is not calls and spent["hidden"] is None:
            spent["hidden"] = "sys.settrace"
        sys.settrace(previous)


def reachable(loss) -> set:
    """The nodes backward from loss can reach, each once."""
    todo, seen = [loss.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return seen


def nodes_of(loss) -> int:
    """How many nodes backward from loss can reach, each counted once."""
    return len(reachable(loss))


def expected_answer(requires_grad: bool, is_leaf: bool, tensor, loss) -> str:
    """The reason, in the chapter's order, from the tensor's requires_grad and is_leaf as they were before the
    solution ran (it could change them) and a walk of the loss's graph."""
    if not requires_grad:
        return "no-requires-grad"
    if not is_leaf:
        return "not-a-leaf"
    holds = any(getattr(node, "variable", None) is tensor for node in reachable(loss))
    return "reached" if holds else "not-reached"


@dataclass
class Case:
    """One case. It carries no expected answer: the solution runs in the judge's process, and could read one
    from the judge's frames; the judge computes the answer only after the solution has returned."""

    en: str
    zh: str
    tensor: torch.Tensor
    loss: torch.Tensor
    hint: tuple[str, str] | None = None  # the hint for a wrong answer, when the case has one of its own


def cases(rng: random.Random) -> list[Case]:
    """One round of cases, built the way real code builds them, with sizes drawn from `rng`; each loss has had
    its backward pass (or the pass the case names) before the solution sees it, as when a reader finds a None.
    The sizes never match those of the starter's example (x 8 × 3, a hidden layer 4 wide)."""
    torch.manual_seed(rng.randrange(2**31))
    rows, width, hidden = rng.randint(9, 16), rng.randint(5, 8), rng.randint(5, 9)
    x, y = torch.randn(rows, width), torch.randn(rows, 1)
    mse = nn.functional.mse_loss

    w1 = torch.randn(width, 1, requires_grad=True)
    b1 = torch.zeros(1)  # meant to be learned, created without requires_grad
    loss1 = mse(x @ w1 + b1, y)

    w2 = torch.randn(width, 1, requires_grad=True) * 0.1  # the product, not the leaf
    loss2 = mse(x @ w2, y)

    w3 = torch.randn(width, 1, requires_grad=True).to(torch.float64)  # a dtype change is an operation too
    loss3 = mse(x.double() @ w3, y.double())

    first, second = nn.Linear(width, hidden), nn.Linear(hidden, 1)
    with torch.no_grad():
        hidden_out = first(x)
    loss4 = mse(second(hidden_out), y)

    head, tail = nn.Linear(width, hidden), nn.Linear(hidden, 1)
    alias = tail.weight.detach().requires_grad_()  # shares tail.weight's storage, another tensor
    loss5 = mse(tail(head(x).detach()), y)
    twin = copy.deepcopy(tail)  # a copy of the layer, as for a target network: equal values, other tensors

    gate, scaler = nn.Linear(width, 1), nn.Linear(width, 1)
    factor = torch.tensor(gate(x).mean().item())  # out of torch and back: no graph
    loss6 = mse(scaler(x) * factor, y)

    for loss in (loss1, loss2, loss3, loss4, loss5, loss6):
        loss.backward()

    a, b = nn.Linear(width, hidden), nn.Linear(hidden, 1)
    loss7 = mse(b(a(x)), y)
    loss7.backward(inputs=list(b.parameters()))  # a's parameters left out

    c = nn.Linear(width, 1)
    loss8 = mse(c(x), y)
    torch.autograd.grad(loss8, list(c.parameters()))  # returned, stored in no .grad

    d, s = nn.Linear(width, 1), torch.ones(1, requires_grad=True)
    loss9 = mse(ScaleBy.apply(d(x), s), y)
    loss9.backward()  # ScaleBy.backward returns None for s

    e = nn.Linear(width, 1)
    loss10 = mse(e(x), y)
    loss10.backward()
    e.zero_grad()  # set_to_none: .grad is None again

    # A residual network on a frozen stem: every block adds a second path to all below it, 2^depth paths
    # for a few hundred nodes. Only a walk that visits each node once gets through it. A layer beside the
    # stack, on the side of the + that a walk takes last (last-in-first-out for loss11, in order for
    # loss12), is reached only by a walk that gets through the stack: a walk that gives up early misses it.
    # other.weight's AccumulateGrad node is kept alive by loss12's graph and is not on loss11's: whether a
    # tensor's node exists anywhere cannot stand in for the walk.
    # mid(x) joins the stack at block `joint`: both sides of that block's outer + lead into the blocks below,
    # and mid(x) sits beside them in the inner +, so a walk without a visited set, taking the parents in
    # order or reversed, goes through the 2^joint paths below before it; breadth first, it goes through the
    # paths of the blocks above, of every length up to theirs (for depth 36 to 44, each order needs over
    # 50,000 nodes). On its way there mid(x) is summed with the outputs of the 8 blocks below the joint, so
    # a walk that takes a random path down, again and again, finds it once in about a thousand paths.
    depth = rng.randint(36, 44)
    joint, taps = depth * 2 // 5, 8
    stem, out, extra, other = nn.Linear(width, hidden), nn.Linear(hidden, 1), nn.Linear(width, 1), nn.Linear(width, 1)
    mid = nn.Linear(width, hidden)
    blocks = [nn.Linear(hidden, hidden) for _ in range(depth)]
    with torch.no_grad():
        h = stem(x)
    fused = mid(x)
    for i, block in enumerate(blocks):
        h = (h + fused) + torch.tanh(block(h)) if i == joint else h + torch.tanh(block(h))
        if joint - taps <= i < joint:
            fused = fused + h
    loss11, loss12 = mse(extra(x) + out(h), y), mse(out(h) + other(x), y)
    loss11.backward(retain_graph=True)
    loss12.backward()

    graph = (
        "this tensor is on the loss's graph: walk from loss.grad_fn along next_functions and decide from the "
        "AccumulateGrad nodes, not from .grad",
        "这个张量在损失的图上：从 loss.grad_fn 沿 next_functions 往回走，根据 AccumulateGrad 节点来判断，不要看 .grad",
    )
    beside = (
        "an AccumulateGrad node of this loss's graph holds it, on the side of the + that your walk takes "
        "after the residual blocks. A walk that stops after some number of nodes never gets there: keep a "
        "set of the nodes you have seen, and walk until no unseen node is left",
        "损失的图里有持有它的 AccumulateGrad 节点，在 + 的另一边，你的遍历要先走完残差块才轮到它。"
        "走了一定数量的节点就停下的遍历到不了那里：用一个集合记下看过的节点，一直走到没有没看过的节点为止",
    )
    return [
        Case("b1 = torch.zeros(1), used as a bias", "b1 = torch.zeros(1)，当作偏置使用", b1, loss1),
        Case("the input data x", "输入数据 x", x, loss1),
        Case(
            f"w2 = torch.randn({width}, 1, requires_grad=True) * 0.1",
            f"w2 = torch.randn({width}, 1, requires_grad=True) * 0.1",
            w2,
            loss2,
        ),
        Case(
            f"w3 = torch.randn({width}, 1, requires_grad=True).to(torch.float64)",
            f"w3 = torch.randn({width}, 1, requires_grad=True).to(torch.float64)",
            w3,
            loss3,
        ),
        Case(
            "first.weight, the first layer run under no_grad",
            "first.weight，第一层在 no_grad 里运行",
            first.weight,
            loss4,
        ),
        Case("second.weight, the layer after it", "second.weight，它后面的那一层", second.weight, loss4),
        Case("head.weight, the layer before a detach()", "head.weight，detach() 之前的那一层", head.weight, loss5),
        Case("tail.bias, the layer after the detach()", "tail.bias，detach() 之后的那一层", tail.bias, loss5),
        Case(
            "gate.weight, whose output came back through torch.tensor(....item())",
            "gate.weight，它的输出经 torch.tensor(....item()) 转了一圈再回来",
            gate.weight,
            loss6,
        ),
        Case(
            "a.weight, left out by backward(inputs=list(b.parameters()))",
            "a.weight，backward(inputs=list(b.parameters())) 没有点名它",
            a.weight,
            loss7,
            graph,
        ),
        Case(
            "c.weight, after torch.autograd.grad(loss, list(c.parameters()))",
            "c.weight，用的是 torch.autograd.grad(loss, list(c.parameters()))",
            c.weight,
            loss8,
            graph,
        ),
        Case(
            "s, behind a custom Function whose backward returns None for it",
            "s，经过一个自定义 Function，它的 backward 给 s 返回 None",
            s,
            loss9,
            graph,
        ),
        Case("e.weight, after e.zero_grad()", "e.weight，之后调用过 e.zero_grad()", e.weight, loss10, graph),
        Case(
            f"stem.weight, run under no_grad below {depth} residual blocks",
            f"stem.weight，在 no_grad 里运行，上面接着 {depth} 个残差块",
            stem.weight,
            loss11,
        ),
        Case(
            f"blocks[0].weight, the lowest of {depth} residual blocks",
            f"blocks[0].weight，{depth} 个残差块里最底下的一块",
            blocks[0].weight,
            loss11,
        ),
        Case(
            f"extra.weight, in extra(x) + out(h) with h from {depth} residual blocks",
            f"extra.weight，在 extra(x) + out(h) 里，h 来自 {depth} 个残差块",
            extra.weight,
            loss11,
            beside,
        ),
        Case(
            f"mid.weight, mid(x) summed with the outputs of blocks[{joint - taps}] to blocks[{joint - 1}], then "
            f"added to h at blocks[{joint}] of {depth} residual blocks",
            f"mid.weight，mid(x) 先与 blocks[{joint - taps}] 到 blocks[{joint - 1}] 的输出相加，再在 {depth} 个残差块中的 "
            f"blocks[{joint}] 处加到 h 上",
            mid.weight,
            loss11,
            (
                "an AccumulateGrad node of this loss's graph holds it, where mid(x) joins the residual stack. A walk "
                "without a set of seen nodes, depth first or breadth first, taking next_functions in any fixed order, "
                "goes through tens of thousands of nodes of the residual blocks before it gets there, and a path "
                "picked at random seldom leads there. A walk that stops after some number of nodes never gets there: "
                "keep a set of the nodes you have seen, and walk until no unseen node is left",
                "损失的图里有持有它的 AccumulateGrad 节点，就在 mid(x) 并入残差块的地方。不记看过的节点的遍历，"
                "不论深度优先还是广度优先，不论按什么固定顺序走 next_functions，都要先走过残差块里的好几万个节点"
                "才到得了那里；随机挑一条路往下走，也很少能走到那里。走了一定数量的节点就停下的遍历到不了那里："
                "用一个集合记下看过的节点，一直走到没有没看过的节点为止",
            ),
        ),
        Case(
            f"other.weight, in out(h) + other(x) with h from {depth} residual blocks",
            f"other.weight，在 out(h) + other(x) 里，h 来自 {depth} 个残差块",
            other.weight,
            loss12,
            beside,
        ),
        Case(
            f"other.weight with loss11 (extra(x) + out(h), h from {depth} residual blocks)",
            f"other.weight，损失用 loss11（extra(x) + out(h)，h 来自 {depth} 个残差块）",
            other.weight,
            loss11,
            (
                "loss12's graph holds an AccumulateGrad node for other.weight, but loss11's graph does not lead to it: "
                "a node that exists somewhere is not a node on this loss's graph. Walk from loss.grad_fn along "
                "next_functions, keeping a set of the nodes you have seen, until no unseen node is left",
                "loss12 的图里有 other.weight 的 AccumulateGrad 节点，但 loss11 的图走不到它：节点存在于某张图里，"
                "不等于在这个损失的图上。从 loss.grad_fn 沿 next_functions 往回走，用一个集合记下看过的节点，"
                "一直走到没有没看过的节点为止",
            ),
        ),
        Case(
            "w2 with loss4, a loss it takes no part in (two reasons hold: the first one counts)",
            "w2，损失用与它无关的 loss4（两个原因都成立：按顺序取第一个）",
            w2,
            loss4,
        ),
        Case(
            "second.weight with loss5 (its .grad is from loss4)",
            "second.weight，损失用 loss5（它的 .grad 来自 loss4）",
            second.weight,
            loss5,
            (
                "it holds a .grad from loss4, but backward from loss5 never reaches it. Don't read .grad: it may come "
                "from any earlier backward. Walk from loss.grad_fn along next_functions",
                "它的 .grad 来自 loss4，从 loss5 出发的反向传播走不到它。不要看 .grad：它可能来自之前任何一次 backward()。"
                "从 loss.grad_fn 沿 next_functions 往回走",
            ),
        ),
        Case(
            "twin.weight with loss5 (twin = copy.deepcopy(tail))",
            "twin.weight，损失用 loss5（twin = copy.deepcopy(tail)）",
            twin.weight,
            loss5,
            (
                "twin.weight is equal in value to tail.weight, but it is another tensor. Compare node.variable with "
                "`is`: equal values are not the same tensor",
                "twin.weight 和 tail.weight 数值相等，却是另一个张量。用 `is` 比较 node.variable：数值相等不等于是同一个张量",
            ),
        ),
        Case(
            "alias = tail.weight.detach().requires_grad_(), with loss5",
            "alias = tail.weight.detach().requires_grad_()，损失用 loss5",
            alias,
            loss5,
            (
                "alias shares the storage of tail.weight, but it is another tensor. Compare node.variable with `is`: "
                "the same memory (data_ptr) is not the same tensor",
                "alias 和 tail.weight 共享存储，却是另一个张量。用 `is` 比较 node.variable：同一块内存（data_ptr）"
                "不等于是同一个张量",
            ),
        ),
    ]


def hint(tensor, answer, found):
    """(English, Chinese) hint for the most likely mistake behind `found`."""
    if answer == "not-a-leaf":
        made_by = type(tensor.grad_fn).__name__
        if found == "not-reached":
            return (
                f"check is_leaf before walking the graph, as the chapter orders it: tensor.is_leaf is False "
                f"(its grad_fn is {made_by}). A non-leaf is never held by an AccumulateGrad node, and by default "
                f"(without retain_grad() or backward(inputs=[...])) its .grad stays None whether backward "
                f"reaches it or not",
                f"按本章的顺序，先看 is_leaf 再查图：tensor.is_leaf 是 False（它的 grad_fn 是 {made_by}）。"
                f"不是叶子的张量不会由 AccumulateGrad 节点持有；默认情况下（没有 retain_grad()，"
                f"也没在 backward(inputs=[...]) 里点名），不论反向传播走不走得到它，它的 .grad 都是 None",
            )
        return (
            f"tensor.requires_grad is True, yet the tensor is not a leaf: tensor.is_leaf is False, its grad_fn "
            f"is {made_by}. requires_grad alone cannot tell; check is_leaf next",
            f"tensor.requires_grad 是 True，但它不是叶子张量：tensor.is_leaf 是 False，它的 grad_fn 是 {made_by}。"
            f"只看 requires_grad 分辨不出来，接着要看 is_leaf",
        )
    if answer == "no-requires-grad":
        return (
            "tensor.requires_grad is False: check it first, as the chapter orders it; nothing else matters then",
            "tensor.requires_grad 是 False：按本章的顺序先查这一项，它成立时别的都不用看",
        )
    if answer == "not-reached":
        return (
            "requires_grad is True and is_leaf is True, so look at the graph: walk from loss.grad_fn along "
            "next_functions; no AccumulateGrad node has .variable that is this tensor (the path was cut, or the "
            "tensor was not used)",
            "requires_grad 是 True，is_leaf 也是 True，那就查图：从 loss.grad_fn 沿 next_functions 往回走，"
            "没有哪个 AccumulateGrad 节点的 .variable 是这个张量（路被切断了，或者根本没用到它）",
        )
    return (
        "requires_grad is True, is_leaf is True, and walking from loss.grad_fn along next_functions reaches an "
        "AccumulateGrad node whose .variable is this tensor (compare with `is`, not ==)",
        "requires_grad 是 True，is_leaf 是 True，从 loss.grad_fn 沿 next_functions 往回走，能走到一个 .variable "
        "正是这个张量的 AccumulateGrad 节点（用 `is` 比较，不要用 ==）",
    )


@exercise(
    "leaf-tensors/why-none",
    en="name the reason a .grad is None: requires_grad, then is_leaf, then the graph",
    zh="说出 .grad 为 None 的原因：先看 requires_grad，再看 is_leaf，最后查图",
)
def why_none(solution, check):
    # Fresh sizes on every run, so that no table of the cases can stand in for the method; the first round
    # keeps the order above (the order-sensitive cases first), the later ones are shuffled.
    seeds = random.SystemRandom()
    for round_number in range(1, ROUNDS + 1):
        rng = random.Random(seeds.randrange(2**32))
        round_cases = cases(rng)
        if round_number > 1:
            rng.shuffle(round_cases)
        for case in round_cases:
            _one_case(solution, check, case, round_number)


def _one_case(solution, check, case, round_number):
    # The expected answer is computed only once the solution has returned: while it runs, no frame or check
    # label of the judge holds it (tests/wrong_attempts/leaf-tensors--why-none--peek-at-the-judge.py).
    tensor, loss = case.tensor, case.loss
    requires_grad, is_leaf = tensor.requires_grad, tensor.is_leaf
    check(
        f"round {round_number}: why_grad_is_none({case.en}) names the right reason",
        f"第 {round_number} 轮：why_grad_is_none({case.zh}) 说对了原因",
    )
    ran = []  # a backward pass through this loss's graph, however it was started, runs its root node
    handle = loss.grad_fn.register_prehook(lambda grad_outputs: ran.append(True))
    try:
        with autograd_passes() as passes, AttributeReads() as seen:
            with line_budget(os.path.realpath(solution.__file__), LINE_BUDGET) as spent:
                try:
                    found = solution.why_grad_is_none(tensor, loss)
                except _OverBudget:
                    found = None  # named below
                except RuntimeError:
                    if not passes and not ran:
                        raise
                    found = None  # a second backward through a freed graph: named below
    finally:
        handle.remove()
    answer = expected_answer(requires_grad, is_leaf, tensor, loss)
    if spent["over"]:
        nodes = nodes_of(loss)
        raise Fail(
            "why_grad_is_none kept walking the same nodes",
            "why_grad_is_none 反复走过同一批节点",
            expected=(
                f"each node visited once: backward from this loss reaches {nodes} nodes",
                f"每个节点只看一次：从这个损失出发能走到 {nodes} 个节点",
            ),
            found=(
                f"more than {LINE_BUDGET:,} lines of your code run in one call, with no answer yet",
                f"你的代码在一次调用里跑了超过 {LINE_BUDGET:,} 行，还没给出答案",
            ),
            hint_en="keep a set of the nodes you have seen and skip them, to visit each node once: when two "
            "paths meet (a residual connection, a tensor used twice), a walk without it goes down "
            "both, and a network of n residual blocks has 2^n paths",
            hint_zh="用一个集合记下看过的节点，再遇到就跳过，每个节点只看一次：两条路汇合的地方（残差连接、"
            "一个张量用了两次），不记的话两条路都要往下走一遍，n 个残差块就有 2^n 条路",
        )
    if spent["hidden"] is not None:
        where = (
            (f"line {spent['hidden']}", f"第 {spent['hidden']} 行")
            if isinstance(spent["hidden"], int)
            else ("sys.settrace replaced", "sys.settrace 被换掉了")
        )
        raise Fail(
            "why_grad_is_none hid its torch calls from the judge",
            "why_grad_is_none 躲开了评测对 torch 调用的观察",
            expected=(
                "every step of your code run with torch-function modes on, as the judge set them",
                "你的代码每一步都在评测设好的 torch function mode 下运行",
            ),
            found=(f"modes switched off or popped ({where[0]})", f"mode 被关掉或弹出了（{where[1]}）"),
            hint_en="do not use torch._C.DisableTorchFunction or pop the mode stack: the judge watches which "
            "attributes you read, to check the chapter's order. Read requires_grad, then is_leaf, and "
            "only when both hold walk from loss.grad_fn",
            hint_zh="不要用 torch._C.DisableTorchFunction，也不要弹出 mode 栈：评测要看你读了哪些属性，"
            "以检查是否按本章的顺序。先读 requires_grad，再读 is_leaf，两项都成立才从 loss.grad_fn 出发查图",
        )
    refuse_passes(
        passes,
        (
            "why_grad_is_none ran a backward pass: decide from the attributes and the graph, "
            "without calling backward again",
            "why_grad_is_none 做了一次反向传播：要根据属性和计算图来判断，不要再调用 backward()",
        ),
        ("no backward pass", "不做任何反向传播"),
        (
            "backward already ran; a second one raises on a freed graph, or adds into .grad. Read "
            "requires_grad, is_leaf, and walk from loss.grad_fn along next_functions",
            "loss.backward() 已经调用过了；再调用一次，要么因为图已释放而报错，要么往 .grad 里又加一份。"
            "看 requires_grad 和 is_leaf，再从 loss.grad_fn 沿 next_functions 往回走",
        ),
    )
    if ran:
        raise Fail(
            "why_grad_is_none ran the loss's graph",
            "why_grad_is_none 执行了损失的图",
            expected=("no backward pass: the graph is only read", "不做任何反向传播：图只读不跑"),
            found=(
                "loss.grad_fn ran during why_grad_is_none (a backward pass started some other way)",
                "why_grad_is_none 运行期间 loss.grad_fn 被执行了（某种别的方式启动的反向传播）",
            ),
            hint_en="walk the nodes yourself: from loss.grad_fn along next_functions, reading each node's "
            "attributes; running them says nothing a walk does not, and raises on a freed graph",
            hint_zh="自己遍历节点：从 loss.grad_fn 沿 next_functions 往回走，只读每个节点的属性；"
            "执行它们得不到查图之外的信息，图已释放时还会报错",
        )
    grad_reads = seen.read("grad")
    if grad_reads:
        raise Fail(
            "why_grad_is_none read .grad",
            "why_grad_is_none 读了 .grad",
            expected=(
                "no read of .grad: decide from requires_grad, is_leaf and the graph",
                "不读 .grad：根据 requires_grad、is_leaf 和计算图来判断",
            ),
            found=(f".grad read {times(grad_reads)}", f"读了 {grad_reads} 次 .grad"),
            hint_en=".grad says nothing about this loss: an earlier backward() may have filled it, and a leaf "
            "on the graph can still have none (backward(inputs=...), torch.autograd.grad, "
            "zero_grad()). Walk from loss.grad_fn along next_functions",
            hint_zh=".grad 说明不了这个损失的情况：之前的 backward() 可能填过它，而图上的叶子也可能没有 .grad"
            "（backward(inputs=...)、torch.autograd.grad、zero_grad()）。从 loss.grad_fn 沿 "
            "next_functions 往回走",
        )
    if not isinstance(found, str) or found not in ANSWERS:
        raise Fail(
            "the answer is not one of the four names the starter file defines",
            "返回值不是起始文件定义的四个名字之一",
            expected=" / ".join(map(repr, ANSWERS)),
            found=repr(found)[:80],
            hint_en="return one of the constants NO_REQUIRES_GRAD, NOT_A_LEAF, NOT_REACHED, REACHED",
            hint_zh="返回常量 NO_REQUIRES_GRAD、NOT_A_LEAF、NOT_REACHED、REACHED 之一",
        )
    if not (requires_grad and is_leaf) and seen.touched(loss):
        which = "requires_grad is False" if not requires_grad else "is_leaf is False"
        raise Fail(
            "why_grad_is_none walked the graph, though requires_grad or is_leaf already gives the reason",
            "why_grad_is_none 查了图，可 requires_grad 或 is_leaf 已经给出了原因",
            expected=(f"{which}: return {answer!r} without touching loss", f"{which}：不碰 loss，直接返回 {answer!r}"),
            found=(
                f"loss used (an attribute of it read, or it passed to a torch call); answered {found!r}",
                f"用到了 loss（读了它的属性，或把它传给了 torch 的函数）；返回了 {found!r}",
            ),
            hint_en="check in the chapter's order and stop at the first reason that holds: requires_grad, "
            "then is_leaf, and only when both hold, the graph. No AccumulateGrad node holds a "
            "non-leaf, so a walk alone would call it not reached",
            hint_zh="按本章的顺序查，第一个成立的原因就是答案：先 requires_grad，再 is_leaf，两项都成立才查图。"
            "不是叶子的张量不会由 AccumulateGrad 节点持有，只靠查图会把它误判成走不到",
        )
    if requires_grad and is_leaf and not seen.read("grad_fn", loss):
        raise Fail(
            "why_grad_is_none did not walk the graph from loss.grad_fn",
            "why_grad_is_none 没有从 loss.grad_fn 出发查图",
            expected=(
                "loss.grad_fn read, then the nodes behind it walked along next_functions",
                "读 loss.grad_fn，再沿 next_functions 遍历它后面的节点",
            ),
            found=(f"loss.grad_fn never read; answered {found!r}", f"没有读 loss.grad_fn；返回了 {found!r}"),
            hint_en="requires_grad and is_leaf both hold here, so only the graph can tell: walk from "
            "loss.grad_fn along next_functions and look for the AccumulateGrad node whose .variable "
            "is the tensor",
            hint_zh="这里 requires_grad 和 is_leaf 都成立，只有查图才能判断：从 loss.grad_fn 沿 next_functions "
            "往回走，找 .variable 正是这个张量的 AccumulateGrad 节点",
        )
    if found != answer:
        hint_en, hint_zh = case.hint or hint(tensor, answer, found)
        raise Fail(
            f"wrong reason for {case.en}",
            f"{case.zh} 的原因不对",
            expected=(f"{answer!r}: {WHY[answer][0]}", f"{answer!r}：{WHY[answer][1]}"),
            found=(f"{found!r}", f"{found!r}"),
            hint_en=hint_en,
            hint_zh=hint_zh,
        )
