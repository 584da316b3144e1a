import contextlib
import datetime
import os
import queue
import shutil
import tempfile

import torch
import torch._dynamo  # noqa: F401  DDP() imports it: once here, not once in every worker
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from measured import glue, roughly

WORLD, VOCAB, WIDTH = 2, 50, 16
TIMEOUT = 30  # seconds, for every wait: a worker that fails or hangs must not hang the other or this process
LENGTHS = [[30, 28], [12, 9], [25, 3], [7, 5]]  # real tokens of each sequence; rank r gets micro-batches 2r, 2r + 1


def make_model():
    torch.manual_seed(0)  # the same initial weights in every process
    return nn.Sequential(nn.Embedding(VOCAB, WIDTH), nn.Linear(WIDTH, VOCAB))


def make_micro_batches():
    generator = torch.Generator().manual_seed(1)
    micro_batches = []
    for pair in LENGTHS:
        tokens = torch.randint(0, VOCAB, (len(pair), max(pair)), generator=generator)
        mask = torch.arange(max(pair)) < torch.tensor(pair)[:, None]  # False on padding
        micro_batches.append((tokens, mask))
    return micro_batches


def token_losses(model, tokens, mask):
    """The next-token cross entropy of every real token (padding left out)."""
    logits = model(tokens[:, :-1])
    losses = nn.functional.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")
    return losses[mask[:, 1:]]


# Each worker's DDP model, never freed: freeing one right after its last all-reduce can deadlock
# against gloo's own thread, which may still be releasing that all-reduce. The process ends instead.
ALIVE = []


def worker(rank, store_path, normalise, results):
    torch.set_num_threads(1)  # two processes, and the machine's cores are shared
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # gloo's connections on loopback
    dist.init_process_group("gloo", store=dist.FileStore(store_path, WORLD), rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=TIMEOUT))
    try:
        model = DDP(make_model())  # the default: DDP averages the gradients over the processes
        ALIVE.append(model)
        mine = make_micro_batches()[2 * rank:2 * rank + 2]
        local = sum(mask[:, 1:].sum().item() for _, mask in mine)  # tokens predicted in this process
        tokens = torch.tensor(local)
        dist.all_reduce(tokens)  # every process's count, summed, before the first backward
        for i, (batch, mask) in enumerate(mine, start=1):
            with model.no_sync() if i < len(mine) else contextlib.nullcontext():
                losses = token_losses(model, batch, mask)
                if normalise == "own tokens":
                    loss = losses.sum() / local
                else:  # DDP divides by WORLD: multiply it back, divide by every token of every process
                    loss = losses.sum() * WORLD / tokens.item()
                loss.backward()
        gradient = torch.cat([p.grad.flatten() for p in model.parameters()])
        results.put((rank, local, tokens.item(), gradient.tolist()))
    finally:
        dist.destroy_process_group()


def run(normalise):
    context = mp.get_context("fork")  # a spawned worker cannot find a function defined in a notebook
    results = context.Queue()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), normalise, results))
               for rank in range(WORLD)]
    try:
        for process in workers:
            process.start()
        try:
            found = sorted(results.get(timeout=TIMEOUT) for _ in workers)
        except queue.Empty:
            raise RuntimeError(f"no result within {TIMEOUT} s; worker exit codes "
                               f"{[process.exitcode for process in workers]}") from None
        for process in workers:
            process.join(TIMEOUT)
        assert [process.exitcode for process in workers] == [0] * WORLD
        return found
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
                process.join(TIMEOUT)
            if process.is_alive():
                process.kill()
                process.join()
        shutil.rmtree(folder, ignore_errors=True)


# One process, every real token of every micro-batch in one mean: the gradient both ranks should end up with
reference = make_model()
torch.cat([token_losses(reference, *batch) for batch in make_micro_batches()]).mean().backward()
big = torch.cat([p.grad.flatten() for p in reference.parameters()])

for normalise in ("own tokens", "all tokens"):
    found = run(normalise)
    relative = max(((torch.tensor(gradient) - big).norm() / big.norm()).item() for *_, gradient in found)
    counts, total = [local for _, local, _, _ in found], found[0][2]
    if normalise == "own tokens":
        print(f"{WORLD} processes, 2 micro-batches each: tokens predicted per process {counts}, "
              f"{total} in all (all_reduce)")
        label = f"sum / own tokens ({' or '.join(map(str, counts))})"
    else:
        label = f"sum x {WORLD} / all tokens ({total})"
    noise = normalise == "all tokens"  # the same sum in another order: only rounding is left
    assert relative < 1e-5 or not noise, relative  # the page calls it rounding: anything larger fails the run
    print(f"{label:28} relative difference from one batch {roughly(relative) if noise else f'{relative:.1e}'}")
    glue(f"scale_ddp_tokens_relative_{normalise.split()[0]}", relative if noise else float(f"{relative:.1e}"),
         varies=noise)
glue("scale_ddp_tokens_per_rank_0", counts[0])
glue("scale_ddp_tokens_per_rank_1", counts[1])
glue("scale_ddp_tokens_all", total)
glue("scale_ddp_tokens_world", WORLD)
