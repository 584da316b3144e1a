"""Every page of the built site, in both languages, as a reader's browser shows it (`nox -s browser`).

The pages are found in the built site, so a merged chapter is covered without editing this file.
Every test ends by failing on any request that left 127.0.0.1 and on any console error.
Screenshots of every page (light and dark, desktop and phone) land in build/screenshots/ (none with
BOOK_NO_SCREENSHOTS=1).
"""

import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest

import book_settings
from book_extensions import pages
from book_extensions.highlighting import BLOCK_LANGUAGES
from book_extensions.snippet_cells import glue_lines

pytestmark = pytest.mark.browser

OTHER = {"zh": "en", "en": "zh"}
SEARCHES = [  # (language, query, the page that must be the first result)
    ("zh", "累加", "gradient-accumulation.html"),
    ("zh", "叶子张量", "leaf-tensors.html"),
    ("zh", "计算图", "graph-lifecycle.html"),
    ("zh", "retain_graph", "retain-graph.html"),
    ("en", "leaf tensor", "leaf-tensors.html"),
    ("en", "gradient accumulation", "gradient-accumulation.html"),
]
EVERYWHERE = "autograd"  # a word on every page of both languages: the search from any page finds something
SERIOUS = {"serious", "critical"}
# Elements wider than the viewport, leaving out what cannot widen the page: hidden or fixed
# (off-canvas sidebars) elements, and anything inside an element that scrolls on its own (code).
OVERFLOWING = """() => {
  const width = window.innerWidth;
  const excused = (el) => {
    if (getComputedStyle(el).visibility === "hidden") return true;
    for (let up = el; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.position === "fixed" || (up !== el && ["auto", "scroll", "hidden"].includes(style.overflowX))) return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : "") + [...el.classList].map((c) => `.${c}`).join("");
  const culprits = [...document.body.querySelectorAll("*")]
    .filter((el) => el.getBoundingClientRect().right > width + 1 && !excused(el))
    .slice(0, 5)
    .map((el) => `${name(el)} (right edge at ${Math.round(el.getBoundingClientRect().right)} px)`);
  return {scrollWidth: document.documentElement.scrollWidth, width, culprits};
}"""
# Only the violations are read: resultTypes spares axe-core the details of every passing node.
AXE_RUN = """async () => (await axe.run({ resultTypes: ["violations"] })).violations.map((v) => ({
  id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
  targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
}))"""
# Before a scan: the page at its top (text under the sticky header would be left unjudged), every
# closed <details> (answers, version folds) opened and marked, scanned too, and colours measured
# after the theme settles (mid-transition colours are not what a reader sees). After: as it was.
SETTLE_FOR_AXE = """() => {
  window.bookScrollBeforeAxe = window.scrollY;
  window.scrollTo({top: 0, behavior: "instant"});
  document.querySelectorAll("details:not([open])").forEach((d) => { d.open = true; d.dataset.axeOpened = ""; });
  const still = document.head.appendChild(document.createElement("style"));
  still.id = "axe-still";
  still.textContent = "*, *::before, *::after { transition: none !important; animation: none !important; }";
}"""
UNSETTLE_AFTER_AXE = """() => {
  document.querySelectorAll("details[data-axe-opened]").forEach((d) => { d.open = false; delete d.dataset.axeOpened; });
  document.getElementById("axe-still").remove();
  window.scrollTo({top: window.bookScrollBeforeAxe, behavior: "instant"});
}"""


# Every icon the reader can see (the theme's <i class="fa-…"> elements and the glyphs its stylesheet
# draws, e.g. beside an admonition's title), with what paints it: icon_masks.py's SVG mask, or not.
ICONS_SHOWN = """() => {
  const icons = [...document.querySelectorAll('i[class*="fa-"]')].map((el) => [el, "::before"]);
  icons.push(...[...document.querySelectorAll(".admonition-title")].map((el) => [el, "::after"]));
  return icons.filter(([el]) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
    .map(([el, pseudo]) => {
      const style = getComputedStyle(el, pseudo);
      const mask = style.maskImage || style.webkitMaskImage || "none";
      return {icon: `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}${pseudo}`,
              masked: mask.startsWith('url("data:image/svg+xml'), size: parseFloat(style.width) * parseFloat(style.height)};
    });
}"""
FONT_FILE = (".woff2", ".woff", ".ttf", ".otf")
# The lines of printed outputs that a table's columns split across line boxes. A line belongs to a
# table when a run of two or more spaces ends at the same column in it and in the line above or
# below (read from the text, not from how the build marked the lines); it must lie on one line box.
BROKEN_COLUMNS = """() => {
  const starts = (line) => new Set([...line.matchAll(/\\S {2,}(?=\\S)/g)].map((m) => m.index + m[0].length));
  const broken = []; let tables = 0;
  for (const pre of document.querySelectorAll("div.cell_output pre")) {
    const lines = pre.textContent.split("\\n"), columns = lines.map(starts), texts = [];
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let node, at = 0; (node = walker.nextNode()); at += node.length) texts.push([node, at]);
    const point = (offset) => { const [node, at] = texts.findLast(([, at]) => at <= offset); return [node, offset - at]; };
    let start = 0, table = false;
    lines.forEach((line, i) => {
      const aligned = [...columns[i]].some((c) => columns[i - 1]?.has(c) || columns[i + 1]?.has(c));
      if (aligned) {
        table = true;
        const range = document.createRange();
        range.setStart(...point(start));
        range.setEnd(...point(start + line.length));
        const tops = new Set([...range.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(line);
      }
      start += line.length + 1;
    });
    tables += table;
  }
  return {tables, broken};
}"""
# Python blocks whose text that pygments.css gives no colour (what book_extensions/highlighting.py lexes
# as plain text) is not drawn in the style's text colour, the colour of their .highlight box (book.css).
OFF_COLOUR_CODE = """(languages) => languages.flatMap((language) => [
  ...document.querySelectorAll(`div.highlight-${language} > div.highlight > pre`)])
  .filter((pre) => getComputedStyle(pre).color !== getComputedStyle(pre.parentElement).color)
  .map((pre) => pre.textContent.split("\\n")[0])"""
