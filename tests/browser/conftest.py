"""The built site served on 127.0.0.1, Debian's chromium driven by Playwright, and a record of
every request, console error and accessibility finding, written to build/browser-report.json.

Playwright is imported inside the fixtures, so only a test that drives the browser imports it: the
ordinary test run collects this folder and deselects it by marker.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import sys
import threading
from collections import Counter
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import assemble_site
import book_settings
from book_extensions import pages

SITE = Path(os.environ.get("BOOK_SITE", pages.ROOT / "build" / "site"))
AXE = Path(os.environ.get("BOOK_AXE", book_settings.NODE_TOOLS / "node_modules" / "axe-core" / "axe.min.js"))
CHROMIUM = Path(os.environ.get("BOOK_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = pages.ROOT / "build" / "screenshots"
SCREENSHOTS_TAKEN = os.environ.get("BOOK_NO_SCREENSHOTS") != "1"
REPORT = pages.ROOT / "build" / "browser-report.json"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Each device's browser context: its viewport, and a touch screen where a reader taps.
DEVICES = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "laptop": {"viewport": {"width": 1024, "height": 768}},
    "tablet": {"viewport": {"width": 820, "height": 1180}, "has_touch": True},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True},
}
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
INLINE_SCHEMES = {"data", "blob"}  # content the page already holds, not a request to a host


def book_pages(language: str) -> list[str]:
    """Every reader-facing page of one language in the built site, as paths below <lang>/."""
    return assemble_site.reader_pages(SITE, language)


@dataclass
class Totals:
    """What the session checked, for build/browser-report.json and the closing summary."""

    pages: set = field(default_factory=set)
    requests: int = 0
    external: list = field(default_factory=list)
    axe_scans: int = 0
    impacts: Counter = field(default_factory=Counter)
    violations: list = field(default_factory=list)
    screenshots: int = 0

    def add(self, other: dict) -> None:
        """Add up what an xdist worker checked (its Totals.as_json())."""
        self.pages |= set(other["pages_checked"])
        self.requests += other["requests_checked"]
        self.external += other["external_requests"]
        self.axe_scans += other["axe_scans"]
        self.impacts.update(other["axe_violations_per_impact"])
        self.violations += other["axe_violations"]
        self.screenshots += other["screenshots"]

    def as_json(self) -> dict:
        return {
            "pages_checked": sorted(self.pages),
            "requests_checked": self.requests,
            "external_requests": self.external,
            "axe_scans": self.axe_scans,
            "axe_violations_per_impact": {
                impact: self.impacts[impact] for impact in ("critical", "serious", "moderate", "minor")
            },
            "axe_violations": self.violations,
            "screenshots": self.screenshots,
        }


TOTALS = Totals()


class Tab:
    """One browser page in its own context, with every request and error it caused."""

    def __init__(self, context, base: str):
        self.context, self.base = context, base
        self.requests, self.errors = [], []
        # Service workers are blocked (new_context), so every request has the page that made it.
        context.on("request", lambda request: self.requests.append((request.url, request.frame.url)))
        self.page = context.new_page()
        self.page.on(
            "console",
            lambda message: (
                message.type == "error"
                and self.errors.append(
                    f"console error: {message.text} (in {message.location.get('url', '?')}, on {self.address()})"
                )
            ),
        )
        self.page.on(
            "pageerror", lambda error: self.errors.append(f"uncaught exception: {error} (on {self.address()})")
        )

    def goto(self, path: str):
        self.page.goto(self.base + path, wait_until="load")
        self.page.evaluate("document.fonts.ready.then(() => true)")
        TOTALS.pages.add(path.partition("?")[0])
        return self.page

    def path(self) -> str:
        """The page's path below the site's root, e.g. zh/graph-memory.html."""
        return urlsplit(self.page.url).path.removeprefix(urlsplit(self.base).path)

    def address(self) -> str:
        """The path and, readable, the query: which search an error came from, e.g. zh/search.html?q=叶子张量."""
        query = urlsplit(self.page.url).query
        return self.path() + (f"?{unquote(query)}" if query else "")

    def assert_clean(self) -> None:
        """No request left 127.0.0.1, and no script logged an error or threw."""
        external = [
            f"request to another host: {url} (from {page})"
            for url, page in self.requests
            if urlsplit(url).scheme not in INLINE_SCHEMES and urlsplit(url).hostname not in LOCAL_HOSTS
        ]
        TOTALS.requests += len(self.requests)
        TOTALS.external += external
        problems = external + self.errors
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)

    def screenshot(self, name: str) -> None:
        """The whole page, for a reviewer's eye: JPEG, which Chromium encodes faster than PNG.
        None under BOOK_NO_SCREENSHOTS=1 (.ci/run, whose clone no one looks into): the page is loaded and
        its fonts are ready before any check (goto), with or without one."""
        if not SCREENSHOTS_TAKEN:
            return
        out = SCREENSHOTS / f"{name}.jpg"
        out.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=out, full_page=True, animations="disabled", quality=80)
        TOTALS.screenshots += 1


# As GitHub Pages serves a project site: below /<repository>/ (the path of book_settings.SITE_URL),
# text compressed with gzip for a browser that accepts it, and the site's 404.html, with status 404,
# for any address that holds no file.
SUB_PATH = urlsplit(book_settings.SITE_URL).path
COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml", "application/xml")


class HostedSiteHandler(SimpleHTTPRequestHandler):
    compressed: dict[Path, bytes] = {}  # the site does not change while the tests run

    def log_message(self, format, *args):  # a line per file would bury pytest's output
        pass

    def translate_path(self, path: str) -> str:
        inside = urlsplit(path).path
        if not inside.startswith(SUB_PATH):
            return str(Path(self.directory) / "no-such-file")  # outside the project site: nothing there
        return super().translate_path(path.replace(SUB_PATH, "/", 1))

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.partition("?")[0].endswith("/"):
            path = path / "index.html"
        if not path.is_file():
            return self.send_file(Path(self.directory) / "404.html", 404)
        return self.send_file(path, 200)

    def send_file(self, path: Path, status: int):
        body, kind = path.read_bytes(), self.guess_type(str(path))
        zipped = kind.startswith(COMPRESSED_TYPES) and "gzip" in self.headers.get("Accept-Encoding", "")
        if zipped:
            body = self.compressed.setdefault(path, gzip.compress(body, compresslevel=6, mtime=0))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if zipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


class HostedSiteServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that closes a connection before the file is sent (leaving a page mid-load) is not
        an error of the site: only other exceptions are printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def pytest_generate_tests(metafunc):
    """`book_page`: every page of both languages found in the built site, e.g. zh/graph-lifecycle.html."""
    if "book_page" in metafunc.fixturenames:
        metafunc.parametrize(
            "book_page", [f"{language}/{name}" for language in pages.LANGUAGES for name in book_pages(language)]
        )


@pytest.fixture(scope="session")
def site_pages(site) -> dict[str, list[str]]:
    return {language: book_pages(language) for language in pages.LANGUAGES}


@pytest.fixture(scope="session")
def base_url(site) -> str:
    """The site over http on 127.0.0.1, so that every request the pages make is a real one, served
    as hosted: below the project's sub-path, with gzip (HostedSiteHandler)."""
    server = HostedSiteServer(("127.0.0.1", 0), functools.partial(HostedSiteHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}{SUB_PATH}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.is_file():
        pytest.fail(f"no chromium at {CHROMIUM}: run apt-get install chromium fonts-noto-cjk")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Debian's chromium: Playwright's own browser download is never used (`playwright install` fails here).
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_tab(browser, base_url):
    """open_tab(device, scheme) -> a Tab at that viewport whose system colour scheme is light or dark."""
    contexts = []

    def open_(device: str = "desktop", scheme: str = "light") -> Tab:
        context = browser.new_context(**DEVICES[device], color_scheme=scheme, service_workers="block")
        contexts.append(context)
        return Tab(context, base_url)

    yield open_
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def totals() -> Totals:
    return TOTALS


@pytest.fixture(scope="session")
def axe_script() -> Path:
    if not AXE.is_file():
        pytest.fail(f"no axe-core at {AXE}: `nox -s browser` installs it (npm ci --prefix tests/node)")
    return AXE


# nox -s browser runs these tests on one xdist worker per core: each fills its own TOTALS, which the
# controller adds up before its summary.
def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["browser_totals"] = TOTALS.as_json()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    if found := node.workeroutput.get("browser_totals"):
        TOTALS.add(found)


def pytest_terminal_summary(terminalreporter):
    if not TOTALS.pages:  # browser tests deselected: nothing to report
        return
    REPORT.write_text(json.dumps(TOTALS.as_json(), ensure_ascii=False, indent=2), encoding="utf-8")
    impacts = ", ".join(f"{impact} {count}" for impact, count in TOTALS.as_json()["axe_violations_per_impact"].items())
    terminalreporter.write_sep("-", "browser")
    terminalreporter.write_line(
        f"{len(TOTALS.pages)} pages visited, {TOTALS.requests} requests checked "
        f"({len(TOTALS.external)} to other hosts), {TOTALS.axe_scans} axe scans: violations {impacts}; "
        f"{TOTALS.screenshots} screenshots in {pages.relative(SCREENSHOTS)}"
        f"{'' if SCREENSHOTS_TAKEN else ' (BOOK_NO_SCREENSHOTS=1)'}; report {pages.relative(REPORT)}"
    )
