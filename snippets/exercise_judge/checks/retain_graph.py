"""Exercises of the chapter retain-graph."""

import copy
import gc
import math
import weakref

import torch
from torch import nn

from exercise_judge.checking import Fail, described, exercise, shown
from exercise_judge.checks._shared import explained, graph_nodes

BATCHES, BATCH = 8, 16


def _loss_nodes(tensor):
    """How many batch losses hang below `tensor`: the loss nodes reachable from its grad_fn."""
    return sum(type(node).__name__.endswith("LossBackward0") for node in graph_nodes(tensor))


def _a_float(found, expected, tensor_text, tensor_hint, other_text, other_hint) -> float:
    """`found`, when it is a Python float; else the Fail of the exercise, with its own words (each an
    (English, Chinese) pair): tensor_text and tensor_hint for a tensor, other_text and other_hint
    for anything else."""
    if isinstance(found, float):
        return found
    if isinstance(found, torch.Tensor):
        text, hint, what = tensor_text, tensor_hint, shown(found)
    else:
        text, hint, what = other_text, other_hint, described(found)
    raise Fail(*text, expected=expected, found=what, hint_en=hint[0], hint_zh=hint[1])


# --- retain-graph/total-loss ---

def _training_run():
    """A small regression model, its optimizer and one epoch of batches: the same every call."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(BATCH, 4), torch.randn(BATCH, 1)) for _ in range(BATCHES)]
    return model, optimizer, batches


def _reference_epoch():
    """The epoch the starter's loop trains, with each loss summed as a float: (mean, losses, model)."""
    model, optimizer, batches = _training_run()
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses), losses, model


class _Sentinel:
    """Hooked on a node, it lives exactly as long as that node: a weak reference tells whether the graph is alive."""

    def __call__(self, *args):
        return None


def _watch_graphs(model):
    """(the sentinels of the batch graphs still alive, how many were alive as each forward began)."""
    alive, during = weakref.WeakSet(), []

    def before(module, args):
        gc.collect()
        during.append(len(alive))

    def after(module, args, output):
        if output.grad_fn is not None:
            sentinel = _Sentinel()
            output.grad_fn.register_hook(sentinel)
            alive.add(sentinel)

    model.register_forward_pre_hook(before)
    model.register_forward_hook(after)
    return alive, during


@exercise("retain-graph/total-loss",
          en="an epoch's mean loss as a float, with no graph kept alive",
          zh="一个 epoch 的平均损失：返回 float，不留下任何计算图")
