"""The one Sphinx configuration of both languages.

    sphinx-build -c conf -D language=zh_CN docs/zh build/zh/html
    sphinx-build -c conf -D language=en    docs/en build/en/html

Everything that depends on the language (titles, callout labels, …) is set by the
``book_extensions.languages`` once Sphinx knows the language; behaviour lives in the package
``conf/book_extensions``, whose settings are set below like Sphinx's own, and facts shared with the
noxfile and tests in ``conf/book_settings.py``.
"""

import os
import sys
from pathlib import Path

from exercise_judge import limits

sys.path.insert(0, str(Path(__file__).parent))

import book_settings  # noqa: E402
import build_runs  # noqa: E402
from book_extensions.execution_cache import cache_path  # noqa: E402

# The kernel inherits these: one thread, so float32 reductions sum in the same order everywhere, and
# a limit on what a cell may print (conf/kernel_startup.py).
os.environ.update(book_settings.RUN_ENV, **build_runs.kernel_environment())

project = "Autograd, Measured"  # title, author and copyright: per language, in book_extensions/languages.py

extensions = [
    "book_extensions.chrome",  # first: its catalogs must be registered before the theme's
    "book_extensions.pages",  # the page model, parsed once per page, before the others read it
    "myst_nb",
    "sphinx_design",
    "sphinx_copybutton",
    "book_extensions.languages",
    "book_extensions.twins",
    "book_extensions.snippet_cells",
    "book_extensions.outputs",
    "book_extensions.highlighting",
    "book_extensions.callouts",
    "book_extensions.badges",
    "book_extensions.api_links",
    "book_extensions.glossary",
    "book_extensions.verification",
    "book_extensions.torch_differences",
    "book_extensions.claims",
    "book_extensions.zh_search",
    "book_extensions.icon_masks",
    "book_extensions.deferred_scripts",
    "book_extensions.seo",
    "sphinxext.opengraph",
    "book_extensions.notebooks",
    "book_extensions.exercises",
]

# --- The book's own settings, each declared by the extension that reads it (app.add_config_value).
# book_publish (verification): a site for readers; the build fails unless the records verify the book.
book_publish = bool(os.environ.get(book_settings.PUBLISH_ENV))
# book_torch (badges): the torch this build runs, by default the installed one.
# book_judge_url (exercises): where readers' pip finds the judge, by default judge/ below book_settings.SITE_URL.

exclude_patterns = ["**/.ipynb_checkpoints"]
locale_dirs = [
    str(Path(__file__).parent / "locales")
]  # the themes' interface strings in Chinese (see book_extensions/chrome.py)
templates_path = ["_templates"]

# --- MyST and notebooks: every code cell is executed at build time, once per torch version.
# No math extension: MathJax would load from a CDN (write formulas as code or Unicode: vᵀJ, 3t²).
myst_enable_extensions = book_settings.MYST_EXTENSIONS
myst_heading_anchors = 3
nb_execution_mode = "cache"
nb_execution_cache_path = str(cache_path())
nb_execution_timeout = limits.TIMEOUT_SECONDS  # per cell, i.e. per snippet
nb_execution_allow_errors = False  # only cells tagged raises-exception may raise
nb_execution_raise_on_error = False  # keep going; snippet_cells names the failing snippet line
nb_merge_streams = True
nb_render_text_lexer = "book-output"  # book_extensions/outputs.py: tables keep their columns, messages wrap
nb_output_stderr = "warn"  # a stray warning in an output fails the -W build
nb_execution_show_tb = False  # the full traceback is saved under build/<lang>/html/reports
# Text outputs in the page, never widgets or their CDN scripts.
nb_ipywidgets_js = {}

# --- HTML
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_js_files = [
    ("navigation.js", {"defer": "defer"})
]  # drawers close on a tapped link; the language switch keeps the place; wide figures take focus
html_copy_source = True
html_show_sourcelink = True
html_last_updated_fmt = None
# The site's root, where the languages are served from zh/ and en/: canonical links, hreflang alternates,
# Open Graph URLs and the sitemap are absolute URLs below it (book_extensions/seo.py).
html_baseurl = book_settings.SITE_URL
# Open Graph (sphinxext-opengraph): og:url below html_baseurl's language folder, the description and
# locales from book_extensions/seo.py; no generated card image per page.
ogp_type = "article"  # the root page: "website"
ogp_enable_meta_description = False
ogp_social_cards = {"enable": False}
html_favicon = "_static/favicon.svg"  # without one, every page load asks the server for /favicon.ico: a 404
# Follow the reader's system until they pick a mode; the theme's default ("") logs a console error.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "use_download_button": True,  # the page's Markdown source, and print to PDF
    "use_fullscreen_button": False,
    "repository_url": book_settings.REPOSITORY,
    "repository_branch": "main",
    "path_to_docs": "docs",  # languages.py appends the language's folder
    "use_edit_page_button": True,
    "use_repository_button": True,
    "use_issues_button": True,
    "article_header_end": ["language-switch", "article-header-buttons"],
    # The book theme hides pydata-sphinx-theme's navbar, but pydata still renders its ☰ and contents
    # buttons there when a navbar item is set, and binds its drawers to the first button of each
    # class, the hidden one (pydata-sphinx-theme#2451). With no navbar item, none is rendered.
    "navbar_persistent": [],
    # The theme's own defaults, named here because book_extensions/highlighting.py reads them.
    "pygments_light_style": "a11y-high-contrast-light",
    "pygments_dark_style": "a11y-high-contrast-dark",
}

html_search_scorer = str(Path(__file__).parent / "search-scorer.js")  # a page titled with the searched word comes first

# Copy only the code, not the ">>> " prompts or the outputs that follow them, nor the lines that only
# hand a number to the prose (glue(...) and its import, marked .hll by book_extensions/snippet_cells.py).
copybutton_exclude = ".linenos, .gp, .go, .hll"
