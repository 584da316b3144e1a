import torch

a = torch.tensor([3.0], requires_grad=True)
loss = (a * a).sum()
mul = loss.grad_fn.next_functions[0][0]
print(f"before backward, saved by {type(mul).__name__} -> {mul._saved_self}")

loss.backward()
# The nodes are still there and still linked ...
root, after_root = loss.grad_fn, loss.grad_fn.next_functions[0][0]
print(f"after backward, loss.grad_fn = {type(root).__name__}"
      f" -> next: {type(after_root).__name__}")
# ... but the tensors they saved are gone.
try:
    mul._saved_self
except RuntimeError as error:
    first_sentence = str(error).split(" (")[0]
    print(f"reading the saved tensor: RuntimeError: {first_sentence} (…)")
