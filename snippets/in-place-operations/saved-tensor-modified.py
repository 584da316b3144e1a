import torch

from measured import glue

x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
y = x.sigmoid()  # sigmoid' = y * (1 - y): SigmoidBackward0 saves y itself
node = y.grad_fn
print("SigmoidBackward0 saved:",
      [name for name in dir(node) if name.startswith("_saved_")])
print("the saved tensor is y:", node._saved_result.equal(y),
      "| y._version =", y._version)
glue("inplace_saved_version", y._version)

y.add_(1)  # overwrites the very values backward needs
print("after y.add_(1): y._version =", y._version,
      "| y.grad_fn =", y.grad_fn.name())
glue("inplace_edited_version", y._version)

try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
