import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

from measured import glue

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
discriminator = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
real, z = torch.randn(32, 8), torch.randn(32, 4)
REAL, FAKE = torch.ones(32, 1), torch.zeros(32, 1)
start = copy.deepcopy([generator.state_dict(), discriminator.state_dict()])


def fresh(fused=False):
    """Both networks back at their start, and an Adam optimizer for each."""
    generator.load_state_dict(start[0])
    discriminator.load_state_dict(start[1])
    generator.zero_grad(set_to_none=True)
    discriminator.zero_grad(set_to_none=True)
    return (torch.optim.Adam(generator.parameters(), lr=1e-3, fused=fused),
            torch.optim.Adam(discriminator.parameters(), lr=1e-3, fused=fused))


def d_loss(fake_scores):
    return (F.binary_cross_entropy_with_logits(discriminator(real), REAL)
            + F.binary_cross_entropy_with_logits(fake_scores, FAKE))


def g_loss(fake_scores):
    return F.binary_cross_entropy_with_logits(fake_scores, REAL)


def g_grads():
    return [p.grad.clone() for p in generator.parameters()]


def off(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a, b))


def reached_generator():
    return any(p.grad is not None for p in generator.parameters())


# The generator's gradient at the discriminator before and after its step,
# each from a forward of its own: what the two ways are compared with.
fresh()
g_loss(discriminator(generator(z))).backward()
at_old = g_grads()
g_optimizer, d_optimizer = fresh()
d_loss(discriminator(generator(z).detach())).backward()
d_optimizer.step()
generator.zero_grad(set_to_none=True)
g_loss(discriminator(generator(z))).backward()
at_new = g_grads()

print(f"{'':32}generator's gradient, max |difference| to the one at D")
print(f"{'':32}{'before its step':>18}{'after its step':>18}")
reached, passes = {}, {}


def step(way, fused=False):
    """One discriminator step, then the generator's backward; the way it is written."""
    g_optimizer, d_optimizer = fresh(fused)
    fake = generator(z)
    calls = []
    fake.register_hook(calls.append)  # called once per backward pass through G
    if way == "kept graph":  # both losses on one D(G(z))
        scores = discriminator(fake)
        d_loss(scores).backward(retain_graph=True)
    else:  # the discriminator's loss on a detached fake
        d_loss(discriminator(fake.detach())).backward()
        scores = None
    reached[way] = reached_generator()
    d_optimizer.step()  # changes D's weights in place
    g_optimizer.zero_grad()  # the kept graph had filled them with D's loss
    if scores is None:
        scores = discriminator(fake)  # a fresh pass through the updated D
    g_loss(scores).backward()
    passes[way] = len(calls)
    return g_grads()


for label, way, fused in (("kept graph, Adam()", "kept graph", False),
                          ("kept graph, Adam(fused=True)", "kept graph", True),
                          ("D(fake.detach()), then D(fake)", "D(fake.detach())", False)):
    try:
        grads = step(way, fused)
    except RuntimeError as error:
        print(f"{label:32}RuntimeError: {str(error).split(': [')[0]}")
        continue
    print(f"{label:32}{off(grads, at_old):18.3g}{off(grads, at_new):18.3g}")
    if fused:
        glue("rg_gan_fused_off_old", off(grads, at_old))
        glue("rg_gan_fused_off_new", off(grads, at_new))
    else:
        glue("rg_gan_usual_off_new", off(grads, at_new))
for what, found in (("D's backward reached G", reached), ("backward passes through G", passes)):
    print(f"{what + ':':32}" + ", ".join(f"{way} {value}" for way, value in found.items()))
glue("rg_gan_passes_kept", passes["kept graph"])
glue("rg_gan_passes_usual", passes["D(fake.detach())"])
