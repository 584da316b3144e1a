"""Exercise: predict what backward leaves in w.grad, without running the code.

Read each piece of code below, work out w.grad on paper, and write your answer as a number.
Do not run the loops to find out: the point is to predict. The judge runs them and compares;
it also checks that this file neither imports torch nor runs it, and for a wrong number it
gives a hint, not the answer.
Judge your predictions:
    python -m exercise_judge graph-lifecycle/predict-grad exercise-predict-grad.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""


def predicted_grad():
    """What is w.grad (as a float) after this code?

        w = torch.tensor([1.0], requires_grad=True)
        for i in range(5):
            (w * (i + 1)).sum().backward()
    """
    raise NotImplementedError("return your prediction, e.g. 2.5")


def predicted_grad_with_reset():
    """What is w.grad (as a float) after this code?

        w = torch.tensor([2.0], requires_grad=True)
        loss = (w * w).sum()
        for i in range(3):
            if i == 1:
                w.grad = None
            loss.backward(retain_graph=True)
    """
    raise NotImplementedError("return your prediction, e.g. 2.5")


if __name__ == "__main__":
    print("predicted_grad():", predicted_grad())
    print("predicted_grad_with_reset():", predicted_grad_with_reset())
