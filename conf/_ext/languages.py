"""The few words the configuration itself puts on a page, in each language of the book.

Sphinx learns the language from ``-D language=…`` only after conf.py ran, so titles are set
here, on ``config-inited``. Other extensions look their labels up with ``text(env, key)``.
"""

from __future__ import annotations

STRINGS = {
    "zh_CN": {
        "title": "实测 autograd",
        "pitfall": "坑",
        "often-said": "常见说法",
        "measured": "实测",
        "stop-here": "读到这里可以停",
        "reading-time": "阅读约 {minutes} 分钟（正文 {prose} 字，代码 {code} 行）",
    },
    "en": {
        "title": "Autograd, Measured",
        "pitfall": "Pitfall",
        "often-said": "Often said",
        "measured": "Measured",
        "stop-here": "You can stop here",
        "reading-time": "About {minutes} min to read ({prose} words of prose, {code} lines of code)",
    },
}


def text(env, key: str) -> str:
    return STRINGS[env.config.language][key]


def set_titles(app, config):
    if config.language not in STRINGS:
        raise ValueError(f"language {config.language!r} is not one of the book's: {', '.join(STRINGS)}")
    config.project = config.html_title = STRINGS[config.language]["title"]


def setup(app):
    app.connect("config-inited", set_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
