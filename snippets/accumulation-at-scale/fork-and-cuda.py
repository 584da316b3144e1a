import subprocess
import sys

import torch

# Run with `python -c`: its __main__ has no file, as a notebook cell's code has none
START_A_WORKER = """
import multiprocessing as mp, sys, time
def work():
    pass
target, args = (work, ()) if sys.argv[2] == "cell" else (time.sleep, (0,))
process = mp.get_context(sys.argv[1]).Process(target=target, args=args)
process.start()
process.join(30)
print(process.exitcode)
"""
print("a worker started with each method: a function defined without a file, then time.sleep from its module")
for method in ("fork", "spawn", "forkserver"):
    found = []
    for where in ("cell", "module"):
        run = subprocess.run([sys.executable, "-c", START_A_WORKER, method, where], capture_output=True, text=True,
                             timeout=60)
        errors = [line for line in run.stderr.splitlines() if line.startswith("AttributeError")]
        found.append("ran" if run.stdout.strip() == "0" else (errors or ["failed"])[-1])
    print(f"{method:11} without a file: {found[0]}\n{'':11} time.sleep: {found[1]}")

# A parent forks a child that tries to use CUDA, before and after the parent asks about CUDA. All of it in
# a process of its own, so that this one never touches CUDA.
CUDA_AFTER_FORK = """
import multiprocessing as mp, torch
def child(results):
    try:
        torch.cuda.init()
        results.put("CUDA initialised")
    except Exception as error:
        results.put(f"{type(error).__name__}: {error}")
def fork_one():
    results = mp.get_context("fork").Queue()
    process = mp.get_context("fork").Process(target=child, args=(results,))
    process.start()
    found = results.get(timeout=30)
    process.join(30)
    return found
before = fork_one()
torch.cuda.is_available()
after = fork_one()
refused = "in forked subprocess"
print(refused in before)
print(f"refused: {after}" if refused in after else f"not refused ({after})")
"""
run = subprocess.run([sys.executable, "-c", CUDA_AFTER_FORK], capture_output=True, text=True, timeout=60)
before, after = run.stdout.splitlines()
print(f"this torch is a CUDA build: {torch.backends.cuda.is_built()}")
print(f"  a child forked before its parent asked about CUDA refused CUDA for the fork: {before}")
print(f"  a child forked after its parent called torch.cuda.is_available(): {after}")
