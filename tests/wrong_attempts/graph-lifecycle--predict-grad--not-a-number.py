# expect: predicted_grad() must return a finite number
# Returns NaN, which no comparison `abs(predicted - real) > tolerance` rejects: the judge must refuse
# a number that is not finite before it compares.


def predicted_grad():
    return float("nan")


def predicted_grad_with_reset():
    return float("nan")
