import contextlib
import datetime
import os
import queue
import shutil
import socket
import tempfile

import torch
import torch._dynamo  # noqa: F401  DDP() imports it: once here, not once in every worker
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from measured import glue, roughly

WORLD, MICRO_BATCHES, MICRO_SIZE = 2, 4, 8
TIMEOUT = 30  # seconds, for every wait: a worker that fails or hangs must not hang the other or this process


def make_model():
    torch.manual_seed(0)  # the same initial weights in every process
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))


def make_data():
    """The big batch: WORLD ranks x MICRO_BATCHES micro-batches x MICRO_SIZE rows."""
    generator = torch.Generator().manual_seed(1)
    rows = WORLD * MICRO_BATCHES * MICRO_SIZE
    return torch.randn(rows, 16, generator=generator), torch.randn(rows, 1, generator=generator)


def listening_addresses(pids):
    """Local addresses of the listening TCP sockets held by the processes `pids`."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    inodes.add(os.readlink(f"/proc/{pid}/fd/{fd}").removeprefix("socket:["))
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                if fields[3] == "0A" and fields[9] + "]" in inodes:  # 0A: LISTEN
                    raw = bytes.fromhex(fields[1].split(":")[0])
                    # /proc writes each 32-bit word of the address in host (little-endian) order
                    packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                    family = socket.AF_INET if len(raw) == 4 else socket.AF_INET6
                    found.append(socket.inet_ntop(family, packed))
    return found


# Each worker's DDP model, never freed: freeing one right after its last all-reduce can deadlock
# against gloo's own thread, which may still be releasing that all-reduce. The process ends instead.
ALIVE = []


def worker(rank, store_path, use_no_sync, results, inspected):
    torch.set_num_threads(1)  # two processes, and the machine's cores are shared
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # gloo's connections on loopback
    # A FileStore to meet: tcp://127.0.0.1 would make rank 0 listen on every interface
    store = dist.FileStore(store_path, WORLD)
    # the timeout bounds the meeting and every all-reduce (the default is 30 minutes)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=TIMEOUT))
    try:
        model = DDP(make_model())
        ALIVE.append(model)
        buckets = []  # the index of each bucket all-reduced, one entry per all-reduce

        def counting_allreduce(state, bucket):  # what DDP does by default: average over ranks
            buckets.append(bucket.index())
            averaged = bucket.buffer().div_(WORLD)
            return dist.all_reduce(averaged, async_op=True).get_future().then(
                lambda fut: fut.value()[0])

        model.register_comm_hook(None, counting_allreduce)
        x, y = make_data()
        mine = slice(rank * MICRO_BATCHES * MICRO_SIZE, (rank + 1) * MICRO_BATCHES * MICRO_SIZE)
        parts = list(zip(x[mine].chunk(MICRO_BATCHES), y[mine].chunk(MICRO_BATCHES)))
        for i, (xb, yb) in enumerate(parts, start=1):
            if i == MICRO_BATCHES:  # the norm a clip before the last backward would measure
                norm_before_last = torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item()
            # DDP decides in forward(): a forward inside no_sync makes its backward only add into .grad;
            # the last micro-batch's forward, outside it, makes its backward all-reduce the sum
            skip = use_no_sync and i < MICRO_BATCHES
            with model.no_sync() if skip else contextlib.nullcontext():
                loss = nn.functional.mse_loss(model(xb), yb)
                (loss / MICRO_BATCHES).backward()
        gradient = torch.cat([p.grad.flatten() for p in model.parameters()])
        results.put((rank, len(buckets), len(set(buckets)), gradient.tolist(), norm_before_last))
        inspected.wait(TIMEOUT)  # keep the sockets open until the parent has looked
    finally:
        dist.destroy_process_group()


def run(use_no_sync):
    context = mp.get_context("fork")  # a spawned worker cannot find a function defined in a notebook
    results, inspected = context.Queue(), context.Event()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), use_no_sync, results, inspected))
               for rank in range(WORLD)]
    try:
        for process in workers:
            process.start()
        try:
            found = sorted(results.get(timeout=TIMEOUT) for _ in workers)
        except queue.Empty:
            raise RuntimeError(f"no result within {TIMEOUT} s; worker exit codes "
                               f"{[process.exitcode for process in workers]}") from None
        addresses = listening_addresses([process.pid for process in workers])
        inspected.set()
        for process in workers:
            process.join(TIMEOUT)
        assert [process.exitcode for process in workers] == [0] * WORLD
        return found, addresses
    finally:
        inspected.set()
        for process in workers:
            if process.is_alive():
                process.terminate()
                process.join(TIMEOUT)
            if process.is_alive():
                process.kill()
                process.join()
        shutil.rmtree(folder, ignore_errors=True)


# One process, the whole batch at once: the gradient both ranks should end up with.
reference = make_model()
x, y = make_data()
nn.functional.mse_loss(reference(x), y).backward()
big = torch.cat([p.grad.flatten() for p in reference.parameters()])

print(f"{WORLD} processes x {MICRO_BATCHES} micro-batches of {MICRO_SIZE} rows, "
      f"against one batch of {len(x)} in one process")
for use_no_sync in (False, True):
    found, addresses = run(use_no_sync)
    calls = [count for _, count, _, _, _ in found]
    (buckets,) = {count for _, _, count, _, _ in found}  # one value: the same on both ranks
    difference = max((torch.tensor(gradient) - big).abs().max().item() for *_, gradient, _ in found)
    # the page calls this difference float32 rounding: anything larger (a hook that stops averaging) fails the run
    assert difference < 1e-5 * big.abs().max().item(), difference
    norm_ratio = round(found[0][-1] / found[1][-1], 2)  # rank 0's .grad norm over rank 1's
    label = "no_sync() on micro-batches 1-3" if use_no_sync else "without no_sync()"
    print(f"{label}: all-reduce calls per rank {calls}, gradient buckets {buckets}, "
          f"max |grad - one batch| {roughly(difference)}, workers listen on {sorted(set(addresses))}")
    print(f"  .grad norm just before the last micro-batch, rank 0 / rank 1: {norm_ratio:.2f}")
    key = "no_sync" if use_no_sync else "sync"
    glue(f"scale_ddp_calls_{key}", calls[0])
    glue(f"scale_ddp_diff_{key}", difference, varies=True)
    glue(f"scale_ddp_buckets_{key}", buckets)
    glue(f"scale_ddp_norm_ratio_{key}", norm_ratio)
glue("scale_ddp_world", WORLD)
glue("scale_ddp_micro", MICRO_BATCHES)
glue("scale_ddp_micro_size", MICRO_SIZE)
glue("scale_ddp_rows", len(x))
