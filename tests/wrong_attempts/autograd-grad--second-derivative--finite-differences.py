# expect: no torch.autograd.grad call differentiated the first derivative
# First derivatives from torch.autograd.grad at x ± h (the first with create_graph=True), and the
# second derivative from a Richardson-extrapolated central difference of them: accurate enough for
# x**3 and sin, yet nothing differentiates a derivative.
import torch


def _slope(f, t, create_graph=False):
    t = t.detach().requires_grad_()
    return torch.autograd.grad(f(t), t, create_graph=create_graph)[0].detach()


def second_derivative(f, x):
    def central(h):
        return (_slope(f, x + h, create_graph=True) - _slope(f, x - h)) / (2 * h)

    h = 1e-3
    return (4 * central(h / 2) - central(h)) / 3
