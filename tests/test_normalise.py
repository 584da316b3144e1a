"""Normalisation equates what differs between installs and runs, and nothing a reader would read."""

import pytest

from book_extensions import snapshots
from measured import TIMING, roughly
from snippet_runs import normalise

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers


def test_object_addresses_are_equated():
    assert normalise("<MulBackward0 object at 0x7f1c06d2be50>") == normalise("<MulBackward0 object at 0x7fa0c1d2be80>")


def test_line_numbers_inside_torch_sources_are_equated():
    # The same warning under torch 2.13.0 and 2.14.1 names different lines of the same header.
    assert normalise("(Triggered internally at /pytorch/build/aten/src/ATen/core/TensorBody.h:493.)") == normalise(
        "(Triggered internally at /pytorch/build/aten/src/ATen/core/TensorBody.h:488.)"
    )
    assert normalise(
        'File "/x/venv/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward'
    ) == normalise('File "/y/lib/python3.12/site-packages/torch/_tensor.py", line 630, in backward')


def test_results_are_not_equated():
    assert normalise("saved: 15 tensors, 44.0 MiB") != normalise("saved: 15 tensors, 44.1 MiB")
    assert normalise("x.grad = 6.0 at line 3") != normalise("x.grad = 6.0 at line 4")
    assert normalise("snippets/x.py:5") != normalise("snippets/x.py:6")


def test_only_stopwatch_lines_lose_their_numbers():
    assert normalise(f"{TIMING} no_grad forward: 1.23 ms") == normalise(f"{TIMING} no_grad forward: 1.31 ms")
    assert normalise(f"{TIMING} no_grad forward: 1.23 ms") != normalise(f"{TIMING} grad forward: 1.23 ms")
    assert normalise("[glue] t_ms ~ 1.23") == normalise("[glue] t_ms ~ 1.31")
    assert normalise("[glue] t_ms = 1.23") != normalise("[glue] t_ms = 1.31")


def test_only_marked_rounding_noise_loses_its_digits():
    assert normalise(f"max |difference| {roughly(3.7e-08)}") == normalise(f"max |difference| {roughly(2.2e-08)}")
    assert normalise(f"max |difference| {roughly(3.7e-08)}") != normalise(f"max |difference| {roughly(3.7e-08)} x")
    assert normalise("max |difference| 3.7e-08") != normalise("max |difference| 2.2e-08")


def test_a_glued_float_is_recorded_to_the_digits_the_prose_shows(monkeypatch):
    monkeypatch.setattr(snapshots, "glue_formats", lambda: {"loss": (".1f", ".3g"), "ratio": (".2%",), "raw": ("",)})
    # The last bits of float rounding, which differ from CPU to CPU, are not recorded ...
    assert (
        normalise("[glue] loss = 5.079914897680283")
        == normalise("[glue] loss = 5.079920619726181")
        == "[glue] loss = 5.08\n"
    )
    assert normalise("[glue] ratio = 0.123449") == "[glue] ratio = 0.1234\n"
    # ... what a reader reads is.
    assert normalise("[glue] loss = 5.079914897680283") != normalise("[glue] loss = 5.089914897680283")
    assert normalise("[glue] raw = 5.079914897680283") == "[glue] raw = 5.079914897680283\n"
    assert normalise("[glue] other = 5.079914897680283") == "[glue] other = 5.079914897680283\n"
    assert normalise("[glue] loss = 7") == "[glue] loss = 7\n"