# What hinders reading on a phone: a copy button over the first line of its code or output (a
# phone shows them without hover), a glued number broken over two lines, a section heading set
# larger than the chapter title.
PHONE_READING = """() => {
  const covering = [], brokenNumbers = [];
  for (const button of document.querySelectorAll(".highlight > button.copybtn")) {
    const pre = button.parentElement.querySelector(":scope > pre");
    if (!pre || !button.getClientRects().length) continue;
    const textTop = pre.getBoundingClientRect().top + parseFloat(getComputedStyle(pre).paddingTop);
    if (button.getBoundingClientRect().bottom > textTop + 1) covering.push(pre.textContent.split("\\n")[0]);
  }
  for (const number of document.querySelectorAll("span.pasted-text")) {
    const lines = new Set([...number.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top)));
    if (lines.size > 1) brokenNumbers.push(number.textContent);
  }
  const lonelyMarks = [];  // a ✓ wrapped onto a line without the end of its sentence
  for (const mark of document.querySelectorAll("button.claim-mark")) {
    const joined = mark.parentElement.classList.contains("claim-mark-joiner") ? mark.parentElement : mark;
    const before = joined.previousSibling, at = mark.getBoundingClientRect();
    if (!mark.getClientRects().length || !before) continue;
    let end;
    if (before.nodeType === Node.TEXT_NODE) {
      const last = before.textContent.trimEnd().length;
      if (!last) continue;
      const range = document.createRange();
      range.setStart(before, last - 1);
      range.setEnd(before, last);
      end = range.getBoundingClientRect();
    } else {
      end = [...before.getClientRects()].pop();
    }
    if (end && at.top >= end.bottom - 2) lonelyMarks.push(mark.closest("p, li")?.textContent.slice(-60));
  }
  const shrunkFigures = [...document.querySelectorAll(".bd-article figure img")]  // shown below their own size
    .filter((img) => img.getClientRects().length && img.getBoundingClientRect().width < img.naturalWidth - 1)
    .map((img) => `${img.alt.slice(0, 40)}: ${Math.round(img.getBoundingClientRect().width)} of ${img.naturalWidth} px`);
  const unfocusable = [...document.querySelectorAll(".bd-article figure")]
    .filter((figure) => figure.scrollWidth > figure.clientWidth && figure.tabIndex !== 0).length;
  const size = (selector) => { const e = document.querySelector(selector); return e && parseFloat(getComputedStyle(e).fontSize); };
  return {covering, brokenNumbers, lonelyMarks, shrunkFigures, unfocusable, title: size(".bd-article h1"), section: size(".bd-article h2")};
}"""
# The drawers the article header's buttons open below the theme's breakpoints: chapters, sections.
DRAWERS = {".primary-toggle": "#pst-primary-sidebar-modal", ".secondary-toggle": "#pst-secondary-sidebar-modal"}
# Each value <html data-theme> had when a script set it once the <body> had begun (in the <head>,
# the theme's inline script sets it before a single element is styled), in order; THEMES_TAKEN adds
# the value it has now. A write is recorded even when it leaves the value as it was, so the theme's
# own write (setTheme(), once the page is parsed) always adds one.
RECORD_THEMES = """window.bookThemes = [];
new MutationObserver((records) => records.forEach((record) => {
  if (document.body && record.target === document.documentElement) window.bookThemes.push(record.oldValue);
})).observe(document, {subtree: true, attributeOldValue: true, attributeFilter: ["data-theme"]});"""
THEMES_TAKEN = "[...window.bookThemes, document.documentElement.dataset.theme]"


def assert_theme_set_once(page, book_page: str, scheme: str) -> None:
    """<html data-theme> was `scheme` right from the <head>, so that the theme's script set the same
    value and the browser had no reason to restyle the whole page (the css block of conf/_templates/layout.html)."""
    taken = page.evaluate(THEMES_TAKEN)
    assert len(taken) >= 2, f"{book_page}: the theme's own write of data-theme was not recorded ({taken})"
    assert set(taken) == {scheme}, (
        f"{book_page}: <html data-theme> was {taken} in turn while loading, not only {scheme!r}"
    )


