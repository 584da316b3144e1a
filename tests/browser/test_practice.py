"""Practice in the browser, as `nox -s practice` offers it: JupyterLab (and Notebook 7) over the exercise
notebooks of one language, driven in chromium. The starter's verdict fails with its message; the
reference solution typed into the starter cell passes; a solution that hangs is stopped with the
judge's message and the kernel still runs the next cell; stopping the server leaves no process.
Screenshots: build/screenshots/practice-jupyterlab-<lang>.png (none with BOOK_NO_SCREENSHOTS=1).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import urllib.request
from pathlib import Path
from typing import NoReturn

import pytest

import book_settings
import practice_server
from book_extensions import exercises
from book_settings import exercise_file

pytestmark = pytest.mark.browser

EXERCISE = "gradient-accumulation/micro-batches"
NOTEBOOK = exercises.notebook_name(EXERCISE)
FILE = exercise_file(EXERCISE).name
SOLUTION_CELL, JUDGE_CELL = exercises.CELL_IDS.index("solution"), exercises.CELL_IDS.index("judge")
WORDS = {
    "en": {"fail": "Not yet: check", "pass": "Passed: all", "hang": "Stopped after 5 s"},
    "zh": {"fail": "还没通过：第", "pass": "通过：", "hang": "5 秒后仍未结束，已停止"},
}
RUN_ALL = re.compile(r"^Run All Cells$")
SCREENSHOTS = book_settings.BUILD / "screenshots"
WAIT_MS = 180_000  # a cold kernel imports torch, then the judge's child does: slow while other tests hold the cores


@pytest.fixture(scope="module", params=["zh", "en"])
def practice(request, site, tmp_path_factory):
    """The practice server over one language's exercise notebooks (copied, as nox -s practice copies them)."""
    language = request.param
    home = tmp_path_factory.mktemp(f"practice-{language}")
    folder = home / "notebooks"
    shutil.copytree(site / language / exercises.FOLDER, folder)
    server = practice_server.start(Path(sys.executable), folder, home / "jupyter")
    try:
        yield language, server, folder
    finally:
        started = practice_server.descendants(server.process.pid)
        practice_server.stop(server)
        left = [pid for pid in [server.process.pid, *started] if practice_server.running(pid)]
        assert not left, f"still running after the server was stopped: {left}"


@pytest.fixture
def served(practice, site):
    """`practice`'s language and server, its notebook restored from the site first: JupyterLab autosaves
    an edited notebook, and each test must open the one a reader downloads."""
    language, server, folder = practice
    shutil.copyfile(site / language / exercises.FOLDER / NOTEBOOK, folder / NOTEBOOK)
    return language, server


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, service_workers="block")
    yield context.new_page()
    context.close()


def run_all(page, server) -> None:
    """Run → Run All Cells, as a reader does, and returns once the judge cell is queued or has run (its
    prompt changed). JupyterLab greys the item out while the notebook is not its current widget, and
    a click on a greyed item does nothing: then the reader's next move, a click in the notebook and
    the menu again, until the deadline."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    prompt = cell(page, JUDGE_CELL).locator(".jp-InputPrompt")
    before = prompt.inner_text()
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        try:
            no_dialog(page, server)
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click(timeout=5_000)
            item = page.locator(".lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=RUN_ALL))
            if "lm-mod-disabled" not in (item.get_attribute("class", timeout=5_000) or ""):
                item.click(timeout=5_000)
                page.wait_for_function(
                    "([element, text]) => element.innerText !== text",
                    arg=[prompt.element_handle(), before],
                    timeout=20_000,
                )
                return
            page.keyboard.press("Escape")
            cell(page, 0).click(timeout=5_000)
        except PlaywrightTimeout:  # a dialog in the way, or the cells not queued yet: look again
            pass
    stuck(
        page,
        server,
        f"Run All Cells did not start the notebook within {WAIT_MS // 1000} s (judge cell prompt {before!r})",
    )


def cell(page, n: int):
    return page.locator(".jp-Notebook .jp-Cell").nth(n)


def replace_code(page, n: int, code: str) -> None:
    """Select everything in cell n's editor and put `code` there, as a paste would (no auto-indent)."""
    editor = cell(page, n).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)


def verdict(page, words: str, server) -> str:
    """The judge cell's output once it shows `words`; when it does not in time, fails (stuck)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    output = cell(page, JUDGE_CELL).locator(".jp-OutputArea-output", has_text=words)
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        try:
            output.wait_for(timeout=2_000)
            return output.inner_text()
        except PlaywrightTimeout:
            no_dialog(page, server)
    stuck(page, server, f"no {words!r} in the judge cell after {WAIT_MS // 1000} s")


def no_dialog(page, server) -> None:
    """Fails if JupyterLab shows a dialog (a "Select Kernel" one means Run All found no kernel)."""
    dialog = page.locator(".jp-Dialog").first
    if dialog.is_visible():
        stuck(page, server, f"JupyterLab shows a dialog: {dialog.inner_text()!r}")


def stuck(page, server, what: str) -> NoReturn:
    """Fails with `what`, what every cell shows, the server's sessions and the end of the server's log."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    shown = [cells.nth(n).locator(".jp-OutputArea-output").all_inner_texts() for n in range(cells.count())]
    try:
        kernels = [(s["path"], s["kernel"]["execution_state"], s["kernel"]["connections"]) for s in sessions(server)]
    except OSError as error:
        kernels = f"unreadable: {error}"
    log = server.log.read_text(encoding="utf-8", errors="replace")[-3000:]
    pytest.fail(
        f"{what}; sessions (path, kernel state, connections) {kernels}; cell outputs {shown}; "
        f"end of {server.log}:\n{log}"
    )


