import torch

from measured import glue

# PyPI's wheels call themselves 2.13.0, local CPU builds 2.13.0+cpu: keep the release only.
release = torch.__version__.split("+")[0]
print(f"torch {release}, {torch.get_num_threads()} thread(s), default dtype {torch.get_default_dtype()}")
glue("verification_torch", release)
glue("verification_threads", torch.get_num_threads())
