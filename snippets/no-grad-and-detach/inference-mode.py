import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    made_in_no_grad = torch.tensor([4.0, 5.0, 6.0]) * 2
with torch.inference_mode():
    made_in_inference = torch.tensor([4.0, 5.0, 6.0]) * 2
for label, t in [("no_grad", made_in_no_grad),
                 ("inference_mode", made_in_inference)]:
    print(f"made in {label + ':':16}is_inference={t.is_inference()}")
# What makes inference_mode cheaper is what it forbids later:
# its tensors keep no version counter.
try:
    made_in_inference._version
except RuntimeError as error:
    print(f"its version counter: RuntimeError: {error}")

# A tensor made under no_grad is an ordinary tensor: autograd can use it
# later, as a constant.
(made_in_no_grad * w).sum().backward()
print("no_grad tensor * w, then backward: fine, w.grad =", w.grad.tolist())

# An inference tensor may not be saved for backward, changed in place,
# or start requiring grad.
t = made_in_inference
attempts = [
    ("inference tensor * w", lambda: t * w),
    ("inference tensor + w", lambda: t + w),  # addition saves nothing
    ("inference tensor.add_(1)", lambda: t.add_(1)),
    ("inference tensor.requires_grad_()", lambda: t.requires_grad_()),
    ("inference tensor.clone() * w", lambda: t.clone() * w),
]
for label, attempt in attempts:
    try:
        attempt()
        print(f"{label}: fine")
    except RuntimeError as error:
        print(f"{label}:\n  RuntimeError: {error}")
