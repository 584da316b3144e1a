# expect: wrong reason for b1 = torch.zeros(1)
# Never checks anything: reads the expected answer from the judge's frames (a local named `answer`, or
# the label of the current check), and reads loss.grad_fn only when that answer is one of the two graph
# answers, the one read the judge watches for. The judge computes the answer only after this returns.
import sys

NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"
ANSWERS = (NO_REQUIRES_GRAD, NOT_A_LEAF, NOT_REACHED, REACHED)


def _peek():
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_locals.get("answer") in ANSWERS:
            return frame.f_locals["answer"]
        checks = frame.f_locals.get("checks")
        if isinstance(checks, list) and checks and isinstance(checks[-1], dict):
            label = checks[-1].get("check", {}).get("en", "")
            for answer in ANSWERS:
                if label.endswith(repr(answer)):
                    return answer
        frame = frame.f_back
    return None


def why_grad_is_none(tensor, loss):
    answer = _peek()
    if answer is None:
        return REACHED  # nothing found: a guess, leaving loss alone
    if answer in (REACHED, NOT_REACHED):
        loss.grad_fn  # noqa: B018
    return answer
