import torch
import torch.nn as nn

from measured import glue

WEIGHT = 10.0  # the penalty's weight in the critic's loss (WGAN-GP uses 10)
EXPONENTS = (3, 4, 5)  # steps 1e-3, 1e-4, 1e-5: far above float64 rounding
torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1)).double()
real = torch.randn(8, 2, dtype=torch.float64)
fake = torch.randn(8, 2, dtype=torch.float64) + 2.0
mix = torch.rand(8, 1, dtype=torch.float64)
points = mix * real + (1 - mix) * fake  # between real and fake, as in WGAN-GP


def gradient_penalty(create_graph=True):
    inputs = points.clone().requires_grad_(True)
    scores = critic(inputs)
    # d score / d input per sample; the sum is fine: a score sees only its row
    (slopes,) = torch.autograd.grad(scores.sum(), inputs,
                                    create_graph=create_graph)
    return ((slopes.norm(dim=1) - 1) ** 2).mean()  # push each norm towards 1


def flat_gradient():
    """All parameters' .grad in one vector; a None .grad counts as zeros."""
    grads = [torch.zeros_like(p) if p.grad is None else p.grad
             for p in critic.parameters()]
    return torch.cat([g.flatten() for g in grads])


penalty = gradient_penalty()
penalty.backward()  # d penalty / d parameters: a backward through a gradient
unused = [name for name, p in critic.named_parameters() if p.grad is None]
print(f"penalty = {penalty.item():.6f}; .grad still None: {unused}")
autograd = flat_gradient()
glue("ag_gp_penalty", penalty)
glue("ag_gp_parameters", autograd.numel())


def central_differences(step):
    """(penalty(p + step) - penalty(p - step)) / (2 step), entry by entry."""
    numeric = []
    for p in critic.parameters():
        flat = p.detach().view(-1)  # edits p's values, unseen by autograd
        for i in range(flat.numel()):
            flat[i] += step
            up = gradient_penalty(create_graph=False).item()
            flat[i] -= 2 * step
            down = gradient_penalty(create_graph=False).item()
            flat[i] += step
            numeric.append((up - down) / (2 * step))
    return torch.tensor(numeric, dtype=torch.float64)


largest = autograd.abs().max().item()
print(f"autograd vs central differences, {autograd.numel()} parameters "
      f"(largest |gradient| {largest:.3f}):")
differences = {}
for exponent in EXPONENTS:
    step = 10.0**-exponent
    numeric = central_differences(step)
    differences[exponent] = (autograd - numeric).abs().max().item()
    print(f"  step {step:.0e}: max |difference| = {differences[exponent]:.1e}")
    glue(f"ag_gp_step_{exponent}", step)
    glue(f"ag_gp_difference_{exponent}", differences[exponent])
# The truncation error of central differences falls with step**2.
glue("ag_gp_shrink", differences[EXPONENTS[-2]] / differences[EXPONENTS[-1]])
glue("ag_gp_largest", largest)

# Without create_graph the slopes are plain numbers, and so is the penalty.
try:
    gradient_penalty(create_graph=False).backward()
except RuntimeError as error:
    print(f"penalty without create_graph, alone: RuntimeError: {error}")


def critic_gradient(with_penalty, create_graph=True):
    critic.zero_grad()
    loss = critic(fake).mean() - critic(real).mean()  # Wasserstein critic loss
    if with_penalty:
        loss = loss + WEIGHT * gradient_penalty(create_graph)
    loss.backward()
    return flat_gradient()


# Added to a loss that has a graph: no error, and no gradient from the penalty.
plain = critic_gradient(with_penalty=False)
for create_graph in (False, True):
    change = (critic_gradient(True, create_graph) - plain).abs().max().item()
    print(f"loss + {WEIGHT:g} * penalty, create_graph={create_graph!s:5}: "
          f"gradient moved by up to {change:.4g}")
    glue(f"ag_gp_change_{str(create_graph).lower()}", change)
glue("ag_gp_weight", WEIGHT)