def shot(book_page: str, scheme: str, device: str) -> str:
    """zh/graph-lifecycle.html -> zh/graph-lifecycle-dark-phone"""
    return f"{book_page.removesuffix('.html')}-{scheme}-{device}"


def theme(page) -> str:
    return page.evaluate("document.documentElement.dataset.theme")


def search_results(page, language: str) -> list[str]:
    """The result pages in order (paths below <language>/), once Sphinx's search says it finished."""
    page.wait_for_function("document.querySelector('p.search-summary')?.innerText.trim()")
    paths = page.locator("ul.search > li > a").evaluate_all("links => links.map((a) => new URL(a.href).pathname)")
    # Below the site's root, wherever it is served (a sub-path, as on GitHub Pages): the search page's own folder.
    here = urlsplit(page.url).path.rpartition("/")[0] + "/"
    return [path.removeprefix(here) for path in paths]


def test_both_languages_hold_the_same_pages(site_pages):
    assert "index.html" in site_pages["zh"], f"no zh/index.html among the built pages: {site_pages['zh']}"
    assert site_pages["zh"] == site_pages["en"], f"zh has {site_pages['zh']}, en has {site_pages['en']}"


def test_desktop_page_from_icons_to_search_and_language_switch(open_tab, axe_script, totals, book_page):
    """One desktop tab per page, not a page load per check, in a reader's order: axe-core scans the
    light page; no icon font or icon script is fetched and every icon is painted (icon_masks.py); the
    light screenshot; the theme's switch turns the page dark; the dark screenshot; a "differs on
    torch …" fold opens to its diff, a claim's mark opens its check and Escape closes it; the first
    folded answer opens; the search box finds pages and the search page keeps the reader's dark mode;
    back on the page, the language switch leads to its twin, still dark, which axe-core scans (so every
    page is scanned light in its own walk and dark in its twin's). A check no later step depends on
    (scans, icons, folds and claims, answers) is reported at the end, with any other that failed, so
    one failure hides neither the screenshots nor the remaining checks."""
    language, name = book_page.split("/", 1)
    failed = []

    def check(assertions, *args):
        try:
            assertions(*args)
        except AssertionError as error:
            failed.append(str(error))

    tab = open_tab("desktop", "light")
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = tab.goto(book_page)
    assert theme(page) == "light", f"{book_page} did not open light on a light system"
    check(assert_no_serious_accessibility_violation, page, axe_script, totals, book_page, "light")
    try:
        check(assert_icons_painted_without_fonts, tab, book_page)
        check(assert_copy_button_copies_the_code, page, book_page)
        tab.screenshot(shot(book_page, "light", "desktop"))

        page.locator(".theme-switch-button").filter(visible=True).first.click()
        page.locator(".theme-change-button[data-mode=dark]").filter(visible=True).first.click()
        assert theme(page) == "dark", f"{book_page}: the theme switch did not turn the page dark"
        page.mouse.move(0, 0)  # the menu stays open while the pointer hovers it
        tab.screenshot(shot(book_page, "dark", "desktop"))

        check(assert_version_difference_and_claim_check_open, page, book_page)
        check(assert_first_answer_opens, page, book_page)

        page.locator(".search-button-field").filter(visible=True).first.click()
        box = page.locator("#pst-search-dialog input[name=q]")
        box.fill(EVERYWHERE)
        box.press("Enter")
        page.wait_for_url("**/search.html?q=*")
        assert search_results(page, language), f"searching {EVERYWHERE!r} from {book_page} found nothing"
        assert theme(page) == "dark", "the reader's dark mode did not carry over to the search page"

        # Back on the page, the search dialog must be closed, or the language switch behind it is inert.
        # (Playwright's chromium loads the page afresh: it runs without the back/forward cache, which
        # would restore the dialog as it was, open.)
        page.go_back(wait_until="load")
        assert tab.path() == book_page, f"going back from the search page led to {tab.path()}, not {book_page}"
        assert not page.locator("#pst-search-dialog").evaluate("dialog => dialog.open"), (
            f"{book_page}: the search dialog is still open after going back to the page"
        )
        with page.expect_navigation():
            page.locator("a.btn-language-switch").filter(visible=True).first.click()
        assert tab.path() == f"{OTHER[language]}/{name}", f"the language switch of {book_page} led to {tab.path()}"
        assert page.evaluate("document.documentElement.lang").startswith(OTHER[language]), (
            f"the language switch of {book_page} led to a page whose lang is not {OTHER[language]}"
        )
        assert theme(page) == "dark", f"the reader's dark mode did not carry over the language switch of {book_page}"
    except Exception as error:  # a step that stops the walk still reports what the checks before it found
        if failed:
            raise AssertionError("\n".join([str(error), *failed])) from error
        raise
    check(assert_no_serious_accessibility_violation, page, axe_script, totals, tab.path(), "dark")
    assert not failed, "\n".join(failed)
    tab.assert_clean()


