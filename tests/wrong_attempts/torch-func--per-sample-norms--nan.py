# expect: the norms differ from those of a per-sample loop (mse_loss)
# NaN norms: every comparison of the judge must fail on NaN, the value check first of all.
import torch


def per_sample_norms(model, loss_fn, x, y):
    return torch.full((len(x),), float("nan"))
