"""The book's interface words in each language (``STRINGS``; other extensions call ``text(env, key)``)
and the settings that follow the language: title, author, copyright, the theme's edit path and
search placeholder. Sphinx learns the language from ``-D language=…`` only after conf.py ran, so
they are set on ``config-inited``; a language the book lacks stops the build.

Tests: tests/test_site.py (the tab title).
"""

from __future__ import annotations

import book_settings
from book_extensions import ENV_VERSION

STRINGS = {
    "zh_CN": {
        "title": "实测 autograd",
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
        "col-passed": "最近一次全部通过",
        "report-default": "（默认）",
        "report-claims": "正文的 {total} 项检查中 {passed} 项通过",
        "report-grid-explained": "每一格是这个版本的输出与已审阅快照比较的结果。默认版本 torch {default} 的输出就是共用快照；"
        "其他版本只在确实输出不同的地方有自己的快照，点“不同，已审阅”可以看到差异。",
        "report-differences": "下面是各版本与默认版本 torch {default} 的全部已审阅差异（− 为 torch {default}，+ 为该版本）：",
        "report-no-differences": "所有支持的版本输出都与默认版本 torch {default} 相同。",
        "report-diff-title": "：torch {default} → torch {versions}",
        "verdict-all": "结论：在支持的 {count} 个 torch 版本（{versions}）上，正文的 {checks} 项检查全部通过，"
        "{snippets} 段代码的输出都与已审阅的快照一致；其中 {reviewed} 段在某些版本上输出不同，每一处差异都已审阅（见下文）。",
        "verdict-open": "结论：还没有全部验证通过：{problems}。",
        "verdict-no-record": "torch {torch} 没有测试记录",
        "verdict-snippets": "torch {torch} 有 {what}",
        "verdict-checks": "torch {torch} 的 {total} 项检查只通过了 {passed} 项",
        "report-same-folded": "另外 {count} 段代码在所有版本上的输出都与 torch {default} 相同（展开查看）",
        "col-tools": "工具",
        "col-chapter": "章节",
        "col-reading-time": "阅读时间",
        "minutes": "约 {minutes} 分钟",
        "total": "合计",
        "hours": "约 {hours} 小时（{minutes} 分钟）",
        "col-result": "结果",
        "col-snippet": "代码片段",
        "status-same": "与默认版本相同",
        "status-reviewed": "不同，已审阅",
        "status-unreviewed": "不同，未审阅",
        "status-failed": "运行失败",
        "status-stale": "记录过期",
        "status-missing": "无记录",
        "status-no-record": "—",
        "differs-summary": "torch {versions} 的输出不同",
        "differs-explained": "以 − 开头的行是上面 torch {this} 的输出，以 + 开头的行是 torch {versions} 的输出"
        "（来自已审阅的快照 {snapshot}）。",
        "glue-differs": "（torch {versions} 为 {value}）",
        "claim-label": "这句话有检查验证：查看检查代码",
        "claim-title": "检查：{check}（snippets 目录下该章的 claims.py）",
        "claim-close": "关闭",
        "claim-passed": "在 torch {versions} 上通过（来自测试记录）",
        "claim-not-run": "测试记录里还没有这段检查代码通过的结果",
    },
    "en": {
        "title": "Autograd, Measured",
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
        "badge": "Executed with torch {torch} on {date}: {cells} snippet{plural}, {seconds:.1f} s",
        "report-this-build": "This build: torch {torch}, Python {python}, Sphinx {sphinx}, myst-nb {myst_nb}, {date}.",
        "report-no-record": "no record: this version's tests have not run",
        "col-torch": "torch",
        "col-updated": "record updated",
        "col-passed": "last passed in full",
        "report-default": " (default)",
        "report-claims": "{passed} of the prose's {total} checks passed",
        "report-grid-explained": "Each cell is what that version's output was found to be against the reviewed "
        "snapshots. The default, torch {default}, owns the shared snapshot; another version has "
        "its own only where it really prints something else: follow “differs, reviewed” to "
        "the difference.",
        "report-differences": "Every reviewed difference from the default, torch {default} (− torch {default}, + the "
        "other version):",
        "report-no-differences": "Every supported version prints what the default, torch {default}, prints.",
        "report-diff-title": ": torch {default} → torch {versions}",
        "verdict-all": "Verdict: on all {count} supported torch versions ({versions}), all {checks} checks of the prose "
        "passed and all {snippets} snippets printed their reviewed output; {reviewed} of them print "
        "something else on some version, and each of those differences is reviewed (below).",
        "verdict-open": "Verdict: not verified in full yet: {problems}.",
        "verdict-no-record": "torch {torch} has no test record",
        "verdict-snippets": "torch {torch} has {what}",
        "verdict-checks": "torch {torch} passed {passed} of {total} checks",
        "report-same-folded": "The other {count} snippets print on every version what torch {default} prints (unfold to see them)",
        "col-tools": "tools",
        "col-chapter": "Chapter",
        "col-reading-time": "Reading time",
        "minutes": "about {minutes} min",
        "total": "Total",
        "hours": "about {hours} hours ({minutes} min)",
        "col-result": "result",
        "col-snippet": "snippet",
        "status-same": "same as default",
        "status-reviewed": "differs, reviewed",
        "status-unreviewed": "differs, not reviewed",
        "status-failed": "failed",
        "status-stale": "stale",
        "status-missing": "missing",
        "status-no-record": "—",
        "differs-summary": "Differs on torch {versions}",
        "differs-explained": "Lines starting with − are what torch {this} printed above; lines starting with + are "
        "what torch {versions} prints instead (from the reviewed snapshot {snapshot}).",
        "glue-differs": " (torch {versions}: {value})",
        "claim-label": "This sentence is checked: show the check",
        "claim-title": "Check {check} (in the chapter's claims.py under snippets/)",
        "claim-close": "Close",
        "claim-passed": "Passed on torch {versions} (from the test records)",
        "claim-not-run": "No test record yet shows this code of the check passing",
    },
}


def text(env, key: str) -> str:
    return STRINGS[env.config.language][key]


def tree_and_other(sphinx_language: str) -> tuple[str, str]:
    """("zh", "en") for zh_CN: the page's language tree under docs/ and the other one."""
    tree = book_settings.TREE_OF_SPHINX_LANGUAGE[sphinx_language]
    return tree, next(other for other in book_settings.LANGUAGES if other != tree)


def set_titles(app, config):
    if config.language not in book_settings.TREE_OF_SPHINX_LANGUAGE:
        raise ValueError(
            f"language {config.language!r} is not one of the book's: {', '.join(book_settings.TREE_OF_SPHINX_LANGUAGE)}"
        )
    strings = STRINGS[config.language]
    config.project = config.html_title = strings["title"]
    config.author, config.copyright = strings["author"], strings["copyright"]
    # "Edit this page" opens the page's own tree: docs/zh/… or docs/en/…
    config.html_theme_options["path_to_docs"] = f"docs/{tree_and_other(config.language)[0]}"
    config.html_theme_options["search_bar_text"] = strings["search-placeholder"]


def setup(app):
    app.connect("config-inited", set_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
