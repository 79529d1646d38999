"""Both languages are the same book: same pages, anchors, examples, formulas, code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_book import snippets

from .test_pages import ANCHOR, HEADING, prose_lines

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGUAGES = ("ja", "zh-Hant")
REFERENCE = LANGUAGES[0]
FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})\s*\S")
DISPLAY_MATH = re.compile(r"^\s*\\\[")


def pages(language: str) -> set[str]:
    """The pages of a language (and any notebook), relative to its folder."""
    folder = DOCS / language
    paths = [
        p.relative_to(folder) for p in (*folder.rglob("*.md"), *folder.rglob("*.ipynb"))
    ]
    # MkDocs skips dot-folders (such as Jupyter's .ipynb_checkpoints/); so do we.
    return {p.as_posix() for p in paths if not any(s.startswith(".") for s in p.parts)}


def anchors(path: Path) -> list[str]:
    return [
        ANCHOR.search(line)["id"]
        for _, line in prose_lines(path)
        if HEADING.match(line) and ANCHOR.search(line)
    ]


def includes(path: Path) -> list[str]:
    """The includes in order; an edition's own example counts as the same include."""
    return [
        snippets.for_edition(include.spec, "{edition}")
        for include in snippets.includes(path.read_text("utf-8"))
    ]


def display_formulas(path: Path) -> int:
    return sum(1 for _, line in prose_lines(path) if DISPLAY_MATH.match(line))


def code_blocks(path: Path) -> int:
    return sum(
        1 for line in path.read_text("utf-8").splitlines() if FENCE_OPEN.match(line)
    )


def test_every_language_has_the_same_pages() -> None:
    reference = pages(REFERENCE)
    for language in LANGUAGES[1:]:
        other = pages(language)
        assert other == reference, (
            f"only in {REFERENCE}: {sorted(reference - other)}; "
            f"only in {language}: {sorted(other - reference)}"
        )


PAIRS = [
    (page, language)
    for page in sorted(pages(REFERENCE))
    if page.endswith(".md")
    for language in LANGUAGES[1:]
    if (DOCS / language / page).exists()
]


@pytest.mark.parametrize(("page", "language"), PAIRS)
@pytest.mark.parametrize(
    "measure",
    [anchors, includes, display_formulas, code_blocks],
    ids=lambda f: f.__name__,
)
def test_pages_match_across_languages(page, language, measure) -> None:
    expected = measure(DOCS / REFERENCE / page)
    actual = measure(DOCS / language / page)
    assert actual == expected, (
        f"{page}: {measure.__name__} differ\n  {REFERENCE}: {expected}\n"
        f"  {language}: {actual}"
    )
