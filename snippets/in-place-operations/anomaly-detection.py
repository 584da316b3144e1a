import warnings

import torch

x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    # Anomaly mode records a traceback for every forward operation.
    with torch.autograd.set_detect_anomaly(True):
        y = x.sigmoid()
        y.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"backward still raises {type(error).__name__} "
                  "(the message of the previous snippet)")

for w in caught:
    lines = str(w.message).splitlines()
    print(f"{w.category.__name__}: {lines[0]}")
    # The traceback's last source line: the forward call that saved the tensor.
    code = [line.strip() for line in lines if line.startswith("    ")]
    print("  …", code[-1])
