"""Chinese search works: Sphinx 9.0 writes a search script that stops before searching, and a query
the index does not hold as one word is cut into words it holds (zh_split_query.js).

Sphinx 9.0.4 ends the zh ``language_data.js`` with ``window.Stemmer = ChineseStemmer;``, a class
that does not exist (zh stems its Latin words with the English stemmer), so every zh search page
throws "ChineseStemmer is not defined" and stays on "Searching…" (sphinx-doc/sphinx#14229, fixed
upstream by #14416 after 9.0.4). Sphinx names the class after ``language_name``; naming it after
the stemmer it really ships makes the script define ``window.Stemmer``. With a fixed Sphinx this
changes nothing but a log line ("dumping search index in English (code: zh)"); the canary
``upstream.WORKAROUNDS["zh-stemmer-bug"]`` fails once the installed Sphinx no longer has the bug.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.search.zh import SearchChinese


class SearchChineseWithItsStemmer(SearchChinese):
    language_name = "English"  # the class in english-stemmer.js is EnglishStemmer
    js_splitter_code = Path(__file__).with_name("zh_split_query.js").read_text(encoding="utf-8")


def setup(app):
    app.add_search_language(SearchChineseWithItsStemmer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
