import torch
from torch.amp import custom_bwd, custom_fwd


def state(where, name, tensor):
    dtype = str(tensor.dtype).removeprefix("torch.")
    seen.append(f"{where}: autocast {'on' if torch.is_autocast_enabled('cpu') else 'off'}, {name} {dtype}")


class MatMul(torch.autograd.Function):
    """a @ b in the older style (forward takes ctx); backward mixes grad_out with the saved inputs."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        out = a @ b
        state("forward", "out", out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        state("backward", "grad_out", grad_out)
        return grad_out @ b.t(), a.t() @ grad_out


class MatMulAmp(MatMul):
    """custom_fwd records forward's autocast state on ctx; custom_bwd runs backward under it."""

    @staticmethod
    @custom_fwd(device_type="cpu")
    def forward(ctx, a, b):
        return MatMul.forward(ctx, a, b)

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, grad_out):
        return MatMul.backward(ctx, grad_out)


class MatMulFloat32(MatMulAmp):
    """cast_inputs: forward's floating inputs cast to float32, forward run with autocast off."""

    @staticmethod
    @custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, a, b):
        return MatMul.forward(ctx, a, b)


class MatMulSetupContext(torch.autograd.Function):
    """The same decorators on a setup_context Function: custom_fwd takes forward's first argument for ctx."""

    @staticmethod
    @custom_fwd(device_type="cpu")
    def forward(a, b):
        return a @ b

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, grad_out):
        return MatMul.backward(ctx, grad_out)


class MatMulByHand(torch.autograd.Function):
    """setup_context style doing by hand what the decorators do: record the state, re-enter it."""

    @staticmethod
    def forward(a, b):
        out = a @ b
        state("forward", "out", out)
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)
        ctx.autocast = torch.is_autocast_enabled("cpu")  # setup_context runs under forward's autocast
        ctx.autocast_dtype = torch.get_autocast_dtype("cpu")

    @staticmethod
    def backward(ctx, grad_out):
        with torch.autocast("cpu", dtype=ctx.autocast_dtype, enabled=ctx.autocast):
            return MatMul.backward(ctx, grad_out)


torch.manual_seed(0)
for function in (MatMul, MatMulAmp, MatMulFloat32, MatMulSetupContext, MatMulByHand):
    seen = []
    a = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(4, 2, requires_grad=True)
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = function.apply(a, b)
        out.float().sum().backward()  # the backward pass runs outside autocast, as training loops do
        seen.append(f"a.grad {str(a.grad.dtype).removeprefix('torch.')}")
    except (RuntimeError, AttributeError) as error:
        seen.append(f"{type(error).__name__}: {error}")
    print(f"{function.__name__}: {'; '.join(seen)}")
    if function is MatMulSetupContext:
        print(f"  custom_fwd's record landed on the input a: a._fwd_used_autocast = {a._fwd_used_autocast}")
