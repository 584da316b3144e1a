"""The published site, assembled from the two languages' builds (stdlib only: the noxfile runs it
outside the torch venvs).

<root>/site holds <root>/zh/html and <root>/en/html without Sphinx's bookkeeping, the root
chooser (conf/site-index.html), the 404 page GitHub Pages serves for any miss (conf/site-404.html),
sitemap.xml and robots.txt, and judge/, the folder readers give pip. tests/test_site.py checks
each of them on the built site; `nox -s judge_wheel` installs the judge from publish_judge's folder.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import string
import urllib.parse
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from book_settings import CONF, JUDGE_DISTRIBUTION, JUDGE_SITE_FOLDER, LANGUAGES, SITE_URL

NOT_SITE = shutil.ignore_patterns(".buildinfo", "reports")  # Sphinx's bookkeeping, error logs
NOT_PAGES = {"_static", "_sources", "_downloads", "_images"}  # folders of a language without reader-facing pages
GENERATED = {"genindex", "search", "404"}  # pages Sphinx or the theme makes, no chapter's


def assemble(root: Path, judge_wheel: Path) -> Path:
    """<root>/site from <root>/<language>/html, made afresh; returns its folder."""
    site = root / "site"
    shutil.rmtree(site, ignore_errors=True)
    for language in LANGUAGES:
        shutil.copytree(root / language / "html", site / language, ignore=NOT_SITE)
    chooser = string.Template((CONF / "site-index.html").read_text(encoding="utf-8"))
    (site / "index.html").write_text(chooser.substitute(site_url=SITE_URL), encoding="utf-8")
    # GitHub Pages serves 404.html for any miss, at the address missed: the page finds the site's root itself.
    missing = string.Template((CONF / "site-404.html").read_text(encoding="utf-8"))
    (site / "404.html").write_text(missing.substitute(site_path=urllib.parse.urlsplit(SITE_URL).path), encoding="utf-8")
    write_sitemap(site, [root / language / "sitemap.json" for language in LANGUAGES])
    publish_judge(site / JUDGE_SITE_FOLDER, judge_wheel)
    return site


def publish_judge(folder: Path, wheel: Path) -> None:
    """<site>/judge/: the judge's wheel and a page linking it, the fixed address readers give pip
    (`pip install --find-links <site>/judge/ autograd-measured-judge`) and each exercise names."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(wheel, folder / wheel.name)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (folder / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{JUDGE_DISTRIBUTION}</title>\n</head>\n<body>\n<h1>{JUDGE_DISTRIBUTION}</h1>\n"
        f'<p><a href="{wheel.name}#sha256={digest}">{wheel.name}</a></p>\n'
        f"<p><code>pip install --find-links {SITE_URL}{JUDGE_SITE_FOLDER}/ {JUDGE_DISTRIBUTION}</code></p>\n"
        "</body>\n</html>\n",
        encoding="utf-8",
    )


def write_sitemap(site: Path, page_lists: list[Path]) -> None:
    """site/sitemap.xml: every page of both languages with its alternates, from the list each language's
    build wrote (book_extensions/seo.py), and robots.txt naming it. Crawlers read robots.txt only at a
    host's root, so under GitHub project pages the sitemap is submitted to search engines instead."""
    urls = ""
    for page in (page for listed in page_lists for page in json.loads(listed.read_text(encoding="utf-8"))):
        links = "".join(
            f'\n    <xhtml:link rel="alternate" hreflang="{hreflang}" href="{xml_escape(url)}"/>'
            for hreflang, url in page["alternates"].items()
        )
        urls += f"  <url>\n    <loc>{xml_escape(page['url'])}</loc>{links}\n  </url>\n"
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
        f' xmlns:xhtml="http://www.w3.org/1999/xhtml">\n{urls}</urlset>\n',
        encoding="utf-8",
    )
    (site / "robots.txt").write_text(f"Sitemap: {SITE_URL}sitemap.xml\n", encoding="utf-8")


def reader_pages(site: Path, language: str) -> list[str]:
    """Every reader-facing page of one language in the assembled site, as paths below <lang>/: the
    pages the browser tests and Lighthouse visit."""
    root = site / language
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*.html")
        if not NOT_PAGES & set(path.relative_to(root).parts) and path.stem not in GENERATED
    )