def total_loss(solution, check):
    expected, losses, reference = _reference_epoch()
    model, optimizer, batches = _training_run()
    initial = [p.detach().clone() for p in model.parameters()]

    check("train_epoch(model, optimizer, batches) returns a Python float",
          "train_epoch(model, optimizer, batches) 返回一个 Python float")
    with explained("second time",
                   ("the backward pass ran through a graph that an earlier backward pass had already freed",
                    "反向传播走进了一张已经被之前的反向传播释放过的图"),
                   ("one loss.backward() per batch, on that batch's loss",
                    "每个批次一次 loss.backward()，只对这个批次的损失"),
                   ("the tensor you called backward() on holds earlier batches' graphs (a total summed as a tensor?): "
                    "call backward() only on each batch's own loss, and sum the losses with loss.item()",
                    "你调用 backward() 的那个张量挂着之前批次的图（用张量累加的总损失？）："
                    "只对每个批次自己的损失调用 backward()，累加损失用 loss.item()")):
        found = solution.train_epoch(model, optimizer, batches)
    if isinstance(found, torch.Tensor) and found.grad_fn is not None:
        held, divided = _loss_nodes(found), type(found.grad_fn).__name__ == "DivBackward0"
        raise Fail(
            f"train_epoch returned a tensor with grad_fn={type(found.grad_fn).__name__}: it holds every batch's "
            f"graph ({held} batch losses hang below it) for as long as anyone keeps the returned value",
            f"train_epoch 返回了带 grad_fn={type(found.grad_fn).__name__} 的张量：它挂着每个批次的计算图"
            f"（下面挂着 {held} 个批次的损失），返回值被留多久，这些图就活多久",
            expected=("a Python float", "一个 Python float"), found=shown(found),
            hint_en=("dividing is right, but the total was summed as a tensor, and the quotient still carries "
                     "its graph: " if divided else "`total_loss += loss` puts every batch's graph under total_loss: ")
            + "add loss.item() instead, a float that ends the graph with its batch, and divide by the number of batches",
            hint_zh=("除法没错，但总和是用张量累加的，商照样带着它的图：" if divided
                     else "`total_loss += loss` 把每个批次的图都挂到 total_loss 下面：")
            + "改为累加 loss.item()，它是个 float，图随这个批次一起结束；最后除以批次数")
    found = _a_float(found, ("a Python float", "一个 Python float"),
                     ("train_epoch returned a tensor; it has no graph, but the task asks for a Python float",
                      "train_epoch 返回了张量；它虽然不带计算图，但题目要的是 Python float"),
                     ("sum loss.item() of each batch: a float from the start, no tensor to convert at the end",
                      "累加每个批次的 loss.item()：从一开始就是 float，最后不用再转换"),
                     ("train_epoch must return the epoch's mean loss as a Python float",
                      "train_epoch 应当以 Python float 返回这个 epoch 的平均损失"),
                     ("end the function with `return total / len(batches)`, where total sums loss.item()",
                      "函数最后 `return total / len(batches)`，其中 total 累加的是 loss.item()"))

    check(f"the value is the mean of the {len(batches)} batch losses",
          f"返回值是 {len(batches)} 个批次损失的平均值")
    if not math.isclose(found, expected, rel_tol=1e-5, abs_tol=1e-7):
        if math.isclose(found, sum(losses), rel_tol=1e-5):
            hint_en, hint_zh = (f"that is the sum of the {len(losses)} losses: divide by len(batches)",
                                f"这是 {len(losses)} 个损失之和：再除以 len(batches)")
        elif all(torch.equal(p, q) for p, q in zip(model.parameters(), initial)):
            hint_en, hint_zh = ("the model did not train at all: keep zero_grad, loss.backward() and optimizer.step() "
                                "for every batch; the fix is only in how the loss is summed",
                                "模型根本没有训练：每个批次的 zero_grad、loss.backward()、optimizer.step() 都要保留；"
                                "要改的只是损失怎么累加")
        elif math.isclose(found, losses[-1], rel_tol=1e-5):
            hint_en, hint_zh = ("that is the last batch's loss alone: add every batch's loss.item(), then divide",
                                "这只是最后一个批次的损失：把每个批次的 loss.item() 都加起来，再求平均")
        else:
            hint_en = ("average the losses the loop computed, each taken before its optimizer.step(); "
                       "keep the starter's loss function and do not recompute anything after the epoch")
            hint_zh = ("对循环里算出的损失求平均（每个都在它的 optimizer.step() 之前取值）；"
                       "保留起始文件的损失函数，epoch 结束后不要重新计算")
        raise Fail("the returned value is not the epoch's mean loss",
                   "返回值不是这个 epoch 的平均损失",
                   expected=f"{expected:.6f}", found=f"{found:.6f}", hint_en=hint_en, hint_zh=hint_zh)

    check("the model's parameters are those of the starter's training loop after one epoch",
          "一个 epoch 之后，模型参数和起始文件的训练循环训练出来的一样")
    after = list(model.parameters())
    difference = max((p - q).abs().max().item() for p, q in zip(after, reference.parameters()))
    if difference > 1e-6:
        unchanged = all(torch.equal(p, q) for p, q in zip(after, initial))
        raise Fail("the parameters differ from those of the training loop in the starter",
                   "参数和起始文件里的训练循环训练出来的不一样",
                   expected=("the parameters after one epoch of zero_grad, forward, backward(), step per batch",
                             "每个批次 zero_grad、前向、backward()、step 走完一个 epoch 之后的参数"),
                   found=("the initial parameters: nothing was trained", "初始参数：根本没有训练")
                   if unchanged else (f"parameters off by up to {difference:.2g}", f"参数最多相差 {difference:.2g}"),
                   hint_en="the fix is only in how the loss is summed: keep zero_grad, loss.backward() and "
                           "optimizer.step() for every batch, and no retain_graph",
                   hint_zh="要改的只是损失怎么累加：每个批次的 zero_grad、loss.backward()、optimizer.step() 都保留，"
                           "也不要 retain_graph")

    # --- the method: count the batch graphs alive, through a sentinel hooked on each one ---
    check("once train_epoch has returned, no batch's graph is alive",
          "train_epoch 返回之后，没有任何批次的计算图还活着")
    model, optimizer, batches = _training_run()
    alive, during = _watch_graphs(model)
    solution.train_epoch(model, optimizer, batches)
    gc.collect()
    if len(alive):
        raise Fail(f"after train_epoch returned, {len(alive)} batch graphs are still alive (something outside the "
                   "function still holds the losses)",
                   f"train_epoch 返回之后，仍有 {len(alive)} 个批次的计算图活着（函数外面还有东西拿着这些损失）",
                   expected="0", found=str(len(alive)),
                   hint_en="keep only floats: loss.item()", hint_zh="只保留 float：loss.item()")

    check("during the epoch, no earlier batch's graph is kept alive (each loss is added as a float)",
          "epoch 进行中，不留住之前批次的计算图（每个损失都以 float 累加）")
    if max(during, default=0) > 1:  # the previous batch's graph lives until `loss` is rebound: that one is fine
        raise Fail(f"during the epoch up to {max(during)} earlier batches' graphs were alive at once: the total was "
                   "summed as a tensor",
                   f"epoch 进行中最多同时有 {max(during)} 个之前批次的计算图活着：总损失是用张量累加的",
                   expected=("at most 1, the previous batch's, until `loss` is rebound",
                             "至多 1 个：上一个批次的，直到 `loss` 被重新赋值"),
                   found=", ".join(map(str, during)),
                   hint_en="add loss.item() each batch; converting once at the end still keeps every graph until then",
                   hint_zh="每个批次加 loss.item()；最后才转换的话，在那之前每张图都还活着")


