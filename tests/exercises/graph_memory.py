"""Exercises of the chapter graph-memory."""

import gc
import numbers

import torch
from torch import nn

from judge import Fail, exercise


def model_and_input(rows, input_requires_grad=False):
    """Linear-ReLU layers: each ReLU's output is saved by the ReLU and again by the next Linear."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8))
    return model, torch.randn(rows, 16, requires_grad=input_requires_grad)


def accounts(model, x):
    """What one forward saves: bytes summed over the hook calls, and the distinct storages."""
    calls, storages = [], {}

    def pack(t):
        calls.append(t.numel() * t.element_size())
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    activations = sum(size for pointer, size in storages.items() if pointer not in parameters)
    return {"calls": len(calls), "call_bytes": sum(calls), "storages": len(storages),
            "bytes": sum(storages.values()), "activation_bytes": activations}


def as_bytes(value):
    """The reader's answer as an int, or a Fail that says what came back instead."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    found = (f"a tensor of shape {list(value.shape)}", f"形状为 {list(value.shape)} 的张量") \
        if isinstance(value, torch.Tensor) else (f"{value!r} ({type(value).__name__})"[:80],
                                                 f"{value!r}（{type(value).__name__}）"[:80])
    raise Fail("saved_bytes must return a whole number of bytes", "saved_bytes 应当返回一个整数字节数",
               expected=("an int", "一个 int"), found=found,
               hint_en="add up storage.nbytes(), plain Python ints, and return the sum",
               hint_zh="把 storage.nbytes()（普通的 Python int）加起来，返回这个和")


def live_tensors():
    gc.collect()
    return sum(1 for o in gc.get_objects() if issubclass(type(o), torch.Tensor))


@exercise("graph-memory/saved-bytes",
          en="the memory one forward saves for backward: count storages, not hook calls",
          zh="一次前向为反向保存了多少内存：数存储，不数钩子调用")
def saved_bytes(solution, check):
    for rows, input_grad in ((4, False), (64, False), (4, True)):
        model, x = model_and_input(rows, input_grad)
        truth = accounts(model, x)
        input_en, input_zh = ("an x that requires grad", "要梯度的 x") if input_grad else ("x", "x")
        check(f"saved_bytes(model, {input_en}) with batch {rows}: {truth['storages']} distinct storages",
              f"saved_bytes(model, {input_zh})，批大小 {rows}：{truth['storages']} 块不同的存储")
        found = as_bytes(solution.saved_bytes(model, x))
        if found == truth["bytes"]:
            continue
        if found == truth["call_bytes"]:
            found_text = (f"{found} bytes: numel() * element_size() summed over all {truth['calls']} hook calls",
                          f"{found} 字节：把全部 {truth['calls']} 次钩子调用的 numel() * element_size() 加起来")
            hint_en = (f"the hook ran {truth['calls']} times for {truth['storages']} storages: each ReLU saves its "
                       f"output, and the next Linear saves the same tensor again as its input. Count each storage "
                       f"once: key a dict by t.untyped_storage().data_ptr(), add untyped_storage().nbytes()")
            hint_zh = (f"钩子调用了 {truth['calls']} 次，存储却只有 {truth['storages']} 块：每个 ReLU 保存自己的输出，"
                       f"下一层 Linear 又把同一个张量当输入再保存一次。每块存储只算一次：用 "
                       f"t.untyped_storage().data_ptr() 作字典的键，加 untyped_storage().nbytes()")
        elif found == truth["activation_bytes"]:
            found_text = (f"{found} bytes: the activations only, without the weights",
                          f"{found} 字节：只有激活，没有权重")
            hint_en = ("the saved weights are references to the parameters' own storage, and leaving them out is "
                       "right when you ask what memory the graph adds; this exercise asks what is saved: count them")
            hint_zh = "保存的权重是对参数自身存储的引用；问图多占多少内存时扣掉它们是对的，这里问的是保存了什么：要算上"
        elif found == 0:
            found_text = ("0 bytes: nothing was counted", "0 字节：什么都没数到")
            hint_en = ("run model(x) inside `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):`, with "
                       "grad enabled (not under no_grad), and count in pack")
            hint_zh = ("在 `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):` 里运行 model(x)，"
                       "要在记录梯度的状态下（不要在 no_grad 里），在 pack 里计数")
        else:
            found_text = (f"{found} bytes", f"{found} 字节")
            hint_en = ("one forward, inside saved_tensors_hooks; in pack, key each tensor's storage by "
                       "untyped_storage().data_ptr() and add untyped_storage().nbytes() once per storage")
            hint_zh = ("只做一次前向，放在 saved_tensors_hooks 里；在 pack 里以 untyped_storage().data_ptr() "
                       "区分存储，每块存储只加一次 untyped_storage().nbytes()")
        raise Fail("the bytes differ from the distinct storages saved for backward",
                   "字节数和为反向保存的不同存储的总大小不一致",
                   expected=(f"{truth['bytes']} bytes in {truth['storages']} storages",
                             f"{truth['storages']} 块存储共 {truth['bytes']} 字节"),
                   found=found_text, hint_en=hint_en, hint_zh=hint_zh)

    model, x = model_and_input(4)
    check("three calls of saved_bytes leave no packed tensor alive", "调用三次 saved_bytes 之后，没有打包的张量还活着")
    before = live_tensors()
    for _ in range(3):
        solution.saved_bytes(model, x)
    leaked = live_tensors() - before
    if leaked > 0:
        raise Fail("tensors saved during the forwards are still alive after the calls returned",
                   "调用返回之后，前向时保存的张量仍然活着",
                   expected=("no more tensors than before", "张量数不比调用前多"),
                   found=(f"{leaked} more tensors alive after three calls", f"三次调用后多出 {leaked} 个活着的张量"),
                   hint_en="return t.detach() from pack, not t: ReLU saves its own output, and when pack hands back "
                           "that very tensor, its grad_fn and the graph hold each other, so without a backward no "
                           "garbage collection frees them. And keep no saved tensor in a list that outlives the call",
                   hint_zh="pack 要返回 t.detach()，不要返回 t：ReLU 保存的是自己的输出，pack 把这个张量原样交回时，"
                           "它的 grad_fn 和图互相引用，不做反向的话垃圾回收也释放不了。另外，不要把保存的张量放进"
                           "调用结束后还活着的列表里")
