"""Exercises of the chapter gradient-accumulation."""

import torch
from torch import nn

from exercise_judge.checking import Fail, exercise, times


@exercise("gradient-accumulation/micro-batches",
          en="four micro-batches leave the gradient of one big batch",
          zh="四个微批次留下的梯度，和一个大批次的一样")
def micro_batches(solution, check):
    torch.manual_seed(0)
    x, y = torch.randn(64, 5), torch.randn(64, 1)
    runs = []
    for steps in (4, 2):
        model = nn.Linear(5, 1)
        reference = nn.Linear(5, 1)
        reference.load_state_dict(model.state_dict())
        nn.functional.mse_loss(reference(x), y).backward()
        expected = reference.weight.grad
        runs.append((model, reference))

        check(f"accumulate(model, loss_fn, x, y, steps={steps}) fills .grad like one batch of {len(x)}",
              f"accumulate(model, loss_fn, x, y, steps={steps}) 留下的 .grad 和一个 {len(x)} 的批次相同")
        solution.accumulate(model, nn.functional.mse_loss, x, y, steps)
        found = model.weight.grad
        if found is None:
            raise Fail("model.weight.grad is None: nothing was backwarded into the model",
                       "model.weight.grad 是 None：没有对模型做任何反向传播",
                       expected=("the gradient of the whole batch", "整个批次的梯度"), found="None")
        ratio = (found.norm() / expected.norm()).item()
        difference = (found - expected).abs().max().item()
        if difference > 1e-5:
            raise Fail(
                "the accumulated gradient differs from the one-batch gradient",
                "累加出来的梯度和一个批次的梯度不一样",
                expected=(f"the one-batch gradient (largest entry {expected.abs().max().item():.4g})",
                          f"一个批次的梯度（最大分量 {expected.abs().max().item():.4g}）"),
                found=(f"{ratio:.2f}× the one-batch gradient (largest difference {difference:.2g})",
                       f"一个批次梯度的 {ratio:.2f} 倍（最大相差 {difference:.2g}）"),
                hint_en=(f"each micro-batch loss is a mean over {len(x) // steps} samples; adding {steps} of them "
                         f"counts the batch {steps} times: divide each loss by {steps}")
                if abs(ratio - steps) < 0.01 else "backward every micro-batch, step nothing, zero nothing in between",
                hint_zh=(f"每个微批次的损失是 {len(x) // steps} 个样本的平均，{steps} 个加起来等于把整批算了 "
                         f"{steps} 遍：每个损失要除以 {steps}")
                if abs(ratio - steps) < 0.01 else "每个微批次都要反向，中间不要 step，也不要清零")

    check("every parameter's .grad, the bias's too, is the one-batch gradient",
          "每个参数的 .grad（bias 的也一样）都等于一个批次的梯度")
    for model, reference in runs:
        for (name, found), expected in zip(model.named_parameters(), reference.parameters()):
            if found.grad is None or (found.grad - expected.grad).abs().max() > 1e-5:
                ratio = "None" if found.grad is None else f"{(found.grad.norm() / expected.grad.norm()).item():.2f}×"
                raise Fail(f"model.{name}.grad differs from the one-batch gradient (the weight's is right)",
                           f"model.{name}.grad 和一个批次的梯度不同（weight 的是对的）",
                           expected=("the one-batch gradient for every parameter", "每个参数都是一个批次的梯度"),
                           found=(f"model.{name}.grad: {ratio} the one-batch gradient",
                                  f"model.{name}.grad：一个批次梯度的 {ratio}"),
                           hint_en="divide the loss, not one parameter's .grad: then every parameter gets its share",
                           hint_zh="要除的是损失，而不是某个参数的 .grad：这样每个参数都按同样的比例缩小")

    # --- the method, with another loss function than the one above: split, loss_fn, one backward per part ---
    steps, part = 4, len(x) // 4
    torch.manual_seed(1)
    model = nn.Linear(5, 1)
    rows, losses, backwards = [], [], {name: 0 for name, _ in model.named_parameters()}
    model.register_forward_pre_hook(lambda module, args: rows.append(len(args[0]) if args else 0))
    for name, parameter in model.named_parameters():
        parameter.register_post_accumulate_grad_hook(
            lambda parameter, name=name: backwards.__setitem__(name, backwards[name] + 1))

    def loss_fn(output, target):
        losses.append(len(output))
        return nn.functional.smooth_l1_loss(output, target)

    check(f"with loss_fn = smooth_l1_loss, accumulate(model, loss_fn, x, y, steps={steps}) runs the model on "
          f"{steps} micro-batches of {part} samples",
          f"loss_fn 换成 smooth_l1_loss 时，accumulate(model, loss_fn, x, y, steps={steps}) 在 {steps} 个"
          f"各含 {part} 个样本的微批次上运行模型")
    solution.accumulate(model, loss_fn, x, y, steps)
    if rows != [part] * steps:
        shown = ", ".join(map(str, rows)) or "0"
        raise Fail(f"the model ran on batches of {shown} samples: expected {steps} micro-batches of {part}",
                   f"模型运行时的批大小是 {shown}：应当是 {steps} 个各含 {part} 个样本的微批次",
                   expected=(f"{steps} forwards of {part} samples", f"{steps} 次前向，每次 {part} 个样本"),
                   found=(f"{'one forward' if len(rows) == 1 else f'{len(rows)} forwards'}, on {shown} samples",
                          f"{len(rows)} 次前向，样本数 {shown}"),
                   hint_en="split x and y with x.chunk(steps) and y.chunk(steps), and run the model on each part",
                   hint_zh="用 x.chunk(steps)、y.chunk(steps) 切开，逐个交给模型")

    check("it calls the loss_fn it is given, once per micro-batch", "它调用传进来的 loss_fn，每个微批次一次")
    if losses != [part] * steps:
        raise Fail(f"loss_fn was called {times(len(losses))}: use the loss function you are given, once per "
                   f"micro-batch",
                   f"loss_fn 被调用了 {len(losses)} 次：要用传进来的损失函数，每个微批次一次",
                   expected=(f"calls of loss_fn: {steps}", f"调用 loss_fn {steps} 次"),
                   found=(f"calls of loss_fn: {len(losses)}", f"调用 loss_fn {len(losses)} 次"),
                   hint_en="the judge passes other loss functions too: loss_fn(model(x_part), y_part), not mse_loss "
                           "written out", hint_zh="评测也会传别的损失函数进来：写 loss_fn(model(x_part), y_part)，"
                                                 "不要自己写死 mse_loss")

    check(f"one backward per micro-batch: each parameter's .grad is added to {steps} times",
          f"每个微批次调用一次 backward()：每个参数的 .grad 被累加 {steps} 次")
    if any(count != steps for count in backwards.values()):
        counts = (", ".join(f"{name}: {count}" for name, count in backwards.items()),
                  "，".join(f"{name} {count} 次" for name, count in backwards.items()))
        raise Fail(f"the gradient was accumulated into the parameters {times(max(backwards.values()))}: expected one "
                   f"backward per micro-batch ({steps})",
                   f"梯度累加到参数上 {max(backwards.values())} 次：应当每个微批次调用一次 backward()（共 {steps} 次）",
                   expected=(f"{steps} per parameter", f"每个参数 {steps} 次"),
                   found=counts,
                   hint_en="call backward() on each micro-batch's loss as soon as you have it: summing the losses and "
                           "calling backward once keeps every micro-batch's graph alive until the end, the memory "
                           "that accumulation is meant to save",
                   hint_zh="每个微批次的损失一算出来就调用 backward()：把损失加起来最后只调用一次 backward()，"
                           "会让每个微批次的计算图都活到最后，而省下这份内存正是梯度累加的目的")
