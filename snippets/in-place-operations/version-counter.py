import torch

from measured import glue

a = torch.zeros(4)
print(f"{'after':26}a._version")


def show(step):
    print(f"{step:26}{a._version}")


show("a = torch.zeros(4)")
a.add_(1)
show("a.add_(1)")
a[0] = 5.0
show("a[0] = 5.0")
a.mul_(2)
show("a.mul_(2)")
b = a * 2
show("b = a * 2")  # out of place: a is not touched
a[1:3].zero_()
show("a[1:3].zero_()")  # an edit through a view counts for its base
a.detach().add_(1)
show("a.detach().add_(1)")  # detach() shares data and counter
glue("inplace_version_final", a._version)

# A view shares its base's counter; an out-of-place result has its own.
view = a[:2]
view.add_(1)
print(f"after view.add_(1): a._version = {a._version}, "
      f"view._version = {view._version}, b._version = {b._version}")
glue("inplace_version_view", a._version)