def assert_no_serious_accessibility_violation(page, axe_script: Path, totals, book_page: str, scheme: str) -> None:
    """axe-core finds no serious or critical violation on the page, scanned from its top with every
    closed <details> open and its colours settled (no transition, fonts ready); then the page is put
    back as it was (SETTLE_FOR_AXE, UNSETTLE_AFTER_AXE)."""
    page.evaluate(SETTLE_FOR_AXE)
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(200)
    page.add_script_tag(path=axe_script)  # inlined into this page only: the site never ships axe
    violations = page.evaluate(AXE_RUN)
    page.evaluate(UNSETTLE_AFTER_AXE)
    totals.axe_scans += 1
    for violation in violations:
        totals.impacts[violation["impact"]] += 1
        totals.violations.append({"page": book_page, "scheme": scheme, **violation})
    serious = [
        f"{v['id']} ({v['impact']}, {v['nodes']}×): {v['help']}; e.g. {', '.join(v['targets'][:3])}"
        for v in violations
        if v["impact"] in SERIOUS
    ]
    assert not serious, f"axe on {book_page} ({scheme}):\n" + "\n".join(serious)


def copied_code(snippet: Path) -> str:
    """What a cell's copy button should copy: the snippet without the lines that only glue."""
    dimmed = set(glue_lines(snippet))
    lines = snippet.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for number, line in enumerate(lines, 1) if number not in dimmed).strip()


def assert_copy_button_copies_the_code(page, book_page: str, nth: int = 0, tap: bool = False) -> None:
    """The copy button of a code cell puts its snippet's code on the clipboard, without the glue lines."""
    cells = page.locator("div.cell")
    if cells.count() <= nth:
        return
    cell = cells.nth(nth)
    snippet = pages.ROOT / cell.locator("p.snippet-source code").inner_text().strip()
    code = cell.locator("div.cell_input div.highlight")
    code.scroll_into_view_if_needed()
    button = code.locator("button.copybtn")
    if tap:  # a touch screen has no hover: the button must show without one
        opacity = float(button.evaluate("b => getComputedStyle(b).opacity"))
        assert opacity >= 0.5, f"{book_page}: on a touch screen the copy button's opacity is {opacity}"
        button.tap()
    else:
        code.hover()
        button.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == copied_code(snippet), (
        f"{book_page}: the copy button copied {copied[:80]!r}, not {pages.relative(snippet)} without its glue lines"
    )


def assert_first_answer_opens(page, book_page: str) -> None:
    answers = page.locator("details.sd-dropdown")
    if answers.count():
        assert not answers.first.evaluate("details => details.open"), f"{book_page}: the first answer is not folded"
        answers.first.locator(":scope > summary").click()
        assert answers.first.evaluate("details => details.open"), f"{book_page}: the first dropdown did not open"
        assert answers.first.locator(".sd-summary-content").is_visible(), f"{book_page}: the answer stays hidden"


def assert_icons_painted_without_fonts(tab, book_page: str) -> None:
    """icon_masks.py: the page fetched no icon font and no fontawesome.js, and every icon it shows
    is painted (an SVG mask of non-zero size), so none is blank without the fonts."""
    heavy = [url for url, _ in tab.requests if urlsplit(url).path.endswith(FONT_FILE) or "fontawesome" in url]
    assert not heavy, f"{book_page} fetched {heavy}"
    icons = tab.page.evaluate(ICONS_SHOWN)
    assert icons, f"{book_page} shows no icon: the selectors no longer match the theme"
    blank = [icon["icon"] for icon in icons if not icon["masked"] or not icon["size"]]
    assert not blank, f"{book_page}: icons not painted by an SVG mask: {blank}"


def assert_version_difference_and_claim_check_open(page, book_page: str) -> None:
    """A "differs on torch …" fold under an output opens to its diff; a claim's mark opens its
    check's code and the versions it passed on, and Escape closes it again."""
    folds = page.locator("details.torch-difference")
    if folds.count():
        fold = folds.first
        assert not fold.evaluate("details => details.open"), f"{book_page}: the version difference is not folded"
        fold.locator(":scope > summary").click()
        assert fold.locator("pre").is_visible(), f"{book_page}: the version difference did not open"
    marks = page.locator("button.claim-mark").filter(visible=True)  # not those inside folded answers
    if marks.count():
        check = assert_claim_check_opens_below_its_sentence(page, book_page, marks.first, tap=False)
        page.keyboard.press("Escape")
        assert not check.is_visible(), f"{book_page}: Escape did not close the check"
        marks.first.click()
        check.locator("button.claim-check-close").click()
        assert not check.is_visible(), f"{book_page}: the check's close button did not close it"


