# expect: freeze_first replaced parameters
# Turns the first layers' parameters into buffers: nothing left to train, and nothing left to freeze.


def freeze_first(model, k):
    for module in model[:k]:
        for name, p in list(module.named_parameters(recurse=False)):
            del module._parameters[name]
            module.register_buffer(name, p.detach())


def forward_cut(model, x, k):
    return model[k:](model[:k](x).detach())
