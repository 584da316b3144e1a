"""The book's Sphinx extensions, one concern per module; conf.py lists them as ``book_extensions.<name>``.

``pages`` is the page model every extension and test reads; the others each add one thing to
the build (twins, snippet cells, badges, claims, …). Facts shared with the noxfile and the tests
(languages, torch versions, paths) live in ``conf/book_settings.py``; what differs per build is a
Sphinx setting, declared by the extension that reads it and set in ``conf.py``.
"""

ENV_VERSION = 3  # every extension's env_version: bump it when what reading a page stores (pickles) changes
