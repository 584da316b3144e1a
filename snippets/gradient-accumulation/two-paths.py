import torch

from measured import glue

# One forward that uses w twice: the chain rule sums the two paths.
w = torch.tensor([1.0], requires_grad=True)
arrivals = []
hook = w.register_hook(lambda grad: arrivals.append(grad.item()))  # sees what reaches w
out = w * 3 + w * 5
out.sum().backward()
hook.remove()
print(f"{'one forward, w used twice:':35}w.grad = {w.grad.item()}")
glue("accum_paths", w.grad)
left, right = (edge[0] for edge in out.grad_fn.next_functions)
print("  both paths lead to one AccumulateGrad node:", left.next_functions[0][0] is right.next_functions[0][0])
print("  gradients that reached w:", arrivals, "(one arrival: the paths were summed first)")

# Two losses, two backward calls: the same sum, reached by adding into .grad.
w.grad = None
(w * 3).sum().backward()
(w * 5).sum().backward()
print(f"{'two backward calls, one per loss:':35}w.grad = {w.grad.item()}")

# One backward of the summed loss: the same number again.
w.grad = None
((w * 3).sum() + (w * 5).sum()).backward()
print(f"{'one backward of the summed loss:':35}w.grad = {w.grad.item()}")
