"""Checks of the book's Markdown sources: anchors, includes, math delimiters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_book import snippets

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
EXAMPLES = sorted((ROOT / "docs_src").rglob("*.pycon"))
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
HEADING = re.compile(r"^(#{1,6})\s+(?P<text>.*?)\s*$")
ANCHOR = re.compile(r"\{\s*#(?P<id>[a-z0-9]+(?:-[a-z0-9]+)*)\s*\}$")


def prose_lines(path: Path):
    """Yield (line number, line) outside fenced code blocks."""
    fence = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line)
        if match and (fence is None or match.group(1)[0] == fence[0]):
            fence = None if fence else match.group(1)
            continue
        if fence is None:
            yield number, line


def page_id(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


def test_there_are_pages_and_examples() -> None:
    assert len(PAGES) >= 2
    assert EXAMPLES


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_heading_has_an_explicit_ascii_anchor(page: Path) -> None:
    missing = [
        f"{page_id(page)}:{number}: {line}"
        for number, line in prose_lines(page)
        if HEADING.match(line) and not ANCHOR.search(line)
    ]
    assert not missing, "headings without { #ascii-anchor }:\n" + "\n".join(missing)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_anchors_are_unique_within_a_page(page: Path) -> None:
    anchors = [
        ANCHOR.search(line)["id"]
        for _, line in prose_lines(page)
        if HEADING.match(line) and ANCHOR.search(line)
    ]
    duplicates = sorted({a for a in anchors if anchors.count(a) > 1})
    assert not duplicates, f"{page_id(page)}: {duplicates}"


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_math_uses_only_bracket_delimiters(page: Path) -> None:
    """Display math is \\[...\\] and inline math \\(...\\): a $ is a dollar sign."""
    offenders = [
        f"{page_id(page)}:{number}: {line}"
        for number, line in prose_lines(page)
        if "$$" in line or line.strip().startswith("```math")
    ]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_no_unfinished_text(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for marker in ("TODO", "FIXME", "TBD", "XXX", "lorem ipsum"):
        assert marker.lower() not in text.lower(), f"{page_id(page)}: {marker}"


def test_every_example_is_shown_in_the_book() -> None:
    included = {
        include.path
        for page in PAGES
        for include in snippets.includes(page.read_text(encoding="utf-8"))
    }
    # the Simplified page includes zh-Hans/ where the Traditional one has zh-Hant/
    included |= {snippets.for_edition(path, "zh-Hans") for path in included}
    unused = [
        e.relative_to(ROOT).as_posix()
        for e in EXAMPLES
        if e.relative_to(ROOT).as_posix() not in included
    ]
    assert not unused, "examples no page includes:\n" + "\n".join(unused)
