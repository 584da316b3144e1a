"""Exercises of the chapter torch-func."""

import copy

import torch
from torch import nn

from exercise_judge.checking import Fail, described, exercise, times
from exercise_judge.spies import autograd_passes, counted

MARK = 7.0  # what every .grad holds before the reader's function runs: it must still hold it after


def _model(widths, seed):
    torch.manual_seed(seed)
    layers = []
    for n_in, n_out in zip(widths, widths[1:]):
        layers += [nn.Linear(n_in, n_out), nn.Tanh()]
    return nn.Sequential(*layers[:-1])


def _reference(model, loss_fn, x, y):
    """Per-sample gradient norms by a plain loop over torch.autograd.grad, on a copy of the model."""
    copied = copy.deepcopy(model)
    params = list(copied.parameters())
    norms = []
    for xi, yi in zip(x, y):
        grads = torch.autograd.grad(loss_fn(copied(xi[None]), yi[None]), params)
        norms.append(torch.sqrt(sum(g.pow(2).sum() for g in grads)))
    return torch.stack(norms)


def _batch_norm(model, loss_fn, x, y):
    """The norm of the batch gradient: the one number a batch backward() gives."""
    copied = copy.deepcopy(model)
    grads = torch.autograd.grad(loss_fn(copied(x), y), list(copied.parameters()))
    return torch.sqrt(sum(g.pow(2).sum() for g in grads)).item()


def _show(t):
    values = [f"{value:.4g}" for value in t.flatten().tolist()[:4]]
    return "[" + ", ".join(values) + (", ...]" if t.numel() > 4 else "]")


@exercise("torch-func/per-sample-norms",
          en="every sample's gradient norm, with vmap, grad and functional_call",
          zh="用 vmap、grad 和 functional_call 算出每个样本的梯度范数")
