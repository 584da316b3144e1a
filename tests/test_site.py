"""The built site shows what the snippets printed, with the glued numbers in its prose."""

import ast
import html
import re

import pytest

from book_extensions import pages
from snippet_runs import expected_snapshot, glued_values, normalise

TAG = re.compile(r"<[^>]+>")
# What other torch versions print, folded under a cell: not what this build's torch printed.
OTHER_VERSIONS = re.compile(r'<details class="torch-difference">.*?</details>', re.DOTALL)
PASTED = re.compile(r'<span class="pasted-text">(.*?)</span>', re.DOTALL)
PAGES = [(language, name, page) for language in pages.LANGUAGES
         for name, page in pages.book_pages(language).items()]
MACHINE_DEPENDENT = "<a number measured on the build machine>"
NUMBER = re.compile(r"[-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?%?")
IDS = [f"{language}/{name}" for language, name, _ in PAGES]


def page_html(site, language, name):
    path = site / language / name.replace(".md", ".html")
    assert path.is_file(), f"{pages.relative(path)} was not built"
    return path.read_text(encoding="utf-8")


def test_site_holds_both_languages_and_a_language_chooser(site):
    assert sorted(p.name for p in site.iterdir()) == ["404.html", "en", "index.html", "zh"]
    chooser = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="zh/index.html"' in chooser and 'href="en/index.html"' in chooser
    for language in pages.LANGUAGES:
        assert not list((site / language).rglob("*.ipynb")), "executed notebooks leaked into the site"
        assert not (site / language / ".buildinfo").exists()


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_page_shows_every_line_its_snippets_printed(site, language, name, page):
    text = normalise(html.unescape(TAG.sub("", OTHER_VERSIONS.sub("", page_html(site, language, name)))))
    for snippet in page.snippets:
        printed = [line for line in expected_snapshot(snippet).read_text(encoding="utf-8").splitlines()
                   if line.strip() and not line.startswith("[glue]")]
        missing = [line for line in printed if line.strip() not in text]
        assert not missing, f"{language}/{name} does not show these lines of {pages.relative(snippet)}: {missing}"


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_prose_numbers_are_the_glued_values(site, language, name, page):
    glued = {}
    for snippet in page.snippets:
        glued |= glued_values(expected_snapshot(snippet).read_text(encoding="utf-8"))
    expected = []
    for key, spec in ((key, spec) for role, key, spec in page.glue_refs if role == "text"):
        assert key in glued, f"{language}/{name} glues {key!r}, which none of its snippets glues"
        if glued[key] is None:  # machine-dependent: any number will do
            expected.append(MACHINE_DEPENDENT)
            continue
        value = ast.literal_eval(glued[key])  # the repr that measured.glue printed
        expected.append(format(value, spec) if spec else str(value))
    shown = [html.unescape(TAG.sub("", span)) for span in PASTED.findall(page_html(site, language, name))]
    shown = [MACHINE_DEPENDENT if want is MACHINE_DEPENDENT and NUMBER.fullmatch(got) else got
             for got, want in zip(shown, expected)] + shown[len(expected):]
    assert shown == expected, f"{language}/{name}: prose shows {shown}, the snapshots say {expected}"


def test_no_kernel_or_install_paths_in_outputs(site):
    leaks = [f"{pages.relative(p)}: {m.group(0)}" for p in site.rglob("*.html")
             for m in re.finditer(r"/tmp/ipykernel_\d+|site-packages/|" + re.escape(str(pages.ROOT)),
                                  p.read_text(encoding="utf-8"))]
    assert not leaks, "\n".join(leaks[:20])


LOADING_TAG = re.compile(r"<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc=\"(https?:)?//[^\"]*\"|"
                         r"<link\b(?=[^>]*\brel=\"(?:stylesheet|preload|modulepreload|icon)\")[^>]*\bhref=\"(https?:)?//[^\"]*\"")
CSS_REMOTE = re.compile(r"url\(\s*['\"]?(?:https?:)?//")


def test_pages_load_nothing_from_another_host(site):
    """A link to another site is fine; a script, style, font or image from one is not (the real
    browser test records the requests; this reads what the files ask for)."""
    loads = [f"{pages.relative(p)}: {m.group(0)[:120]}" for p in site.rglob("*.html")
             for m in LOADING_TAG.finditer(p.read_text(encoding="utf-8"))]
    loads += [f"{pages.relative(p)}: {m.group(0)}" for p in site.rglob("*.css")
              for m in CSS_REMOTE.finditer(p.read_text(encoding="utf-8"))]
    assert not loads, "\n".join(loads[:20])
