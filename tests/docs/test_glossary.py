"""The glossary table: complete entries, used terms, existing targets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_book import load_yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ALL_ENTRIES = load_yaml((ROOT / "docs_src" / "glossary.yml").read_text("utf-8"))
#: The terms; the entries without `page` are usage rules for the prose linters.
ENTRIES = [entry for entry in ALL_ENTRIES if "page" in entry]
LANGUAGES = ("ja", "zh-Hant")


def book_text(language: str) -> str:
    return "".join(
        path.read_text("utf-8")
        for path in sorted((DOCS / language).glob("*.md"))
        if path.name != "glossary.md"
    )


def words(term: str) -> list[str]:
    """'クエリ / キー / バリュー' -> three words; '頭（注意力頭）' -> ['頭']."""
    return [re.sub(r"[（(].*?[）)]", "", part).strip() for part in term.split("/")]


def test_glossary_extends_the_design_table() -> None:
    english = [entry["en"] for entry in ENTRIES]
    assert len(english) == len(set(english)), "one entry per English term"
    for term in ("attention weights", "softmax", "row vector / column vector"):
        assert term in english


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_glossary_term_is_used_by_the_book(language: str) -> None:
    text = book_text(language)
    unused = [
        entry[language]
        for entry in ENTRIES
        if not all(word in text for word in words(entry[language]))
    ]
    assert not unused, f"{language}: glossary terms the book never uses: {unused}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_glossary_entry_points_to_an_existing_section(language: str) -> None:
    for entry in ENTRIES:
        page, _, anchor = entry["page"].partition("#")
        text = (DOCS / language / page).read_text("utf-8")
        assert re.search(rf"\{{\s*#{re.escape(anchor)}\s*\}}", text), entry["page"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_glossary_page_holds_the_generated_table(language: str) -> None:
    text = (DOCS / language / "glossary.md").read_text("utf-8")
    assert text.count("<!-- glossary-table -->") == 1
