import torch

from measured import glue

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
glue("so_error_numel", x.numel())

# backward() with no argument: which outputs does it accept?
errors = []
print(f"{'output':16}{'shape':7}backward()")
for label, out in [("(x ** 2).sum()", (x ** 2).sum()),
                   ("(x ** 2)[:1]", (x ** 2)[:1]),
                   ("x ** 2", x ** 2)]:
    try:
        out.backward()
        result = "ok"
    except RuntimeError as error:
        errors.append(f"{type(error).__name__}: {error}")
        result = "error (below)"
    print(f"{label:16}{str(tuple(out.shape)):7}{result}")
print(*errors, sep="\n")
