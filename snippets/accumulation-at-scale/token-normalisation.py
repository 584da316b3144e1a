import torch
from torch import nn

from measured import glue, roughly

torch.manual_seed(0)
VOCAB, WIDTH = 50, 16
model = nn.Sequential(nn.Embedding(VOCAB, WIDTH), nn.Linear(WIDTH, VOCAB))
# Four micro-batches of sequences with different numbers of real (not padding) tokens
lengths = [[30, 28], [12, 9], [25, 3], [7, 5]]
micro_batches = []
for pair in lengths:
    tokens = torch.randint(0, VOCAB, (len(pair), max(pair)))
    mask = torch.arange(max(pair)) < torch.tensor(pair)[:, None]  # False on padding
    micro_batches.append((tokens, mask))


def token_losses(tokens, mask):
    """The next-token cross entropy of every real token (padding left out)."""
    logits = model(tokens[:, :-1])
    losses = nn.functional.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")
    return losses[mask[:, 1:]]


# Token t predicts token t + 1: the tokens predicted are the real ones after the first
predicted = [mask[:, 1:].sum().item() for _, mask in micro_batches]
total_predicted = sum(predicted)


def gradient(normalise):
    model.zero_grad()
    for tokens, mask in micro_batches:
        losses = token_losses(tokens, mask)
        if normalise == "mean of means":
            loss = losses.mean() / len(micro_batches)
        else:  # every token weighs the same, whichever micro-batch it is in
            loss = losses.sum() / total_predicted
        loss.backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


# The big batch: every real token of every micro-batch in one mean
model.zero_grad()
torch.cat([token_losses(*batch) for batch in micro_batches]).mean().backward()
big = torch.cat([p.grad.flatten() for p in model.parameters()])

print(f"tokens predicted per micro-batch: {predicted}, {total_predicted} in all")
for normalise in ("mean of means", "sum / total tokens"):
    found = gradient(normalise)
    difference = (found - big).abs().max().item()
    relative = ((found - big).norm() / big.norm()).item()
    key = "means" if normalise == "mean of means" else "tokens"
    noise = key == "tokens"  # the same sum in another order: only rounding is left
    assert relative < 1e-5 or not noise, relative  # the page calls it rounding: anything larger fails the run
    shown = [roughly(value) if noise else f"{value:.1e}" for value in (difference, relative)]
    print(f"{normalise:20} max |grad - one batch| {shown[0]}, relative {shown[1]}")
    glue(f"scale_tokens_diff_{key}", difference if noise else float(shown[0]), varies=noise)
    glue(f"scale_tokens_relative_{key}", relative if noise else float(shown[1]), varies=noise)
glue("scale_tokens_total", total_predicted)
glue("scale_tokens_most", max(predicted))
glue("scale_tokens_fewest", min(predicted))
