import torch
from torch.func import grad, jacrev, vmap
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
    generate_vmap_rule = True  # forward, setup_context and backward run under vmap themselves

    @staticmethod
    def forward(x):
        shapes.append(tuple(x.shape))
        return SiLU.forward(x)


def refusal(transform):
    try:
        transform()
    except RuntimeError as error:
        # Up to the link to the docs that follows, whose address varies by torch version.
        return str(error).split(" For more details")[0]


torch.manual_seed(0)
batch = torch.randn(3, 4)
shapes = []
for function in (SiLUOldStyle, SiLU, SiLUVmap):
    message = refusal(lambda: vmap(function.apply)(batch))
    if message:
        print(f"{function.__name__}: RuntimeError: {message}")
        continue
    loop = torch.stack([function.apply(row) for row in batch])
    print(f"{function.__name__}: vmap equals the loop: {torch.equal(vmap(function.apply)(batch), loop)};",
          f"forward saw the shape {shapes[0]} under vmap of a batch of {tuple(batch.shape)}")

# The older style is refused by the other transforms too, with the same message.
old_style = refusal(lambda: vmap(SiLUOldStyle.apply)(batch))
for name, transform in (("grad", lambda: grad(lambda row: SiLUOldStyle.apply(row).sum())(batch[0])),
                        ("jacrev", lambda: jacrev(SiLUOldStyle.apply)(batch[0]))):
    print(f"SiLUOldStyle under {name}: the same RuntimeError: {refusal(transform) == old_style}")

# Per-row gradients through the Function: vmap over torch.func.grad.
per_row = vmap(grad(lambda row: SiLUVmap.apply(row).sum()))(batch)
rows = batch.clone().requires_grad_()
SiLUVmap.apply(rows).sum().backward()
print("vmap(grad(...)) equals .backward():", torch.equal(per_row, rows.grad))
glue("cf_vmap_rows", batch.shape[0])
