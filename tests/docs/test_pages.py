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


#: A sentence of the CJK editions: up to and including its full stop.
SENTENCE = re.compile(r"[^。！？]+[。！？]")


def repeated_sentences(line: str) -> list[str]:
    """The sentences (over 20 characters) that a paragraph says twice."""
    seen, twice = set(), []
    for sentence in (s.strip() for s in SENTENCE.findall(line)):
        if len(sentence) > 20 and sentence in seen:
            twice.append(sentence)
        seen.add(sentence)
    return twice


def test_repeated_sentences_are_found() -> None:
    long = "同じことを二度書いた長い文になっています。"
    assert repeated_sentences(f"前の文です。{long}" * 2) == [long]
    other = "ちがう長さの文がここに並んでいて二つは別の文です。"
    assert repeated_sentences(f"短い。短い。{long}{other}") == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_no_paragraph_says_a_sentence_twice(page: Path) -> None:
    """An edit that pastes a sentence again beside itself (19.3 said
    "この形の要約でも…練習問題 2 で示します。" twice in a row)."""
    found = [
        f"{page_id(page)}:{number}: {sentence}"
        for number, line in prose_lines(page)
        for sentence in repeated_sentences(line)
    ]
    assert not found, "\n".join(found)


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


#: Words the Japanese edition writes in Traditional characters on purpose:
#: the name of the Traditional Chinese edition.
JAPANESE_KEEPS = ("繁體中文",)


def test_the_japanese_edition_writes_no_traditional_character() -> None:
    """A Traditional form that Japanese writes in its own (新字体) form, such
    as 數 for 数 or 值 for 値, is a slip from the Chinese editions: the prose
    linters read it as an unknown word, not as a wrong one. A character is
    such a form if OpenCC's Traditional-to-Japanese character table
    ("t2jp") changes it; its pages and the Japanese examples are read."""
    import opencc

    t2jp = opencc.OpenCC("t2jp")
    sources = sorted((DOCS / "ja").glob("*.md")) + [
        path for path in EXAMPLES if "ja" in path.relative_to(ROOT).parts
    ]
    assert len(sources) > 20
    found = []
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for word in JAPANESE_KEEPS:
            text = text.replace(word, "")
        found += [
            f"{path.relative_to(ROOT)}: {m[0]} ({t2jp.convert(m[0])}) in "
            + text[max(0, m.start() - 10) : m.end() + 10].replace("\n", " ")
            for m in re.finditer(r"[\u3400-\u9fff]", text)
            if t2jp.convert(m[0]) != m[0]
        ]
    assert not found, "\n".join(found)
