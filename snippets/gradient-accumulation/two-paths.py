import torch

from measured import glue

# One forward that uses w twice: the chain rule sums the two paths.
w = torch.tensor([1.0], requires_grad=True)
arrivals = []
# A hook on w sees every gradient that arrives at w.
hook = w.register_hook(lambda grad: arrivals.append(grad.item()))
out = w * 3 + w * 5
out.sum().backward()
hook.remove()
print(f"{'one forward, w used twice:':35}w.grad = {w.grad.item()}")
glue("accum_paths", w.grad)
# The sum's node points back to the two MulBackward0 nodes, one per path.
left, right = (edge[0] for edge in out.grad_fn.next_functions)
same_node = left.next_functions[0][0] is right.next_functions[0][0]
print("  both paths lead to one AccumulateGrad node:", same_node)
print("  gradients that reached w:", arrivals, "(one, already summed)")

# Two losses, two backward calls: the same sum, reached by adding into .grad.
w.grad = None
(w * 3).sum().backward()
(w * 5).sum().backward()
print(f"{'two backward calls, one per loss:':35}w.grad = {w.grad.item()}")

# One backward of the summed loss: the same number again.
w.grad = None
((w * 3).sum() + (w * 5).sum()).backward()
print(f"{'one backward of the summed loss:':35}w.grad = {w.grad.item()}")
