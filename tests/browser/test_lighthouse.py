"""Lighthouse's mobile profile over every page of both languages, served as hosted (sub-path, gzip):
each page within the budgets below. The figures of every page go to build/lighthouse.json; the
worst page is printed in the session's summary. (Part of `nox -s browser`; `nox -s lighthouse` runs
it alone. tests/node/lighthouse.mjs runs Lighthouse.)
"""

import json
import subprocess

import pytest

import book_settings
from book_extensions import pages

pytestmark = [pytest.mark.browser, pytest.mark.lighthouse]

REPORT = pages.ROOT / "build" / "lighthouse.json"
LIGHTHOUSE = book_settings.NODE_TOOLS / "lighthouse.mjs"
# Issue 14's budgets: a chapter opens at once on a phone on a slow connection.
MIN_PERFORMANCE = 0.95
MIN_OTHER_SCORES = 1.0  # accessibility, best practices, SEO
MAX_TRANSFERRED_KIB = 250  # HTML, CSS, JS, fonts and images, gzipped as a static host serves them
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def over_budget(found: dict) -> list[str]:
    scores, kib = found["scores"], found["transferred_bytes"] / 1024
    problems = [f"performance {scores['performance']:.2f} < {MIN_PERFORMANCE}"] if scores["performance"] < MIN_PERFORMANCE else []
    problems += [f"{category} {scores[category]:.2f} < {MIN_OTHER_SCORES}" for category in CATEGORIES[1:]
                 if scores[category] < MIN_OTHER_SCORES]
    problems += [f"{kib:.0f} KiB transferred > {MAX_TRANSFERRED_KIB} KiB"] if kib > MAX_TRANSFERRED_KIB else []
    return problems


def test_every_page_is_within_the_lighthouse_budgets(base_url, site_pages, chromium, totals):
    every_page = [f"{language}/{name}" for language, names in site_pages.items() for name in names]
    run = subprocess.run(["node", str(LIGHTHOUSE), str(chromium), base_url, str(MIN_PERFORMANCE), *every_page],
                         cwd=book_settings.NODE_TOOLS, capture_output=True, text=True, timeout=120 * len(every_page))
    assert run.returncode == 0, f"lighthouse failed:\n{run.stderr[-3000:]}"
    results = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert [found["page"] for found in results] == every_page, "lighthouse did not report every page"
    REPORT.write_text(json.dumps(results, indent=1), encoding="utf-8")
    worst = min(results, key=lambda found: (found["scores"]["performance"], -found["transferred_bytes"]))
    totals.lighthouse_worst = (f"worst page: {worst['page']}: performance {worst['scores']['performance']:.2f}, "
                               f"{worst['transferred_bytes'] / 1024:.0f} KiB, first paint "
                               f"{worst['first_contentful_paint_ms'] / 1000:.1f} s (every page: {pages.relative(REPORT)})")
    failing = [f"{found['page']}: {', '.join(problems)} (performance of each run: {found['performance_of_each_run']})"
               for found in results if (problems := over_budget(found))]
    assert not failing, "pages over the budgets:\n" + "\n".join(failing)
