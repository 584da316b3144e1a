import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
x = torch.randn(5, 4)


def show_input(module, args):
    # A forward pre-hook gets the positional inputs as a tuple, before forward runs.
    print("pre-hook:  input shape", tuple(args[0].shape))


def show_grads(module, grad_input, grad_output):
    # grad_input: gradients w.r.t. the module's *inputs*; grad_output: w.r.t. its outputs.
    print("full backward hook: grad_output", [tuple(g.shape) for g in grad_output],
          " grad_input", [tuple(g.shape) for g in grad_input])
    glue("hooks_grad_input_len", len(grad_input))


handles = [model[2].register_forward_pre_hook(show_input),
           model[2].register_full_backward_hook(show_grads)]
model(x).sum().backward()
for handle in handles:
    handle.remove()
print("the layer's weight:", tuple(model[2].weight.shape), "- its gradient is not in grad_input")
reference = {name: p.grad.clone() for name, p in model.named_parameters()}

# grad_input holds no parameter gradients: returning a changed grad_input changes
# what flows on to earlier layers, and leaves the module's own weight alone.
model.zero_grad()
handle = model[2].register_full_backward_hook(lambda m, grad_in, grad_out: (grad_in[0] * 0,))
model(x).sum().backward()
handle.remove()
print("last layer's grad_input set to zero:")
for name, p in model.named_parameters():
    print(f"  {name + '.grad':14} unchanged: {torch.equal(p.grad, reference[name])!s:5}  "
          f"all zero: {not p.grad.any()}")

# A forward pre-hook that returns a value replaces the inputs (a tuple, or one tensor).
of_zeros = model(torch.zeros_like(x))  # computed before the hook is registered
handle = model[0].register_forward_pre_hook(lambda m, args: args[0] * 0)
print("pre-hook returns zeros: output equals model(zeros):", torch.equal(model(x), of_zeros))
handle.remove()