def assert_claim_check_opens_below_its_sentence(page, book_page: str, mark, tap: bool):
    """A claim's mark is a target of at least 24 x 24 px; it opens a sheet that leads with the
    sentence the check proves, shows the check's highlighted code and leaves the mark in view above it."""
    mark.scroll_into_view_if_needed()
    box = mark.bounding_box()
    assert box["width"] >= 24 and box["height"] >= 24, (
        f"{book_page}: a claim mark is only {box['width']} x {box['height']} px"
    )
    check = page.locator(f"#{mark.get_attribute('popovertarget')}")
    assert not check.is_visible(), f"{book_page}: a claim's check shows before its mark is pressed"
    mark.tap() if tap else mark.click()
    assert check.is_visible(), f"{book_page}: pressing the claim mark did not open its check"
    assert check.locator(".claim-check-sentence").inner_text().strip(), (
        f"{book_page}: the check opens without its sentence"
    )
    code = check.locator("code.claim-check-code")
    assert "def " in code.inner_text() and code.locator("span").count(), (
        f"{book_page}: the check's code is missing or not highlighted"
    )
    sheet, mark_box = check.bounding_box(), mark.bounding_box()
    assert 0 <= mark_box["y"] and mark_box["y"] + mark_box["height"] <= sheet["y"], (
        f"{book_page}: the check's sheet (top at {sheet['y']:.0f} px) covers the sentence's mark (at {mark_box['y']:.0f} px)"
    )
    assert check.locator("button.claim-check-close").is_visible(), f"{book_page}: the check has no visible close button"
    return check


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_phone_page_fits_the_screen(open_tab, book_page, scheme):
    tab = open_tab("phone", scheme)
    tab.context.add_init_script(RECORD_THEMES)
    page = tab.goto(book_page)
    assert theme(page) == scheme, "until the reader picks a mode, the page follows the system's colour scheme"
    assert_theme_set_once(page, book_page, scheme)
    tab.screenshot(shot(book_page, scheme, "phone"))
    found = page.evaluate(OVERFLOWING)
    assert found["scrollWidth"] <= found["width"] + 1, (
        f"{book_page} is {found['scrollWidth']} px wide on a {found['width']} px phone; too wide: {found['culprits']}"
    )
    columns = page.evaluate(BROKEN_COLUMNS)
    assert not columns["broken"], f"{book_page}: table lines wrapped on a phone: {columns['broken'][:5]}"
    off_colour = page.evaluate(OFF_COLOUR_CODE, list(BLOCK_LANGUAGES))
    assert not off_colour, f"{book_page}: Python's plain text is not in its style's colour in {off_colour[:3]}"
    reading = page.evaluate(PHONE_READING)
    assert not reading["covering"], f"{book_page}: copy buttons cover the first line of {reading['covering'][:3]}"
    assert not reading["brokenNumbers"], (
        f"{book_page}: glued numbers broken over two lines: {reading['brokenNumbers'][:5]}"
    )
    assert not reading["shrunkFigures"], (
        f"{book_page}: figures shrunk below their own size on a phone: {reading['shrunkFigures']}"
    )
    assert not reading["unfocusable"], (
        f"{book_page}: {reading['unfocusable']} figure(s) scroll sideways but take no focus"
    )
    assert not reading["lonelyMarks"], (
        f"{book_page}: a claim mark wrapped alone onto a line after {reading['lonelyMarks'][:3]}"
    )
    assert not reading["section"] or reading["section"] < reading["title"], (
        f"{book_page}: a section heading ({reading['section']} px) is larger than the title ({reading['title']} px)"
    )
    if scheme == "light":
        assert_drawers_open_and_close(page, book_page, "phone")
        marks = page.locator("button.claim-mark").filter(visible=True)
        if marks.count():
            check = assert_claim_check_opens_below_its_sentence(
                page, book_page, marks.nth(marks.count() // 2), tap=True
            )
            check.locator("button.claim-check-close").tap()
            assert not check.is_visible(), f"{book_page}: tapping the check's close button did not close it"
        folds = page.locator("details.torch-difference > summary").filter(visible=True)
        if folds.count():
            folds.first.tap()
            assert folds.first.locator("xpath=..").evaluate("d => d.open"), (
                f"{book_page}: tapping a version fold did not open it"
            )
        answers = page.locator("details.sd-dropdown > summary").filter(visible=True)
        if answers.count():
            answers.first.tap()
            assert answers.first.locator("xpath=..").evaluate("d => d.open"), (
                f"{book_page}: tapping an answer did not open it"
            )
        page.locator(".theme-switch-button").filter(visible=True).first.tap()
        page.locator(".theme-change-button[data-mode=dark]").filter(visible=True).first.tap()
        assert theme(page) == "dark", f"{book_page}: tapping the colour switch on a phone did not turn the page dark"
    tab.assert_clean()


def assert_drawers_open_and_close(page, book_page: str, device: str) -> None:
    """The article header's ☰ opens the chapter drawer (which leads home) and its contents button the
    section drawer; a tap beside a drawer closes it. A page without sections has no contents button."""
    width = page.viewport_size["width"]
    for button, drawer in DRAWERS.items():
        toggle = page.locator(f".bd-header-article {button}")
        if button == ".secondary-toggle" and not toggle.count():
            continue
        assert toggle.is_visible(), f"{book_page} ({device}): no visible {button} button"
        toggle.tap() if device in ("phone", "tablet") else toggle.click()
        dialog = page.locator(drawer)
        page.wait_for_function(f"document.querySelector('{drawer}').open")
        dialog.evaluate("d => Promise.all(d.getAnimations({subtree: true}).map((a) => a.finished))")
        links = dialog.locator("a").filter(visible=True)
        assert links.count(), f"{book_page} ({device}): the drawer {drawer} opened empty"
        if button == ".primary-toggle" and not book_page.endswith("/index.html"):
            home = dialog.locator("a[href$='index.html']").filter(visible=True)
            assert home.count(), f"{book_page} ({device}): the chapter drawer has no link to the landing page"
        box = dialog.bounding_box()
        right = box["x"] + box["width"]
        beside = box["x"] / 2 if box["x"] > width - right else (right + width) / 2
        page.mouse.click(beside, 400)
        page.wait_for_function(f"!document.querySelector('{drawer}').open")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_phone_reader_jumps_to_a_section_copies_code_and_switches_language(open_tab, language):
    """On a phone: a section tapped in the section drawer closes the drawer with that section at the
    top; a copy button shows without hover and copies the code without its glue lines; the language
    switch opens the twin page at the same section."""
    chapter = f"{language}/gradient-accumulation.html"
    tab = open_tab("phone")
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = tab.goto(chapter)
    page.locator(".bd-header-article .secondary-toggle").tap()
    page.wait_for_function("document.querySelector('#pst-secondary-sidebar-modal').open")
    drawer = page.locator("#pst-secondary-sidebar-modal")
    drawer.evaluate("d => Promise.all(d.getAnimations({subtree: true}).map((a) => a.finished))")
    link = drawer.locator("a[href^='#']").filter(visible=True).nth(3)
    section = link.get_attribute("href").removeprefix("#")
    link.tap()
    page.wait_for_function("!document.querySelector('#pst-secondary-sidebar-modal').open")
    page.wait_for_timeout(300)
    top = page.evaluate(f"document.getElementById({section!r}).getBoundingClientRect().top")
    assert 0 <= top < 200, f"{chapter}: after tapping #{section} in the drawer, it is at {top} px, not at the top"
    # The glue lines are in a later cell: the first one with a dimmed line.
    nth = page.evaluate("[...document.querySelectorAll('div.cell')].findIndex((c) => c.querySelector('.hll'))")
    assert nth >= 0, f"{chapter}: no code cell has a glue line to leave out"
    assert_copy_button_copies_the_code(page, chapter, nth=nth, tap=True)
    # The section's heading where a followed link puts it (below the sticky header), then a little on.
    page.evaluate(f"document.getElementById({section!r}).scrollIntoView()")
    page.evaluate("window.scrollBy(0, 30)")
    # Tapped where the reader sees it, in the sticky header: Playwright's tap() would first scroll it
    # to the middle of the screen, which a reader's finger does not do.
    switch = page.locator("a.btn-language-switch").filter(visible=True).first.bounding_box()
    assert 0 <= switch["y"] < 100, f"{chapter}: while reading #{section}, the language switch is at {switch['y']} px"
    page.touchscreen.tap(switch["x"] + switch["width"] / 2, switch["y"] + switch["height"] / 2)
    page.wait_for_url(f"**/{OTHER[language]}/gradient-accumulation.html#{section}")
    top = page.evaluate(f"document.getElementById({section!r}).getBoundingClientRect().top")
    assert 0 <= top < 200, f"{chapter}: the twin page opened with #{section} at {top} px"
    tab.assert_clean()


@pytest.mark.parametrize("device", ["tablet", "laptop"])
@pytest.mark.parametrize("chapter", ["zh/retain-graph.html", "en/hooks.html"])
def test_drawers_open_and_close_on_a_tablet_and_a_narrow_laptop(open_tab, chapter, device):
    """Below the theme's breakpoints the sidebars become drawers: at 820 px both, at 1024 px the
    sections (the chapter list still shows, and ☰ hides and shows it again)."""
    tab = open_tab(device)
    page = tab.goto(chapter)
    if device == "tablet":
        assert_drawers_open_and_close(page, chapter, device)
    else:
        sidebar = page.locator("#pst-primary-sidebar")
        assert sidebar.is_visible(), f"{chapter}: no chapter list at 1024 px"
        page.locator(".bd-header-article .primary-toggle").click()
        shown = "document.querySelector('#pst-primary-sidebar').checkVisibility({visibilityProperty: true})"
        page.wait_for_function(f"!{shown}")
        page.locator(".bd-header-article .primary-toggle").click()
        page.wait_for_function(shown)
        toggle = page.locator(".bd-header-article .secondary-toggle")
        toggle.click()
        page.wait_for_function("document.querySelector('#pst-secondary-sidebar-modal').open")
        page.keyboard.press("Escape")
        page.wait_for_function("!document.querySelector('#pst-secondary-sidebar-modal').open")
    tab.assert_clean()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_later_visit_follows_a_changed_system_scheme_from_the_head(open_tab, scheme):
    """The first visit stores mode "auto" and the theme it resolved; when the system's scheme has
    changed by the next visit, the head already follows it (conf/_templates/layout.html), not the
    stored theme that the theme's script would then overwrite."""
    book_page, other = "en/graph-memory.html", {"light": "dark", "dark": "light"}[scheme]
    tab = open_tab("phone", scheme)
    tab.context.add_init_script(RECORD_THEMES)
    tab.goto(book_page)
    assert tab.page.evaluate("[localStorage.getItem('mode'), localStorage.getItem('theme')]") == ["auto", scheme]
    tab.page.emulate_media(color_scheme=other)
    page = tab.goto(book_page)
    assert_theme_set_once(page, book_page, other)
    tab.assert_clean()


@pytest.mark.parametrize(("language", "query", "expected"), SEARCHES, ids=[f"{lang}-{q}" for lang, q, _ in SEARCHES])
def test_search_puts_the_page_first(open_tab, language, query, expected):
    tab = open_tab()
    page = tab.goto(f"{language}/search.html?q={quote(query)}")
    found = search_results(page, language)
    assert found[:1] == [expected], (
        f"searching the {language} site for {query!r}: expected {expected} first, the results begin "
        f"{found[:5] or 'empty (no result)'}"
    )
    assert_summaries_come_from_the_prose(page, f"{language}: {query!r}")
    switch = page.locator("a.btn-language-switch").filter(visible=True).first
    switch.click()
    page.wait_for_url(re.compile(r"/(zh|en)/search\.html\?"))
    assert parse_qs(urlsplit(page.url).query).get("q") == [query], (
        f"the language switch on the {language} search page dropped the query {query!r}: {page.url}"
    )
    search_results(page, "en" if language == "zh" else "zh")  # the twin page ran the search and said so
    tab.assert_clean()


def test_a_chinese_phrase_the_index_lacks_is_cut_into_its_words(open_tab):
    """jieba cut 自定义函数 into 自定义 and 函数 when it indexed the pages; zh_split_query.js cuts the
    query the same way, so the phrase finds the chapter (among the first three, as glossary terms must)."""
    tab = open_tab()
    found = search_results(tab.goto(f"zh/search.html?q={quote('自定义函数')}"), "zh")
    assert "custom-functions.html" in found[:3], f"searching the zh site for 自定义函数: {found[:5] or 'no result'}"
    tab.assert_clean()


# Words of the page's controls, of the hidden claim checks and of the lines under the title (execution
# badge, reading time), which a result's summary must not quote.
NOT_PROSE = (
    "System Settings",
    "跟随系统",
    "浅色",
    "深色",
    "def ",
    "assert ",
    "Executed with torch",
    "实际执行",
    "min to read",
    "阅读约",
)


def assert_summaries_come_from_the_prose(page, search: str) -> None:
    page.wait_for_function("document.querySelectorAll('ul.search > li > p.context').length > 0")
    summaries = page.locator("ul.search > li > p.context").all_inner_texts()
    quoting = [summary for summary in summaries if any(words in summary for words in NOT_PROSE)]
    assert not quoting, f"search {search}: summaries quote the page's controls or its checks' code: {quoting[:2]}"


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_search_field_icon_leaves_the_query_readable(open_tab, device):
    tab = open_tab(device)
    page = tab.goto("zh/search.html?q=%E5%8F%B6%E5%AD%90%E5%BC%A0%E9%87%8F")
    field = page.locator("form.bd-search").filter(visible=True).first
    icon, box = (
        field.locator("i, svg, .fa-magnifying-glass").first.bounding_box(),
        field.locator("input").bounding_box(),
    )
    text_starts = box["x"] + float(
        field.locator("input").evaluate("i => getComputedStyle(i).paddingLeft").removesuffix("px")
    )
    assert text_starts >= icon["x"] + icon["width"], (
        f"{device}: the search field's text starts at {text_starts:.0f} px, under its icon (to {icon['x'] + icon['width']:.0f} px)"
    )
    tab.assert_clean()


@pytest.mark.parametrize("language", pages.LANGUAGES)
def test_the_landing_page_gives_the_length_and_a_start(open_tab, language):
    """Every chapter with its reading time, a total that adds them up, and a button into chapter 1."""
    tab = open_tab("phone")
    page = tab.goto(f"{language}/index.html")
    rows = page.locator("table.chapter-times tbody tr").all()
    minutes = [int(re.search(r"(\d+)", row.locator("td").last.inner_text()).group(1)) for row in rows[:-1]]
    chapters = [row.locator("a").get_attribute("href") for row in rows[:-1]]
    assert len(chapters) == 14 and all(m > 0 for m in minutes), (chapters, minutes)
    total = rows[-1].locator("td").last.inner_text()
    assert f"{sum(minutes)}" in total, f"{language}: the total {total!r} is not the sum of {minutes}"
    with page.expect_navigation():
        page.locator("a.sd-btn").filter(visible=True).first.tap()
    assert tab.path() == f"{language}/{chapters[0]}", f"{language}: the start button led to {tab.path()}"
    tab.assert_clean()


@pytest.mark.parametrize("language", pages.LANGUAGES)
def test_the_verification_appendix_opens_with_its_verdict(open_tab, language):
    """The verdict is the page's first paragraph; the grid shows only the snippets that differ somewhere,
    and folds the rest."""
    tab = open_tab()
    page = tab.goto(f"{language}/verification.html")
    first = page.locator("article p:not(.execution-badge)").first  # the badge under every page's title comes first
    assert "verification-verdict" in (first.get_attribute("class") or ""), (
        f"{language}: the page opens with {first.inner_text()!r}"
    )
    grids = page.locator("table.verification-grid")
    shown = [row.inner_text() for row in grids.first.locator("tbody tr").all()]
    same = {"en": "same as default", "zh": "与默认版本相同"}[language]
    assert all(row.count(same) < len(book_settings.TORCH_VERSIONS) for row in shown), (
        f"{language}: a row of sames is shown"
    )
    folds = page.locator("details.torch-difference", has=page.locator("table.verification-grid"))
    assert all(not fold.evaluate("d => d.open") for fold in folds.all()), f"{language}: the sames are not folded"
    tab.assert_clean()


def glossary_searches(language: str) -> list[tuple[str, set[str]]]:
    """Each glossary term, as a reader of the language would type it, and the chapters using it."""
    from book_extensions.glossary import NOT_CHAPTERS, count_uses, load_terms, spellings

    chapters = {
        name: page.text
        for name, page in pages.book_pages(language).items()
        if name.removesuffix(".md") not in NOT_CHAPTERS
    }
    return [
        (
            spellings(term, language)[0],
            {
                name.replace(".md", ".html")
                for name, text in chapters.items()
                if count_uses(text, spellings(term, language), language)
            },
        )
        for term in load_terms()
    ]


@pytest.mark.parametrize("language", pages.LANGUAGES)
def test_every_glossary_term_finds_a_chapter_using_it_in_the_top_3(open_tab, language):
    """Every term searched for in one tab, one search page load each; every miss is reported."""
    from playwright.sync_api import Error as PlaywrightError

    tab, missed = open_tab(), []
    # The order is the index's: a result's page, which the search fetches only to quote a summary
    # from it, is answered with a main block holding one character (Sphinx 9 throws on an empty one).
    tab.page.route(
        "**/*.html",
        lambda route: (
            route.fulfill(body='<div role="main">…</div>', content_type="text/html")
            if route.request.resource_type == "fetch"
            else route.continue_()
        ),
    )
    searches = glossary_searches(language)
    for query, using in searches:
        try:  # a console error names its search by the page's address (Tab.address)
            found = search_results(tab.goto(f"{language}/search.html?q={quote(query)}"), language)
        except PlaywrightError as error:  # e.g. the search never says it finished
            missed.append(f"{query!r}: {error}")
            continue
        if not using & set(found[:3]):
            missed.append(
                f"{query!r}: none of the top 3 {found[:3]} uses the term (chapters using it: {sorted(using)})"
            )
    assert searches, f"no glossary term to search the {language} site for"
    assert not missed, f"searching the {language} site, {len(missed)} of {len(searches)} terms:\n" + "\n".join(missed)
    tab.assert_clean()


def test_the_chooser_and_the_404_page_work_below_the_sub_path(open_tab):
    """Served as GitHub Pages serves a project site (base_url ends in /<repository>/): the root
    chooser sends the reader to a language, and an address that holds nothing, however deep, gets the
    404 page, with status 404, whose links lead back into the book below the same sub-path."""
    tab = open_tab()
    page = tab.goto("")
    page.wait_for_url("**/index.html")
    assert tab.path() in {"zh/index.html", "en/index.html"}, f"the chooser led to {page.url}"
    nowhere = ("no-such-page.html", "zh/no/such/page.html", "deep/er/than/any/page.html")
    for missing in nowhere:
        response = page.goto(tab.base + missing)
        assert response.status == 404, f"{missing}: status {response.status}"
        assert "Page not found" in page.content(), f"{missing}: not the site's 404 page"
        for language in ("zh", "en"):
            href = page.locator(f"a#{language}").evaluate("a => a.href")
            assert href == f"{tab.base}{language}/index.html", f"{missing}: the {language} link goes to {href}"
    with page.expect_navigation():
        page.locator("a#en").click()
    assert tab.path() == "en/index.html" and page.title(), f"the 404 page's link led to {page.url}"
    # The browser logs each 404 it was asked for; any other failed load is still an error.
    tab.errors = [
        error
        for error in tab.errors
        if not any(f"{tab.base}{missing}" in error and "status of 404" in error for missing in nowhere)
    ]
    tab.assert_clean()
