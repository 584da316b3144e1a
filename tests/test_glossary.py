"""The book names each concept one way (docs/glossary.toml): no page's prose uses a variant the
glossary rules out, every term is used by a chapter of each language, and no term is listed twice."""

import re

import pytest

from book_extensions import pages
from book_extensions.glossary import NOT_CHAPTERS, count_uses, load_terms, spellings

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

TERMS = load_terms()
IDS = [term.get("code") or term["en"] for term in TERMS]


def chapters(tree):
    return {name: page for name, page in pages.book_pages(tree).items() if name.removesuffix(".md") not in NOT_CHAPTERS}


@pytest.mark.parametrize("tree", pages.LANGUAGES)
def test_pages_avoid_the_variants_the_glossary_rules_out(tree):
    found = []
    for name, page in pages.book_pages(tree).items():
        for term in TERMS:
            for variant in term.get(f"{tree}_avoid", []):
                # The prose only (page.prose): a variable named `loss` is code, not the word
                # the Chinese prose should write as 损失.
                for number, line in page.prose:
                    if count_uses(line, [variant], tree):
                        found.append(f"docs/{tree}/{name}:{number}: {variant!r} (write {spellings(term, tree)[0]!r})")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("term", TERMS, ids=IDS)
@pytest.mark.parametrize("tree", pages.LANGUAGES)
def test_every_term_is_used_by_a_chapter(term, tree):
    uses = {name: count_uses(page.text, spellings(term, tree), tree) for name, page in chapters(tree).items()}
    assert any(uses.values()), f"no chapter in docs/{tree} uses {spellings(term, tree)}"


def test_terms_are_unique():
    for tree in ("zh", "en"):
        names = [w for term in TERMS for w in spellings(term, tree)]
        duplicates = sorted({w for w in names if names.count(w) > 1})
        assert not duplicates, f"{tree}: terms listed twice: {duplicates}"
    assert all(re.search(r"[\u4e00-\u9fff]", t["zh"]) for t in TERMS if "zh" in t)


# A broken glossary and what its error says (a regular expression after "glossary.toml"); None: a
# folder in the glossary's place.
BROKEN = {
    "duplicate-key": ('[[term]]\nzh = "叶子张量"\nzh = "叶张量"\n', r":3: Cannot overwrite a value \(at line 3"),
    "missing-key": (
        '[[term]]\ncode = "grad_fn"\nzh_def = "属性"\nen_def = "An attribute."\n\n'
        '[[ term ]]  # leaf tensor\nzh = "叶子张量"\nen = "leaf tensor"\nzh_def = "不要梯度"\n',
        r":6: the \[\[term\]\] here has no en_def$",
    ),
    "string-for-list": (
        '[[term]]\nzh = "叶子张量"\nen = "leaf tensor"\nen_avoid = "leaf"\nzh_def = "甲"\nen_def = "A."\n',
        r":1: the \[\[term\]\] here: en_avoid must be a list",
    ),
    # TOML counts lines at "\n" only: a U+2028 in a string starts none.
    "u2028": (
        '[[term]]\ncode = "a"\nzh_def = "甲\u2028乙"\nen_def = "A."\n[[term]]\ncode = "b"\n',
        r":5: the \[\[term\]\] here has no zh_def, en_def",
    ),
    # An empty or padded spelling would match everywhere: every chapter would be a use.
    "blank-words": (
        '[[term]]\nzh = "叶子张量"\nen = ""\nen_also = [" leaf"]\nzh_def = " "\nen_def = "A."\n',
        r":1: the \[\[term\]\] here: en, en_also, zh_def\b",
    ),
    "unknown-key": (
        '[[term]]\ncode = "a"\nzh_aviod = "甲"\nzh_def = "甲"\nen_def = "A."\n',
        r":1: the \[\[term\]\] here: unknown key zh_aviod\b",
    ),
    "code-term-spelling": (
        '[[term]]\ncode = "a"\nen_also = ["a grad"]\nzh_def = "甲"\nen_def = "A."\n',
        r":1: the \[\[term\]\] here: a code term .* en_also would be unused\b",
    ),
    "stray-header": (
        '[[term]]\ncode = "a"\nzh_def = "甲"\nen_def = """A.\nterms of use"""\n[[terms]]\ncode = "b"\n',
        r":6: terms: the glossary holds only \[\[term\]\]",
    ),
    # Entries without [[term]] headers are named by their number; a key set above them, at its line.
    "no-headers": ('term = [{code = "a", zh_def = "甲"}]\n', r": \[\[term\]\] 1 has no en_def$"),
    "stray-key": (
        '\nzh = "x"\n[[term]]\ncode = "a"\nzh_def = "甲"\nen_def = "A."\n',
        r":2: zh: the glossary holds only",
    ),
    "no-entries": ("term = []\n", r": no \[\[term\]\] entries$"),
    "a-folder": (None, r": cannot be read: Is a directory$"),
}


@pytest.mark.parametrize(("text", "said"), BROKEN.values(), ids=BROKEN)
def test_a_broken_glossary_names_its_file_and_line(tmp_path, monkeypatch, text, said):
    from book_extensions import glossary

    broken = tmp_path / "glossary.toml"
    if text is None:
        broken.mkdir()
    else:
        broken.write_text(text, encoding="utf-8")
    monkeypatch.setattr(glossary, "GLOSSARY", broken)
    with pytest.raises(glossary.GlossaryError, match=r"glossary\.toml" + said):
        glossary.load_terms()
