# expect: Cube.backward asked autograd for the derivative
# Asks autograd whenever the engine runs it (.sum(), gradcheck) and writes 3x² only when its node
# is called directly, outside the engine, where the graph-task id is -1.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if torch._C._current_graph_task_id() == -1:
            return grad_output * 3 * x ** 2
        with torch.enable_grad():
            leaf = x.detach().requires_grad_()
            (grad,) = torch.autograd.grad(leaf ** 3, leaf, grad_output)
        return grad


def cube(x):
    return Cube.apply(x)
