# IPython runs this file when a docs kernel of this book starts (IPYTHONDIR is set by
# book_settings.kernel_environment, for the build only; a reader's own kernels never see it).
# It cuts a cell that prints more than SNIPPET_OUTPUT_LIMIT characters: nbclient would keep every
# line until the time limit. It leaves no name in the page's namespace.


def _limit_each_cells_output():
    import os
    import sys

    limit = int(os.environ["BOOK_SNIPPET_OUTPUT_LIMIT"])
    execution_log = os.environ.get("BOOK_EXECUTION_LOG")  # nox -s bench counts the cells run
    printed = [0]

    class SnippetOutputLimit(BaseException):  # not an Exception: a snippet's `except Exception` keeps it
        pass

    def limited(write):
        def write_within_limit(text):
            printed[0] += len(text)
            if printed[0] > limit:
                raise SnippetOutputLimit(f"printed more than {limit:,} characters")
            return write(text)
        return write_within_limit

    sys.stdout.write = limited(sys.stdout.write)
    sys.stderr.write = limited(sys.stderr.write)

    def new_cell(info):
        printed[0] = 0
        if execution_log:
            with open(execution_log, "a") as log:
                log.write("kernel\n")

    get_ipython().events.register("pre_run_cell", new_cell)  # noqa: F821 (IPython's startup namespace)


_limit_each_cells_output()
del _limit_each_cells_output
