import torch
from torch.func import grad, vmap
from measured import glue


class SiLUOldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * s * (1 + x * (1 - s))


class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    backward = SiLUOldStyle.backward


class SiLUVmap(SiLU):
    generate_vmap_rule = True  # run forward and backward on the batched tensors as they are


torch.manual_seed(0)
batch = torch.randn(3, 4)
for function in (SiLUOldStyle, SiLU, SiLUVmap):
    try:
        out = vmap(function.apply)(batch)
        loop = torch.stack([function.apply(row) for row in batch])
        print(f"{function.__name__}: vmap equals the loop: {torch.equal(out, loop)}")
    except RuntimeError as error:
        # Up to the link to the docs that follows, whose address varies by torch version.
        message = str(error).split(" For more details")[0]
        print(f"{function.__name__}: RuntimeError: {message}")

# Per-row gradients through the Function: vmap over torch.func.grad.
per_row = vmap(grad(lambda row: SiLUVmap.apply(row).sum()))(batch)
rows = batch.clone().requires_grad_()
SiLUVmap.apply(rows).sum().backward()
print("vmap(grad(...)) equals .backward():", torch.equal(per_row, rows.grad))
glue("cf_vmap_rows", batch.shape[0])
