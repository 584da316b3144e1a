"""Exercises of the chapter hooks."""

import torch
from torch import nn

from exercise_judge.checking import Fail, described, exercise
from exercise_judge.spies import autograd_passes, counted


def _left_hooks(model) -> list[str]:
    """The hooks still registered on the model's parameters and modules, by where they sit. Read from
    the dicts that register_hook, register_post_accumulate_grad_hook and the module hooks fill (private
    attributes, the same on every supported torch): no public API lists them."""
    found = []
    for name, p in model.named_parameters():
        for kind, hooks in (("register_hook", p._backward_hooks),
                            ("register_post_accumulate_grad_hook", p._post_accumulate_grad_hooks)):
            found += [f"{name}: {kind}"] * len(hooks or {})
    for name, module in model.named_modules():
        for kind in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks"):
            found += [f"{name or 'model'}: {kind.lstrip('_')}"] * len(getattr(module, kind))
    return found


def _setting(seed):
    """A model whose .grad already holds one micro-batch's gradient, and the next micro-batch's loss."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    x, y = torch.randn(16, 6), torch.randn(16, 1)
    nn.functional.mse_loss(model(x[:8]), y[:8]).backward()  # an earlier micro-batch
    old = {name: p.grad.clone() for name, p in model.named_parameters()}
    loss = nn.functional.mse_loss(model(x[8:]), y[8:])
    params = dict(model.named_parameters())
    new = dict(zip(params, torch.autograd.grad(loss, list(params.values()), retain_graph=True)))
    return model, loss, old, new


@exercise("hooks/grad-norms",
          en="per-parameter gradient norms from hooks, handles removed",
          zh="用钩子得到每个参数的梯度范数，用完移除句柄")
def grad_norms(solution, check):
    model, loss, old, new = _setting(0)
    names = list(old)

    check("grad_norms(model, loss) returns a dict with one float per parameter name",
          "grad_norms(model, loss) 返回一个字典，每个参数名对应一个 float")
    with autograd_passes() as passes:
        norms = solution.grad_norms(model, loss)
    if not isinstance(norms, dict) or sorted(norms) != sorted(names):
        raise Fail("grad_norms did not return a dict keyed by every parameter name",
                   "grad_norms 返回的不是以全部参数名为键的字典",
                   expected=(f"a dict with keys {names}", f"键为 {names} 的字典"), found=described(norms),
                   hint_en="key by the names of model.named_parameters()",
                   hint_zh="用 model.named_parameters() 给出的参数名做键")

    check("each value is the norm of the gradient this backward delivered, not of the accumulated .grad",
          "每个值都是这次反向传播送来的梯度的范数，而不是累加后的 .grad 的范数")
    for name in names:
        value = float(norms[name])
        expected, accumulated = new[name].norm().item(), (old[name] + new[name]).norm().item()
        if abs(value - expected) <= 1e-5 * max(1.0, expected):
            continue
        if abs(value - accumulated) <= 1e-5 * max(1.0, accumulated):
            raise Fail(f"{name}: the norm of the accumulated .grad (an earlier micro-batch's gradient plus this "
                       f"one), not of this backward's gradient",
                       f"{name}：这是累加后的 .grad 的范数（前一个微批次的梯度加上这一次的），不是这次反向传播的梯度的范数",
                       expected=f"{expected:.6g}", found=f"{value:.6g}",
                       hint_en=".grad, and what a post-accumulate hook reads from it, already holds the earlier "
                               "gradient: register_hook sees the gradient as it arrives, before it is added",
                       hint_zh=".grad（以及 post-accumulate 钩子从中读到的）已经加上了之前的梯度："
                               "register_hook 看到的是刚到达、还没加进去的梯度")
        raise Fail(f"{name}: the norm differs from that of this backward's gradient",
                   f"{name}：范数和这次反向传播的梯度的范数不同",
                   expected=f"{expected:.6g}", found=f"{value:.6g}",
                   hint_en="the hook's argument is the gradient: return grad.norm().item() of it",
                   hint_zh="钩子收到的参数就是梯度：取它的 grad.norm().item()")

    check("one backward pass, and .grad accumulates as usual (earlier gradient plus this one)",
          "只做一次反向传播，.grad 照常累加（之前的梯度加上这一次的）")
    ours = list(passes)  # the judge's own passes ran before the recording
    if len(ours) != 1:
        found_en, found_zh = counted(ours) if ours else ("none", "没有")
        raise Fail(f"grad_norms ran {len(ours)} backward passes: expected exactly one, loss.backward()",
                   f"grad_norms 做了 {len(ours)} 次反向传播：应当正好一次，即 loss.backward()",
                   expected=("1 × backward()", "1 次 backward()"), found=(found_en, found_zh),
                   hint_en="the hooks see the gradients during the one backward the training step runs anyway",
                   hint_zh="钩子在训练步本来就要做的那次反向传播里看到梯度，不需要再多算一遍")
    for name, p in model.named_parameters():
        if p.grad is None or (p.grad - (old[name] + new[name])).abs().max() > 1e-6:
            raise Fail(f"{name}.grad is not the earlier gradient plus this backward's: the monitor changed training",
                       f"{name}.grad 不等于之前的梯度加上这一次的：监控改变了训练",
                       expected=("the accumulated gradient", "累加后的梯度"),
                       found="None" if p.grad is None else ("another tensor", "另一个张量"),
                       hint_en="a hook that only watches returns None and leaves .grad alone",
                       hint_zh="只看不改的钩子返回 None，也不去动 .grad")

    check("no hook is left on the model after grad_norms returns", "grad_norms 返回之后，模型上不留任何钩子")
    left = _left_hooks(model)
    if left:
        raise Fail(f"{len(left)} hook{'s are' if len(left) != 1 else ' is'} still registered after grad_norms "
                   f"returned: each later backward calls {'them' if len(left) != 1 else 'it'} again",
                   f"grad_norms 返回后还有 {len(left)} 个钩子挂着：以后每次反向传播都还会调用它们",
                   expected=("no hooks", "没有钩子"), found=", ".join(left[:4]) + (" …" if len(left) > 4 else ""),
                   hint_en="keep the handle that each register_... call returns and call handle.remove() before "
                           "returning (in a finally: block, so that an error in backward removes them too)",
                   hint_zh="留下每次 register_... 返回的句柄，返回之前调用 handle.remove()"
                           "（放在 finally: 里，反向传播出错时也能移除）")

    check("a second call, on another model, gives that model's norms", "换一个模型再调用一次，得到的是那个模型的范数")
    model, loss, old, new = _setting(1)
    norms = solution.grad_norms(model, loss)
    for name in names:
        if not isinstance(norms, dict) or name not in norms or \
                abs(float(norms[name]) - new[name].norm().item()) > 1e-5 * max(1.0, new[name].norm().item()):
            raise Fail("the second call's norms are not those of its own backward: state kept from the first call?",
                       "第二次调用得到的范数不是它自己那次反向传播的：是不是留着第一次调用的状态？",
                       expected=f"{name}: {new[name].norm().item():.6g}",
                       found=f"{name}: {norms.get(name) if isinstance(norms, dict) else norms}",
                       hint_en="collect the norms in a dict made inside grad_norms, not at module level",
                       hint_zh="在 grad_norms 内部新建字典来收集范数，不要用模块级的变量")
