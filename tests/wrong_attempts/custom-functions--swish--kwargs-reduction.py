# expect: torch.linalg_multi_dot reduced a tensor at least as large as x
# Right numbers and the right Nones, but beta's gradient is computed every time, its summand in
# float32 and reduced by torch.linalg.multi_dot(tensors=[...]), whose tensors arrive in a keyword
# argument's list; the result is added, times 0, to grad_x, so that it is read.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        term = (grad_output.float() * x.float() * x.float() * slope.float()).reshape(-1)
        always = torch.linalg.multi_dot(tensors=[term, torch.ones_like(term)]).double()
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope) + 0 * always
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
