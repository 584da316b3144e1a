"""Checks behind retain-graph's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`retain-graph/<name>` on a page names one)."""

import torch
import torch.nn.functional as F
from torch import nn


def _graph_nodes(tensor):
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return len(seen)


def _chunks(count=3, steps=5):
    torch.manual_seed(0)
    rnn = nn.RNN(4, 8, batch_first=True)
    inputs = [torch.randn(2, steps, 4, requires_grad=True) for _ in range(count)]
    return rnn, inputs


def a_carried_hidden_state_without_optimizer_steps_grows_the_graph():
    """retain_graph=True with no weight update in between runs, and each chunk's loss hangs
    over a longer graph than the one before: it reaches back through every earlier chunk."""
    rnn, inputs = _chunks()
    hidden, sizes = torch.zeros(1, 2, 8), []
    for chunk in inputs:
        out, hidden = rnn(chunk, hidden)
        loss = out.square().mean()
        sizes.append(_graph_nodes(loss))
        loss.backward(retain_graph=True)
    assert sizes[0] < sizes[1] < sizes[2]
    assert all(chunk.grad is not None for chunk in inputs)


def a_detached_hidden_state_stops_the_gradient_at_the_chunk_boundary():
    """After hidden.detach(), a chunk's loss sends no gradient into the previous chunk's inputs."""
    rnn, (first, second, _) = _chunks()
    out, hidden = rnn(first, torch.zeros(1, 2, 8))
    out, _ = rnn(second, hidden.detach())
    out.square().mean().backward()
    assert first.grad is None and second.grad is not None
