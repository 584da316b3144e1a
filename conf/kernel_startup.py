# IPython runs this file when a docs kernel of this book starts (IPYTHONDIR is set by
# build_runs.kernel_environment, for the build only; a reader's own kernels never see it).
# It leaves no name in the page's namespace. Two things, on sys.stdout and sys.stderr:
#
# - A cell that prints more than OUTPUT_LIMIT characters is cut by exercise_judge.limits.Printed,
#   which raises TooLoud (nbclient would keep every line until the time limit).
# - ipykernel sends what was written on a timer, so a line can reach the notebook in two pieces
#   (print writes its text and its newline separately), and myst-nb's stream merging turns such a
#   split into a line break plus an empty line (upstream.WORKAROUNDS["myst-nb-split-lines"]). So
#   only whole lines are handed on, each piece ending in one newline after a non-newline character;
#   the rest waits for the next write or for the end of the cell.


def _limit_and_whole_lines():
    import os
    import re
    import sys

    from exercise_judge.limits import Printed

    execution_log = os.environ.get("BOOK_EXECUTION_LOG")  # nox -s bench counts the cells run
    printed = Printed("the cell")
    ready = re.compile(r"(?s).*[^\n]\n")  # the longest prefix that ends a non-empty line
    streams = []

    def whole_lines(stream):
        write, pending = stream.write, [""]

        def write_whole_lines(text):
            pending[0] += text
            if found := ready.match(pending[0]):
                write(found.group(0))
                pending[0] = pending[0][found.end() :]
            return len(text)

        def hand_on_the_rest():
            if pending[0]:
                write(pending[0])
                pending[0] = ""

        stream.write = write_whole_lines
        streams.append(hand_on_the_rest)
        printed.watch(stream)

    whole_lines(sys.stdout)
    whole_lines(sys.stderr)

    def new_cell(info):
        printed.count = 0
        if execution_log:
            with open(execution_log, "a") as log:
                log.write("kernel\n")

    def cell_done(result):
        for hand_on in streams:
            hand_on()

    get_ipython().events.register("pre_run_cell", new_cell)  # noqa: F821 (IPython's startup namespace)
    get_ipython().events.register("post_run_cell", cell_done)  # noqa: F821


_limit_and_whole_lines()
del _limit_and_whole_lines
