"""The few words the configuration itself puts on a page, in each language of the book.

Sphinx learns the language from ``-D language=…`` only after conf.py ran, so titles are set
here, on ``config-inited``. Other extensions look their labels up with ``text(env, key)``.
"""

from __future__ import annotations

import pages

STRINGS = {
    "zh_CN": {
        "title": "实测 autograd",
        "tree": "zh",
        "hreflang": "zh-CN",
        "switch-label": "中文",
        "search-placeholder": "搜索本书…",
        "glossary-used-in": "用到它的章节：",
        "glossary-avoid": "本书不用的写法：",
        "api-link-title": "PyTorch 官方文档",
        "switch-title": "这一页的中文版",
        "author": "实测 autograd 作者",
        "copyright": "2026，实测 autograd 作者 · 代码 MIT，正文 CC BY 4.0",
        "pitfall": "坑",
        "often-said": "常见说法",
        "measured": "实测",
        "stop-here": "读到这里可以停",
        "reading-time": "阅读约 {minutes} 分钟（正文 {prose} 字，代码 {code} 行）",
        "badge": "本页代码由 torch {torch} 于 {date} 实际执行：{cells} 段代码，用时 {seconds:.1f} 秒",
        "report-this-build": "本次构建：torch {torch}，Python {python}，Sphinx {sphinx}，myst-nb {myst_nb}，{date}。",
        "report-no-record": "没有记录：这个版本的测试还没有运行过",
        "col-torch": "torch",
        "col-updated": "记录更新于",
        "col-tools": "工具",
        "col-result": "结果",
        "col-snippet": "代码片段",
        "status-passed": "通过",
        "status-differs": "输出不同",
        "status-failed": "运行失败",
        "status-stale": "记录过期",
        "status-missing": "无记录",
        "status-no-record": "—",
    },
    "en": {
        "title": "Autograd, Measured",
        "tree": "en",
        "hreflang": "en",
        "switch-label": "English",
        "search-placeholder": "Search the book…",
        "glossary-used-in": "Used in:",
        "glossary-avoid": "Not used in this book:",
        "api-link-title": "PyTorch reference",
        "switch-title": "This page in English",
        "author": "The Autograd, Measured authors",
        "copyright": "2026, The Autograd, Measured authors · code MIT, text CC BY 4.0",
        "pitfall": "Pitfall",
        "often-said": "Often said",
        "measured": "Measured",
        "stop-here": "You can stop here",
        "reading-time": "About {minutes} min to read ({prose} words of prose, {code} lines of code)",
        "badge": "Executed with torch {torch} on {date}: {cells} snippets, {seconds:.1f} s",
        "report-this-build": "This build: torch {torch}, Python {python}, Sphinx {sphinx}, myst-nb {myst_nb}, {date}.",
        "report-no-record": "no record: this version's tests have not run",
        "col-torch": "torch",
        "col-updated": "record updated",
        "col-tools": "tools",
        "col-result": "result",
        "col-snippet": "snippet",
        "status-passed": "passed",
        "status-differs": "differs",
        "status-failed": "failed",
        "status-stale": "stale",
        "status-missing": "missing",
        "status-no-record": "—",
    },
}


def text(env, key: str) -> str:
    return STRINGS[env.config.language][key]


def set_titles(app, config):
    if config.language not in STRINGS:
        raise ValueError(f"language {config.language!r} is not one of the book's: {', '.join(STRINGS)}")
    strings = STRINGS[config.language]
    config.project = config.html_title = strings["title"]
    config.author, config.copyright = strings["author"], strings["copyright"]
    # "Edit this page" opens the page's own tree: docs/zh/… or docs/en/…
    config.html_theme_options["path_to_docs"] = f"docs/{strings['tree']}"
    config.html_theme_options["search_bar_text"] = strings["search-placeholder"]


def setup(app):
    app.connect("config-inited", set_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": pages.extension_version(__file__)}
