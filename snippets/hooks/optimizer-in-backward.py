import torch
from torch import nn

from measured import glue


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(*[nn.Linear(512, 512) for _ in range(8)])


def grad_bytes(model):
    # The bytes held in .grad right now, over every parameter.
    return sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)


torch.manual_seed(1)
batches = [torch.randn(64, 512) for _ in range(3)]

# The usual loop: backward fills every .grad, then one step reads them all.
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
peak_after = 0
for x in batches:
    optimizer.zero_grad()
    model(x).square().mean().backward()
    peak_after = max(peak_after, grad_bytes(model))  # every .grad is alive here
    optimizer.step()

# Step inside backward: one optimizer per parameter, stepped by a hook that fires as
# soon as that parameter's .grad is final, and the .grad dropped right after.
model_in = make_model()
optimizers = {p: torch.optim.SGD([p], lr=0.01, momentum=0.9) for p in model_in.parameters()}
peak_in = 0


def step_now(p):
    global peak_in
    peak_in = max(peak_in, grad_bytes(model_in))  # counted before this .grad is dropped
    optimizers[p].step()
    optimizers[p].zero_grad()  # set_to_none: p.grad is None from here on


handles = [p.register_post_accumulate_grad_hook(step_now) for p in model_in.parameters()]
for x in batches:
    model_in(x).square().mean().backward()
for handle in handles:
    handle.remove()

weights = sum(p.numel() * p.element_size() for p in model.parameters())
largest = max(p.numel() * p.element_size() for p in model.parameters())
print(f"parameters:                   {weights / 2**20:.2f} MiB, largest one {largest / 2**20:.2f} MiB")
print(f"most .grad bytes at once, step after backward: {peak_after / 2**20:.2f} MiB")
print(f"most .grad bytes at once, step inside backward: {peak_in / 2**20:.2f} MiB")
print("same parameters after", len(batches), "steps:",
      all(torch.equal(a, b) for a, b in zip(model.parameters(), model_in.parameters())))
print("every .grad is None afterwards:", all(p.grad is None for p in model_in.parameters()))
glue("hooks_opt_params_mib", weights / 2**20)
glue("hooks_opt_peak_after_mib", peak_after / 2**20)
glue("hooks_opt_peak_in_mib", peak_in / 2**20)
glue("hooks_opt_ratio", peak_after / peak_in)
glue("hooks_opt_largest_mib", largest / 2**20)
glue("hooks_opt_layers", len(model))
glue("hooks_opt_steps", len(batches))
