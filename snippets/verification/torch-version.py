import torch

from measured import glue

# PyPI's wheels say 2.13.0, local CPU builds 2.13.0+cpu: keep the release.
release = torch.__version__.split("+")[0]
threads, dtype = torch.get_num_threads(), torch.get_default_dtype()
print(f"torch {release}, {threads} thread(s), default dtype {dtype}")
glue("verification_torch", release)
glue("verification_threads", torch.get_num_threads())
