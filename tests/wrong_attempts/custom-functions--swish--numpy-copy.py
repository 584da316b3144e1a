# expect: backward did not notice an in-place edit of x
# Right numbers, but x and beta kept as a numpy array and a float on ctx; a placeholder goes through
# save_for_backward. The array shares x's memory: an in-place edit of x changes the gradient silently.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta = inputs
        ctx.save_for_backward(torch.empty(0))
        ctx.x_array, ctx.beta_number = x.detach().numpy(), float(beta)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = torch.from_numpy(ctx.x_array), ctx.beta_number
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
