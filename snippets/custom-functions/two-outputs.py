import torch


class MaxWithIndex(torch.autograd.Function):
    """Row-wise max returning (values, indices); only the values have a gradient."""

    @staticmethod
    def forward(x):
        return x.max(dim=1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        values, indices = output
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.input_shape = x.shape  # a shape, not a tensor: an attribute is right
        ctx.set_materialize_grads(materialize)

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        seen.append(grad_indices)
        (indices,) = ctx.saved_tensors
        grad_x = grad_values.new_zeros(ctx.input_shape)
        return grad_x.scatter(1, indices[:, None], grad_values[:, None])


torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
grads = []
for materialize in (True, False):
    seen = []
    values, indices = MaxWithIndex.apply(x)
    if materialize:
        print(f"values.requires_grad: {values.requires_grad},",
              f"indices.requires_grad: {indices.requires_grad}")
    grads.append(torch.autograd.grad(values.sum(), x)[0])
    print(f"set_materialize_grads({materialize}): backward got grad_indices = {seen[0]}")
print("grad x, the same both times:", torch.equal(*grads))
print(grads[0])
