"""Exercises of the chapter custom-functions."""

import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

from exercise_judge.checking import Fail, exercise
from exercise_judge.checks._shared import refuse_ctx_attributes, require_function_class


def draw(*shape, seed=0, beta=1.5, x_grad=True, beta_grad=True):
    torch.manual_seed(seed)
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=x_grad)
    return x, torch.tensor(beta, dtype=torch.float64, requires_grad=beta_grad)


def expected_grads(x, beta):
    """The true gradients of swish(x, beta).sum(), from plain autograd on fresh leaves."""
    x, beta = x.detach().requires_grad_(), beta.detach().requires_grad_()
    return torch.autograd.grad((x * torch.sigmoid(beta * x)).sum(), (x, beta))


def grads_through(solution, x, beta):
    """The gradients of swish(x, beta).sum() through the reader's backward, or a Fail that explains
    why autograd refused what backward returned."""
    out = solution.swish(x, beta)
    try:
        return torch.autograd.grad(out.sum(), (x, beta), allow_unused=True)
    except NotImplementedError:
        raise  # the starter's backward: the judge shows the reader's line
    except RuntimeError as error:
        message = str(error).splitlines()[0]
        raise Fail("autograd rejected what Swish.backward returned", "autograd 不接受 Swish.backward 的返回值",
                   expected=("two gradients, for x and beta, each shaped like its input",
                             "两个梯度，分别对应 x 和 beta，形状和各自的输入相同"),
                   found=f"RuntimeError: {message[:200]}",
                   hint_en="backward returns one gradient per input of forward, in order: (grad_x, grad_beta)",
                   hint_zh="backward 按顺序为 forward 的每个输入返回一个梯度：(grad_x, grad_beta)") from None


def raw_backward(solution, x, beta):
    """What the reader's backward itself returns, before autograd drops anything: the Function's
    node called directly with a grad_output of ones."""
    out = solution.swish(x, beta)
    returned = out.grad_fn.apply(torch.ones_like(out))
    return returned if isinstance(returned, tuple) else (returned,)


@exercise("custom-functions/swish",
          en="swish(x, beta) = x·sigmoid(beta·x) as a custom Function: save_for_backward, needs_input_grad",
          zh="把 swish(x, beta) = x·sigmoid(beta·x) 写成自定义 Function：save_for_backward、needs_input_grad")
