# expect: backward adds its gradient to w.grad
# The usual first guess: the last step's gradient, as if backward wrote it into w.grad.


def predicted_grad():
    return 5.0


def predicted_grad_with_reset():
    return 4.0
