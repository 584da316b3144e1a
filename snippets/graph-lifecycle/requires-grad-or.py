import torch

from measured import glue

# Does a + b require grad? Try every combination of its inputs.
results = []
print("a.requires_grad  b.requires_grad  (a + b).requires_grad")
for a_grad in (False, True):
    for b_grad in (False, True):
        a = torch.ones(1, requires_grad=a_grad)
        b = torch.ones(1, requires_grad=b_grad)
        results.append((a + b).requires_grad)
        print(f"{a_grad!s:17}{b_grad!s:17}{results[-1]}")
glue("or_rows", len(results))
glue("or_true_rows", sum(results))
