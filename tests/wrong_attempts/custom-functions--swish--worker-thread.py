# expect: Swish.backward started a thread
# Both gradients computed every time, in a worker thread, where the judge's modes do not look; clones
# pad the call and element counts of the thread that calls backward.
import threading
import torch
class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)
    @staticmethod
    def backward(ctx, g):
        x, beta = ctx.saved_tensors
        box = []
        def both():
            s = torch.sigmoid(beta * x); sl = s * (1 - s)
            box.append((g * (s + beta * x * sl), (g * x * x * sl).sum()))
        t = threading.Thread(target=both); t.start(); t.join()
        gx, gb = box[0]
        gx = gx.clone().clone() if ctx.needs_input_grad[0] else None
        gb = gb.clone() if ctx.needs_input_grad[1] else None
        return gx, gb
def swish(x, beta):
    return Swish.apply(x, beta)