def swish(solution, check):
    check("Swish is a torch.autograd.Function", "Swish 是一个 torch.autograd.Function")
    require_function_class(solution, "Swish", ("keep the class of the starter file and fill in its static methods",
                                                    "保留起始文件里的类，填好它的静态方法"))

    check("swish(x, beta) equals x·sigmoid(beta·x), in float64, and goes through Swish",
          "swish(x, beta) 等于 x·sigmoid(beta·x)，是 float64，并且经过 Swish")
    x, beta = draw(5)
    out = solution.swish(x, beta)
    want = (x * torch.sigmoid(beta * x)).detach()
    if not isinstance(out, torch.Tensor) or out.shape != x.shape or out.dtype != torch.float64:
        raise Fail("swish(x, beta) did not return a float64 tensor shaped like x",
                   "swish(x, beta) 返回的不是和 x 同形状的 float64 张量",
                   expected=(f"float64, shape {tuple(x.shape)}", f"float64，形状 {tuple(x.shape)}"),
                   found=(f"{out.dtype}, shape {tuple(out.shape)}", f"{out.dtype}，形状 {tuple(out.shape)}")
                   if isinstance(out, torch.Tensor) else f"{type(out).__name__}: {out!r}"[:80],
                   hint_en="return Swish.apply(x, beta), and don't cast inside the Function",
                   hint_zh="返回 Swish.apply(x, beta)，也不要在 Function 里转换类型")
    difference = (out.detach() - want).abs().max().item()
    if difference > 1e-12:
        raise Fail("swish(x, beta) is not x·sigmoid(beta·x)", "swish(x, beta) 不等于 x·sigmoid(beta·x)",
                   expected=("x * torch.sigmoid(beta * x)", "x * torch.sigmoid(beta * x)"),
                   found=(f"off by up to {difference:.3g}", f"最多差 {difference:.3g}"),
                   hint_en="forward returns x * torch.sigmoid(beta * x)", hint_zh="forward 返回 x * torch.sigmoid(beta * x)")
    node = type(out.grad_fn).__name__ if out.grad_fn is not None else "None"
    if node != f"{solution.Swish.__name__}Backward":
        raise Fail(f"swish(x, beta) did not go through Swish: its grad_fn is {node}",
                   f"swish(x, beta) 没有经过 Swish：它的 grad_fn 是 {node}",
                   expected=f"grad_fn {solution.Swish.__name__}Backward", found=f"grad_fn {node}",
                   hint_en="call the Function with Swish.apply(x, beta)", hint_zh="用 Swish.apply(x, beta) 调用这个 Function")

    check("the gradients of swish(x, beta).sum() for x and beta are right",
          "swish(x, beta).sum() 对 x 和 beta 的梯度都对")
    grad_x, grad_beta = grads_through(solution, x, beta)
    true_x, true_beta = expected_grads(x, beta)
    for name, found, true in (("x", grad_x, true_x), ("beta", grad_beta, true_beta)):
        if found is None or found.shape != true.shape or not torch.allclose(found, true, rtol=1e-10, atol=1e-12):
            worst = "None" if found is None else (
                f"shape {tuple(found.shape)}" if found.shape != true.shape else
                f"off by up to {(found - true).abs().max().item():.3g}")
            if name == "x" and found is not None and found.shape == true.shape:
                s = torch.sigmoid(beta * x).detach()
                if torch.allclose(found, s + x.detach() * s * (1 - s), rtol=1e-10, atol=1e-12):
                    raise Fail("the gradient for x is missing the factor beta of the inner derivative",
                               "对 x 的梯度漏了内层导数里的因子 beta",
                               expected="g * (s + beta * x * s * (1 - s))", found="g * (s + x * s * (1 - s))",
                               hint_en="sigmoid(beta * x) depends on x through beta * x, whose derivative is beta: "
                                       "the chain rule multiplies sigmoid's derivative by it",
                               hint_zh="sigmoid(beta * x) 是通过 beta * x 依赖 x 的，而 beta * x 对 x 的导数是 beta："
                                       "链式法则要把 sigmoid 的导数再乘上它")
            raise Fail(f"the gradient for {name} is wrong", f"对 {name} 的梯度不对",
                       expected=("sigmoid(βx) + βx·σ'(βx), times grad_output" if name == "x" else
                                 "the sum of grad_output · x² · σ'(βx)"), found=worst,
                       hint_en="with s = sigmoid(beta * x), sigmoid's derivative is s * (1 - s); the chain rule "
                               "gives grad_x = g * (s + beta * x * s * (1 - s)) and grad_beta = "
                               "(g * x * x * s * (1 - s)).sum()",
                       hint_zh="记 s = sigmoid(beta * x)，sigmoid 的导数是 s * (1 - s)；链式法则给出 grad_x = "
                               "g * (s + beta * x * s * (1 - s))，grad_beta = (g * x * x * s * (1 - s)).sum()")

    check("gradcheck(swish, (x, beta)) passes in float64, for x of shape (2, 3)",
          "对形状为 (2, 3) 的 x，gradcheck(swish, (x, beta)) 在 float64 下通过")
    x, beta = draw(2, 3, seed=1, beta=-0.7)
    try:
        gradcheck(solution.swish, (x, beta))
    except GradcheckError as error:
        raise Fail("gradcheck raised GradcheckError: the Jacobian from your backward does not match the "
                   "finite differences", "gradcheck 抛出了 GradcheckError：用你的 backward 得到的雅可比矩阵和有限差分不一致",
                   expected=("gradcheck returns True", "gradcheck 返回 True"),
                   found=str(error).splitlines()[0].rstrip(","),
                   hint_en="multiply by grad_output element by element: gradcheck calls backward with one-hot "
                           "grad_outputs", hint_zh="要逐元素乘上 grad_output：gradcheck 调用 backward 时 grad_output "
                                                   "只有一个元素是 1") from None

    check("what backward needs is kept with ctx.save_for_backward, not as attributes of ctx",
          "backward 要用的东西用 ctx.save_for_backward 保存，而不是存成 ctx 的属性")
    x, beta = draw(5, seed=2)
    refuse_ctx_attributes(solution.swish(x, beta), "ctx.save_for_backward(x, beta)",
                          ("an attribute escapes the version check (an in-place edit of x before backward gives "
                           "a silently wrong gradient) and lives as long as the graph; save_for_backward "
                           "catches the edit and frees the tensors after backward",
                           "存成属性就躲过了版本检查（backward 之前原地改了 x，梯度会悄悄算错），而且和计算图活得一样久；"
                           "save_for_backward 能发现这种修改，反向传播后也会释放这些张量"))

    for skipped, kept, x_grad in (("beta", "x", True), ("x", "beta", False)):
        check(f"backward returns None for {skipped} when {skipped} does not require grad",
              f"{skipped} 不需要梯度时，backward 对 {skipped} 返回 None")
        x, beta = draw(5, seed=3, x_grad=x_grad, beta_grad=not x_grad)
        returned = raw_backward(solution, x, beta)
        index = 1 if skipped == "beta" else 0
        if len(returned) != 2 or returned[index] is not None or returned[1 - index] is None:
            found = [None if value is None else f"tensor{tuple(value.shape)}" if isinstance(value, torch.Tensor)
                     else type(value).__name__ for value in returned]
            raise Fail(f"returned a gradient for {skipped} although {skipped} does not require grad",
                       f"{skipped} 不需要梯度，backward 却还是为它算了一个梯度",
                       expected=(f"ctx.needs_input_grad = {(x_grad, not x_grad)}: a gradient for {kept}, None "
                                 f"for {skipped}", f"ctx.needs_input_grad = {(x_grad, not x_grad)}：{kept} 有梯度，"
                                 f"{skipped} 是 None"),
                       found=(f"backward returned {found}", f"backward 返回了 {found}"),
                       hint_en="test ctx.needs_input_grad[i] before computing a gradient, and return None for the "
                               "inputs nobody asked for: autograd would drop that gradient anyway, so its work "
                               "is wasted",
                       hint_zh="算每个梯度之前先看 ctx.needs_input_grad[i]，没人要的输入就返回 None：反正 autograd "
                               "会把那个梯度扔掉，算它纯属白费")
