"""Normalisation equates what differs between installs and runs, and nothing a reader would read."""

from measured import TIMING
from snippet_runs import normalise


def test_object_addresses_are_equated():
    assert normalise("<MulBackward0 object at 0x7f1c06d2be50>") == normalise("<MulBackward0 object at 0x7fa0c1d2be80>")


def test_line_numbers_inside_torch_sources_are_equated():
    # The same warning under torch 2.13.0 and 2.14.1 names different lines of the same header.
    assert normalise("(Triggered internally at /pytorch/build/aten/src/ATen/core/TensorBody.h:493.)") == \
        normalise("(Triggered internally at /pytorch/build/aten/src/ATen/core/TensorBody.h:488.)")
    assert normalise('File "/x/venv/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward') == \
        normalise('File "/y/lib/python3.12/site-packages/torch/_tensor.py", line 630, in backward')


def test_results_are_not_equated():
    assert normalise("saved: 15 tensors, 44.0 MiB") != normalise("saved: 15 tensors, 44.1 MiB")
    assert normalise("x.grad = 6.0 at line 3") != normalise("x.grad = 6.0 at line 4")
    assert normalise("snippets/x.py:5") != normalise("snippets/x.py:6")


def test_only_stopwatch_lines_lose_their_numbers():
    assert normalise(f"{TIMING} no_grad forward: 1.23 ms") == normalise(f"{TIMING} no_grad forward: 1.31 ms")
    assert normalise(f"{TIMING} no_grad forward: 1.23 ms") != normalise(f"{TIMING} grad forward: 1.23 ms")
    assert normalise("[glue] t_ms ~ 1.23") == normalise("[glue] t_ms ~ 1.31")
    assert normalise("[glue] t_ms = 1.23") != normalise("[glue] t_ms = 1.31")
