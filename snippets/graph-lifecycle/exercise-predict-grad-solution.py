"""Reference solution: backward adds to w.grad; setting it to None starts the sum again."""


def predicted_grad():
    # Step i has the derivative (i + 1) with respect to w. Each pass builds a new graph,
    # so every backward succeeds, and each one adds its gradient to w.grad.
    return float(1 + 2 + 3 + 4 + 5)


def predicted_grad_with_reset():
    # The derivative of (w * w).sum() is 2w = 4. retain_graph=True lets all three calls run;
    # the None before the second call drops the first one's 4, the last two add up.
    return 2 * (2 * 2.0)


if __name__ == "__main__":
    print("predicted_grad():", predicted_grad())
    print("predicted_grad_with_reset():", predicted_grad_with_reset())