def per_sample_norms(solution, check):
    torch.manual_seed(0)
    cases = [("mse_loss", nn.functional.mse_loss, _model([5, 8, 1], 0), torch.randn(16, 5), torch.randn(16, 1)),
             ("smooth_l1_loss", nn.functional.smooth_l1_loss, _model([3, 6, 6, 2], 1),
              torch.randn(8, 3), 2 * torch.randn(8, 2))]
    for loss_name, loss_fn, model, x, y in cases:
        expected = _reference(model, loss_fn, x, y)
        batch = len(x)
        check(f"per_sample_norms(model, {loss_name}, x, y) with a batch of {batch} returns {batch} norms, "
              "one per sample, equal to a loop of one backward pass per sample",
              f"per_sample_norms(model, {loss_name}, x, y) 对 {batch} 个样本的批次返回 {batch} 个范数，"
              "每个样本一个，和逐个样本做反向传播的循环结果相同")
        found = solution.per_sample_norms(model, loss_fn, x, y)
        if not isinstance(found, torch.Tensor):
            raise Fail("per_sample_norms must return a tensor", "per_sample_norms 应当返回一个张量",
                       expected=(f"a tensor of shape [{batch}]", f"形状为 [{batch}] 的张量"), found=described(found),
                       hint_en="stack the norms into one tensor, one entry per sample",
                       hint_zh="把范数拼成一个张量，每个样本一个分量")
        found = found.detach()
        if found.numel() == 1:
            whole = _batch_norm(model, loss_fn, x, y)
            same = abs(found.item() - whole) <= 1e-4 * max(1.0, whole)
            raise Fail("one norm for the whole batch" + (": the norm of the batch gradient" if same else ""),
                       "整个批次只得到一个范数" + ("：这是批次梯度的范数" if same else ""),
                       expected=(f"{batch} norms, one per sample: {_show(expected)}",
                                 f"{batch} 个范数，每个样本一个：{_show(expected)}"),
                       found=f"{found.item():.4g}",
                       hint_en="a loss over the whole batch gives one gradient, the batch's; write the loss of one "
                               "sample as a function of the parameters and map grad of it over the samples with vmap",
                       hint_zh="对整个批次求损失，只能得到一个梯度，即批次梯度；把单个样本的损失写成参数的函数，"
                               "再用 vmap 把它的 grad 映射到每个样本上")
        if found.shape != (batch,):
            raise Fail(f"per_sample_norms must return a tensor of shape [{batch}]",
                       f"per_sample_norms 应当返回形状为 [{batch}] 的张量",
                       expected=f"[{batch}]", found=str(list(found.shape)),
                       hint_en="one number per sample: each parameter's per-sample gradient has a leading batch "
                               "dimension; flatten the rest, add the squares over all parameters, then sqrt",
                       hint_zh="每个样本一个数：每个参数的逐样本梯度第一维是批次维；把其余维展平，"
                               "对所有参数的平方求和，再开方")
        if not torch.allclose(found, expected, rtol=1e-4, atol=1e-6):
            smaller = bool((found < expected * (1 - 1e-4)).all())
            raise Fail(f"the norms differ from those of a per-sample loop ({loss_name})",
                       f"范数和逐样本循环算出的不同（{loss_name}）",
                       expected=_show(expected), found=_show(found),
                       hint_en="every norm is too small: the norm must run over all parameters together, biases too"
                       if smaller else "the loss of sample i is loss_fn(model(x[i:i+1]), y[i:i+1]): call the "
                                       "loss_fn you are given on a batch of one",
                       hint_zh="每个范数都偏小：范数要把所有参数（包括 bias）合在一起算" if smaller else
                       "第 i 个样本的损失是 loss_fn(model(x[i:i+1]), y[i:i+1])：用传进来的 loss_fn，输入一个样本的批次")

    # --- nothing written into the model, no backward(), the model run once over the batch (vmap) ---
    loss_name, loss_fn, model, x, y = cases[0]
    for p in model.parameters():
        p.grad = torch.full_like(p, MARK)
    check(f"every parameter's .grad holds {MARK:g}s before the call: per_sample_norms leaves them as they were",
          f"调用前每个参数的 .grad 都是 {MARK:g}：per_sample_norms 调用之后它们不变")
    runs = []
    hook = model.register_forward_pre_hook(lambda module, args: runs.append(1))
    try:
        with autograd_passes() as passes:
            solution.per_sample_norms(model, loss_fn, x, y)
    finally:
        hook.remove()
    changed = [name for name, p in model.named_parameters()
               if p.grad is None or not torch.equal(p.grad, torch.full_like(p, MARK))]
    if changed:
        first = dict(model.named_parameters())[changed[0]].grad
        raise Fail(f"per_sample_norms changed the parameters' .grad ({', '.join(changed)})",
                   f"per_sample_norms 改动了参数的 .grad（{'、'.join(changed)}）",
                   expected=(f"every .grad still all {MARK:g}", f"每个 .grad 仍然全是 {MARK:g}"),
                   found=(f"model.{changed[0]}.grad = " + ("None" if first is None else _show(first)),
                          f"model.{changed[0]}.grad = " + ("None" if first is None else _show(first))),
                   hint_en="backward() and zero_grad() write into .grad; torch.func.grad returns the gradients "
                           "and writes nothing, when it differentiates detached copies of the parameters",
                   hint_zh="backward() 和 zero_grad() 都会写 .grad；torch.func.grad 对参数 detach 出来的张量求导时，"
                           "只返回梯度，什么也不写")
    check("per_sample_norms calls neither backward() nor torch.autograd.grad itself",
          "per_sample_norms 自己不调用 backward()，也不调用 torch.autograd.grad")
    own = [found for found in passes if found.by(solution.__file__)]
    if own:
        raise Fail(f"per_sample_norms ran {len(own)} backward passes itself",
                   f"per_sample_norms 自己做了 {len(own)} 次反向传播",
                   expected=("the gradients from torch.func.grad under vmap", "由 vmap 下的 torch.func.grad 求梯度"),
                   found=counted(own),
                   hint_en="write the loss of one sample as a function of a dict of parameters (functional_call) "
                           "and take vmap(grad(that function))",
                   hint_zh="把单个样本的损失写成参数字典的函数（functional_call），再用 vmap(grad(这个函数))")
    check(f"the model runs once, over all {len(x)} samples together (vmap), not once per sample",
          f"模型只运行一次，一次处理全部 {len(x)} 个样本（vmap），而不是每个样本运行一次")
    if len(runs) != 1:
        raise Fail(f"the model ran {times(len(runs))}: vmap runs it once over the whole batch",
                   f"模型运行了 {len(runs)} 次：vmap 一次就处理整个批次",
                   expected=("one run of the model", "模型运行一次"),
                   found=(f"{len(runs)} runs", f"{len(runs)} 次"),
                   hint_en="a Python loop over the samples runs the model once per sample; vmap(grad(loss_of_one), "
                           "in_dims=(None, 0, 0)) maps over the samples in one call",
                   hint_zh="对样本写 Python 循环，每个样本都要运行一次模型；vmap(grad(loss_of_one), "
                           "in_dims=(None, 0, 0)) 一次调用就映射到所有样本")
