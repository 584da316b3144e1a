import warnings

import torch

x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.set_detect_anomaly(True):  # records a traceback for every forward op
        y = x.sigmoid()
        y.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"backward still raises {type(error).__name__}: {str(error).split(':')[0]} …")

for w in caught:
    lines = str(w.message).splitlines()
    print(f"{w.category.__name__}: {lines[0]}")
    # The traceback's last source line is the forward call whose saved tensor was edited.
    print("  …", [line.strip() for line in lines if line.startswith("    ")][-1])
