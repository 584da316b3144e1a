"""Every sentence that says how torch behaves and is not shown by the output beside it names a
check, {claim}`<chapter>/<check>`: a function with asserts in snippets/<chapter>/claims.py. Here
each check runs under this torch (its result goes into the test record, which the page's mark
shows), each claim names a check that exists, and each check is claimed in both languages."""

import importlib.util
from functools import cache

import pytest

from book_extensions import pages
from book_extensions.claims import all_checks, check_hash

CHECKS = all_checks()
PAGES = [(language, page) for language in pages.LANGUAGES for page in pages.book_pages(language).values()]


@cache
def claims_module(chapter: str):
    path = pages.SNIPPETS / chapter / pages.CLAIMS_FILE
    spec = importlib.util.spec_from_file_location(f"claims_{chapter.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_claim_holds(check, records):
    chapter, name = check.split("/")
    try:
        getattr(claims_module(chapter), name)()
    except Exception as error:
        records.add_claim(check, check_hash(CHECKS[check]), "failed")
        claimed_at = [
            f"{pages.relative(page.path)}:{line}" for _, page in PAGES for line, claim in page.claims if claim == check
        ]
        raise AssertionError(
            f"the check {check} fails, so the sentence at {', '.join(claimed_at)} is not "
            f"true on this torch: {type(error).__name__}: {error}"
        ) from error
    records.add_claim(check, check_hash(CHECKS[check]), "passed")


@pytest.mark.parametrize(("language", "page"), PAGES, ids=[pages.relative(p.path) for _, p in PAGES])
def test_every_claim_names_a_check(language, page):
    unknown = [
        f"{pages.relative(page.path)}:{line}: {{claim}}`{claim}` names no check in "
        f"snippets/{claim.split('/')[0]}/{pages.CLAIMS_FILE}"
        for line, claim in page.claims
        if claim not in CHECKS
    ]
    assert not unknown, "\n".join(unknown)


@pytest.mark.parametrize("language", pages.LANGUAGES)
def test_every_check_is_claimed_by_a_page(language):
    claimed = {claim for lang, page in PAGES if lang == language for _, claim in page.claims}
    unclaimed = sorted(set(CHECKS) - claimed)
    assert not unclaimed, f"checks that no docs/{language} page claims (claim them or delete them): {unclaimed}"


@pytest.mark.parametrize(("language", "page"), PAGES, ids=[pages.relative(p.path) for _, p in PAGES])
def test_each_claim_has_its_mark_on_the_built_page(site, language, page):
    built = (site / language / page.path.relative_to(pages.DOCS / language).with_suffix(".html")).read_text(
        encoding="utf-8"
    )
    marks = built.count('<button type="button" class="claim-mark"')
    assert marks == len(page.claims), (
        f"{pages.relative(page.path)} names {len(page.claims)} checks, shows {marks} marks"
    )


def test_a_checks_hash_covers_the_private_helpers_it_uses(tmp_path):
    """A check's recorded hash is of its source after its helpers': editing a helper function, class
    or module-level value it uses (directly or through another helper) must not leave the page's mark
    on an old result. A value is shown with the comment right above it, which says what it is."""
    from book_extensions.claims import _checks

    claims = tmp_path / pages.CLAIMS_FILE
    claims.write_text(
        "def _unused():\n    pass\n\n\nclass _Square:\n    pass\n\n\n"
        "# not part of the shown value\n\n# side, in cm\n_UNUSED = 3; _SIDE = '²\u2028'  # trailing\n\n\n"
        "@functools.cache\ndef _make():\n    return _Square()\n\n\n"
        "def squares():\n    assert _make() and _SIDE\n\n\ndef alone():\n    assert True\n",
        encoding="utf-8",
    )
    found = _checks(claims, claims.stat().st_mtime)
    assert sorted(found) == ["alone", "squares"]
    assert found["squares"].startswith("# side, in cm\n_SIDE = '²\u2028'\n\nclass _Square"), found["squares"]
    assert "\n\n@functools.cache\ndef _make" in found["squares"] and found["squares"].endswith(
        "def squares():\n    assert _make() and _SIDE"
    )
    assert "_unused" not in found["squares"] and "_UNUSED" not in found["squares"]
    assert (
        "not part of" not in found["squares"]
        and "trailing" not in found["squares"]
        and found["alone"] == "def alone():\n    assert True"
    )