# --- retain-graph/eval-accuracy ---

CLASSES = 3


def _classifier():
    """A classifier with batch norm and dropout, so that eval mode changes its outputs."""
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, CLASSES))
    # Running statistics of a model that has trained for a while, so that eval mode matters.
    model[1].running_mean.uniform_(-0.5, 0.5)
    model[1].running_var.uniform_(0.5, 2.0)
    batches = []
    for _ in range(5):
        x = torch.randn(20, 6)
        batches.append((x, (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()))
    return model, batches


def _in_forwards(count: int, forwards: int, what_en: str, what_zh: str) -> tuple[str, str]:
    """'training mode in 3 of 5 forwards', in English and in Chinese."""
    return f"{what_en} in {count} of {forwards} forwards", f"{forwards} 次前向里有 {count} 次{what_zh}"


def _reference_accuracy(model, batches):
    model = copy.deepcopy(model).eval()
    with torch.no_grad():
        correct = sum((model(x).argmax(dim=1) == y).sum().item() for x, y in batches)
    return correct / sum(len(y) for _, y in batches)


@exercise("retain-graph/eval-accuracy",
          en="an evaluation loop that builds no graph",
          zh="不建计算图的评估循环")
def eval_accuracy(solution, check):
    model, batches = _classifier()
    model.train()  # a training loop calls evaluate between epochs
    expected = _reference_accuracy(model, batches)

    saved = []

    def pack(tensor):
        saved.append(tuple(tensor.shape))
        return tensor.detach()  # keep no reference cycle alive through the hook

    modes, graphs = [], []
    hooks = [module.register_forward_pre_hook(lambda module, args: modes.append(module.training))
             for module in (model[1], model[3])]
    hooks.append(model.register_forward_hook(lambda module, args, output: graphs.append(output.grad_fn is not None)))

    check("evaluate(model, batches) runs and returns a Python float",
          "evaluate(model, batches) 能运行完，并返回 Python float")
    try:
        with explained("does not require grad",
                       ("a backward() call raised: an accuracy has no gradient, and evaluation needs no backward pass",
                        "backward() 报错了：准确率没有梯度，评估也根本不需要反向传播"),
                       ("evaluate returns the accuracy, with no backward() anywhere",
                        "evaluate 返回准确率，全程没有 backward()"),
                       ("argmax and == are not differentiable, so the accuracy has no grad_fn and backward() "
                        "has nothing to go back through; and evaluation updates nothing: delete the backward() call "
                        "and run the loop under `with torch.no_grad():`",
                        "argmax 和 == 不可导，所以准确率没有 grad_fn，backward() 无路可走；评估也不更新任何参数："
                        "删掉 backward()，把循环放进 `with torch.no_grad():`")), \
                torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            found = solution.evaluate(model, batches)
    finally:
        for hook in hooks:
            hook.remove()
    found = _a_float(found, ("a Python float between 0 and 1", "0 到 1 之间的 Python float"),
                     ("evaluate returned a tensor, not a Python float", "evaluate 返回的是张量，不是 Python float"),
                     ("count the correct predictions with .sum().item() and divide by the number of samples",
                      "用 .sum().item() 数出预测对的个数，再除以样本数"),
                     ("evaluate must return the accuracy as a Python float", "evaluate 应当以 Python float 返回准确率"),
                     ("return correct / total, both counted over every batch", "返回 correct / total，两者都是对所有批次计数"))

    check("no tensor was saved for backward while evaluate ran",
          "evaluate 运行期间，没有任何张量被保存给反向传播")
    if saved:
        raise Fail(f"the forward passes recorded a graph: {len(saved)} tensors were saved for a backward pass "
                   f"that evaluation never needs",
                   f"前向记录了计算图：为评估根本用不到的反向传播保存了 {len(saved)} 个张量",
                   expected="0", found=str(len(saved)),
                   hint_en="wrap the loop in `with torch.no_grad():`: nothing is recorded and nothing is saved",
                   hint_zh="把循环放进 `with torch.no_grad():`：什么都不记录，也什么都不保存")

    check("no parameter has a .grad afterwards", "之后没有任何参数带 .grad")
    with_grad = [name for name, p in model.named_parameters() if p.grad is not None]
    if with_grad:
        raise Fail("a backward pass ran during evaluation and left gradients in the model",
                   "评估期间跑了反向传播，在模型里留下了梯度",
                   expected=("every .grad still None", "所有 .grad 仍是 None"),
                   found=(f".grad set on {', '.join(with_grad)}", f"{', '.join(with_grad)} 有了 .grad"),
                   hint_en="evaluation has no loss to call backward() on: remove every backward()",
                   hint_zh="评估不需要对任何损失调用 backward()：去掉所有 backward()")

    check("every forward ran in eval mode (dropout off, batch norm on its running statistics)",
          "每次前向都在 eval 模式下进行（dropout 关闭，batch norm 用累计的统计量）")
    if not modes:
        raise Fail("the model was never called", "模型一次也没有被调用",
                   expected=("one forward per batch", "每个批次一次前向"), found="0",
                   hint_en="call model(x) for each (x, y) in batches",
                   hint_zh="对 batches 里的每个 (x, y) 调用 model(x)")
    if any(modes):
        raise Fail("the model ran in training mode: dropout dropped units and batch norm used the batch's "
                   "statistics (and updated its running ones)",
                   "模型在训练模式下运行：dropout 随机丢弃了神经元，batch norm 用了批次自己的统计量（还改写了累计统计量）",
                   expected=("model.training False during every forward", "每次前向时 model.training 都是 False"),
                   found=_in_forwards(sum(modes) // 2, len(modes) // 2, "training mode", "是训练模式"),
                   hint_en="call model.eval() before the loop: no_grad stops the recording, but it does not "
                           "switch dropout and batch norm to evaluation",
                   hint_zh="在循环之前调用 model.eval()：no_grad 只停止记录，并不会把 dropout 和 batch norm 切到评估行为")

    check("the accuracy is the fraction of samples whose largest logit is their label",
          "准确率等于最大 logit 正好是标签的样本所占的比例")
    if not math.isclose(found, expected, abs_tol=1e-6):  # float32 batch means may round in the 8th digit
        total = sum(len(y) for _, y in batches)
        if found > 1:
            hint_en, hint_zh = (f"that looks like a count: divide by the number of samples, {total}",
                                f"这像是个计数：再除以样本数 {total}")
        else:
            hint_en = "predictions are model(x).argmax(dim=1); count those equal to y over every batch, then divide"
            hint_zh = "预测是 model(x).argmax(dim=1)；在所有批次上数出和 y 相等的个数，再除以样本总数"
        raise Fail("the returned accuracy is not the model's accuracy on these batches",
                   "返回的准确率不是模型在这些批次上的准确率",
                   expected=f"{expected:.4f}", found=f"{found:.4f}", hint_en=hint_en, hint_zh=hint_zh)

    check("the model is back in training mode when evaluate returns",
          "evaluate 返回时，模型回到了训练模式")
    if not all(module.training for module in model.modules()):
        raise Fail("evaluate left the model in eval mode; the next epoch would train without dropout",
                   "evaluate 把模型留在了 eval 模式；下一个 epoch 会在没有 dropout 的情况下训练",
                   expected=("model.training True, as it was when evaluate was called",
                             "model.training 为 True，和调用 evaluate 时一样"),
                   found="model.training False",
                   hint_en="end evaluate with model.train(), so training resumes in the right mode",
                   hint_zh="在 evaluate 的最后调用 model.train()，让训练以正确的模式继续")

    check("no forward returned logits with a grad_fn, whatever hooks were active",
          "没有任何一次前向返回带 grad_fn 的 logits，不论当时有什么钩子")
    if any(graphs):
        raise Fail(f"{sum(graphs)} of {len(graphs)} forwards returned logits with a grad_fn: a graph was recorded "
                   "(whatever hooks were active)",
                   f"{len(graphs)} 次前向里有 {sum(graphs)} 次返回的 logits 带 grad_fn：记录了计算图（不论当时有什么钩子）",
                   expected=("logits with grad_fn None", "logits 的 grad_fn 是 None"),
                   found=_in_forwards(sum(graphs), len(graphs), "grad_fn", "带 grad_fn"),
                   hint_en="saved_tensors_hooks of your own hide the saved tensors, not the graph: run the loop under "
                           "`with torch.no_grad():`",
                   hint_zh="自己套的 saved_tensors_hooks 只能藏起保存的张量，藏不住计算图：把循环放进 `with torch.no_grad():`")