def sessions(server) -> list[dict]:
    with urllib.request.urlopen(f"{server.base}api/sessions?token={server.token}", timeout=10) as answer:
        return json.load(answer)


def execution_count(page) -> int:
    """The judge cell's execution count, once its prompt shows one ("[12]:"; "[*]:" until the kernel's
    reply, which may come after the output)."""
    from playwright.sync_api import expect

    prompt = cell(page, JUDGE_CELL).locator(".jp-InputPrompt")
    expect(prompt).to_have_text(re.compile(r"^\[\d+\]:$"), timeout=WAIT_MS)
    return int(re.search(r"\d+", prompt.inner_text()).group())


def kernel_idle(page, server) -> None:
    """Waits until the server's session of the notebook has a kernel, idle, with a client connected.
    A Run All sent before can find the session without a kernel, and JupyterLab then opens its kernel
    chooser instead of running the cells. (The page's execution indicator says idle before that.)"""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        if any(
            session["path"].endswith(NOTEBOOK)
            and session["kernel"]["execution_state"] == "idle"
            and session["kernel"]["connections"]
            for session in sessions(server)
        ):
            return
        no_dialog(page, server)
        time.sleep(0.5)
    stuck(page, server, f"no idle kernel connected to {NOTEBOOK} after {WAIT_MS // 1000} s")


def open_notebook(page, server, app: str) -> None:
    path = "lab/tree" if app == "lab" else "notebooks"
    page.goto(f"{server.base}{path}/{NOTEBOOK}?token={server.token}")
    cell(page, JUDGE_CELL).wait_for(timeout=WAIT_MS)
    kernel_idle(page, server)


def test_jupyterlab_judges_the_starter_the_solution_and_a_hang(served, page):
    language, server = served
    words = WORDS[language]
    open_notebook(page, server, "lab")
    run_all(page, server)
    failed = verdict(page, words["fail"], server)
    assert "✘" in failed and "Traceback" not in failed, failed
    cell(page, JUDGE_CELL).scroll_into_view_if_needed()
    if os.environ.get("BOOK_NO_SCREENSHOTS") != "1":  # as conftest's SCREENSHOTS_TAKEN
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SCREENSHOTS / f"practice-jupyterlab-{language}.png")

    solution = exercise_file(EXERCISE, solution=True).read_text(encoding="utf-8")
    replace_code(page, SOLUTION_CELL, f"%%writefile {FILE}\n{solution}")
    run_all(page, server)
    passed = verdict(page, words["pass"], server)
    assert "✘" not in passed, passed

    replace_code(page, SOLUTION_CELL, f"%%writefile {FILE}\nwhile True:\n    pass\n")
    replace_code(
        page,
        JUDGE_CELL,
        "from exercise_judge import judge\n\n"
        f"print(judge({EXERCISE!r}, {FILE!r}, language={language!r}, timeout=5).text)",
    )
    run_all(page, server)
    verdict(page, words["hang"], server)
    count = execution_count(page)
    replace_code(page, JUDGE_CELL, "print('kernel', 6 * 7)")
    run_all(page, server)
    verdict(page, "kernel 42", server)
    after = execution_count(page)
    assert after > count, (
        f"the judge cell ran as [{after}] after [{count}]: not in the kernel that ran the hang's judge"
    )


def test_notebook_7_judges_the_starter(served, page):
    language, server = served
    open_notebook(page, server, "notebook")
    run_all(page, server)
    failed = verdict(page, WORDS[language]["fail"], server)
    assert "✘" in failed, failed


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_serve_stops_jupyterlab_and_its_kernel_on_ctrl_c_or_kill(signal_name, tmp_path):
    """`nox -s practice` runs practice_server.serve. Started as a background job does it (SIGINT ignored,
    inherited), with a kernel running, Ctrl-C (SIGINT to the caller's process group) or `kill` (SIGTERM)
    ends it: exit 0, the server and the kernel gone."""
    import os
    import signal
    import subprocess

    (tmp_path / "notebooks").mkdir()
    serve = (
        "import sys; from pathlib import Path; import practice_server as p; "
        "p.serve(Path(sys.executable), Path(sys.argv[1]), Path(sys.argv[2]), "
        "lambda server: print(server.base, server.token, flush=True)); print('stopped', flush=True)"
    )
    caller = subprocess.Popen(
        [sys.executable, "-c", serve, tmp_path / "notebooks", tmp_path / "jupyter"],
        env={**os.environ, "PYTHONPATH": str(book_settings.ROOT / "conf")},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    started = []
    try:
        base, token = caller.stdout.readline().split()
        request = urllib.request.Request(f"{base}api/kernels?token={token}", data=b"{}", method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            kernel = json.load(answer)["id"]
        deadline = time.monotonic() + 60
        while len(practice_server.descendants(caller.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)  # the kernel's process starts below the server
        started[:] = practice_server.descendants(caller.pid)
        assert len(started) >= 2, f"no kernel process below the server: {started} (kernel {kernel})"
        os.killpg(caller.pid, getattr(signal, signal_name))
        assert caller.wait(timeout=60) == 0
        assert caller.stdout.read().strip() == "stopped"
        left = [pid for pid in started if practice_server.running(pid)]
        assert not left, f"still running after {signal_name}: {left}"
    finally:
        if caller.poll() is None:
            caller.kill()
            caller.wait()
        caller.stdout.close()
        for pid in started:  # what a failure left behind
            if practice_server.running(pid):
                os.kill(pid, signal.SIGKILL)
