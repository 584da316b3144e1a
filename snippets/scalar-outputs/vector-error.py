import torch

from measured import glue

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
glue("so_error_numel", x.numel())

# backward() with no argument: which outputs does it accept?
print(f"{'output':16}{'shape':8}backward()")
for label, out in [("(x ** 2).sum()", (x ** 2).sum()),
                   ("(x ** 2)[:1]", (x ** 2)[:1]),
                   ("x ** 2", x ** 2)]:
    try:
        out.backward()
        result = "ok"
    except RuntimeError as error:
        result = f"{type(error).__name__}: {error}"
    print(f"{label:16}{str(tuple(out.shape)):8}{result}")
