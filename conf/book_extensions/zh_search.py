"""Chinese search works: the zh search script defines the stemmer it calls, and a query word the
index lacks is cut into words it holds (zh_split_query.js, beside this module).

Sphinx 9.0.4's zh ``language_data.js`` ends with ``window.Stemmer = ChineseStemmer;``, a class it
never defines (sphinx-doc/sphinx#14229, fixed by #14416), so every zh search stops at "Searching…".
Sphinx names the class after ``language_name``: naming the English stemmer, which zh really ships,
fixes it. The canary ``zh-stemmer-bug`` (upstream/sphinx_internals.py) fails once Sphinx no longer
has the bug.

Sphinx: ``add_search_language``. Tests: tests/test_fixture_projects.py (alone),
tests/browser/test_browser.py, tests/test_upstream.py.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.search.zh import SearchChinese


class SearchChineseWithItsStemmer(SearchChinese):
    language_name = "English"  # the class in english-stemmer.js is EnglishStemmer
    js_splitter_code = Path(__file__).with_name("zh_split_query.js").read_text(encoding="utf-8")


def setup(app):
    from book_extensions import ENV_VERSION

    app.add_search_language(SearchChineseWithItsStemmer)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
