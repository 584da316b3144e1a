"""Exercises of the chapter gradient-accumulation."""

import torch
from torch import nn

from judge import Fail, exercise


@exercise("gradient-accumulation/micro-batches",
          en="four micro-batches leave the gradient of one big batch",
          zh="四个微批次留下的梯度，和一个大批次的一样")
def micro_batches(solution, check):
    torch.manual_seed(0)
    x, y = torch.randn(64, 5), torch.randn(64, 1)
    for steps in (4, 2):
        model = nn.Linear(5, 1)
        reference = nn.Linear(5, 1)
        reference.load_state_dict(model.state_dict())
        nn.functional.mse_loss(reference(x), y).backward()
        expected = reference.weight.grad

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
