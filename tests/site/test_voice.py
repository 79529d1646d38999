"""The book speaks to its reader about attention, never about how it was made.

Only the ``about`` page may name the manuscripts the book was written from, or
say how the site is built and tested. Every other built page, in every edition,
is read here as a reader sees it (the article's prose, without code, output and
formulas) and must carry none of the words below: labels of sources, names of
the tools that build or test the book, and repository file names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .helpers import LANGUAGES, text_of, tree

#: Pages that may speak of sources and of the build (their folder).
ABOUT = {"about"}

#: (what it is, pattern). Each pattern is searched in the prose of a page.
FORBIDDEN = [
    ("a source label", r"原典|原稿|原始資料|原始资料|原始文件|原始文稿|原始材料"),
    ("a source label", r"(?i)\bseed[\s_-]*0\d\d\b"),  # not a random seed
    ("build talk", r"OpenCC|\bnpm\b|MkDocs|mkdocs|Material for|\bhooks?\b|Sybil"),
    ("build talk", r"\bpytest\b|Playwright|Chromium|GitHub Actions|\bCI\b|nbmake"),
    ("build talk", r"継続的インテグレーション|持續整合|持续集成"),
    ("build talk", r"ビルド|建置|サイトを生成"),
    ("build talk", r"\bmake (?:test|serve|site)\b|\bvenv\b|\.venv"),
    ("a repository file", r"docs_src|src/attention_docs|\.ipynb\b|\.pycon\b"),
    ("a repository file", r"Makefile|pyproject|constraints\.txt|package\.json"),
    ("a repository file", r"\bhands-on\b|zh_hans_overrides|glossary\.yml"),
]

#: What a reader does not read as prose: code, outputs, formulas and the
#: headers' permalinks.
NOT_PROSE = "pre, code, .highlight, .katex, .arithmatex, script, style, .headerlink"


def prose(path: Path) -> str:
    article = tree(path).cssselect("article.md-content__inner")
    assert article, f"{path}: no article"
    return text_of(article[0], NOT_PROSE)


def book_pages(site: Path, language: str) -> list[Path]:
    return sorted(
        path
        for path in (site / language).rglob("index.html")
        if path.parent.name not in ABOUT and "assets" not in path.parts
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_but_about_speaks_of_sources_or_the_build(site, language) -> None:
    pages = book_pages(site, language)
    assert len(pages) >= 10, pages
    found = []
    for path in pages:
        text = prose(path)
        for what, pattern in FORBIDDEN:
            for match in re.finditer(pattern, text):
                context = text[max(0, match.start() - 30) : match.end() + 30]
                found.append(f"{path.relative_to(site)}: {what}: …{context}…")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_about_page_credits_the_sources(site, language) -> None:
    text = prose(site / language / "about" / "index.html")
    assert "Attention Is All You Need" in text
    assert "CC BY 4.0" in text and "MIT" in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_url_names_a_source(site, language) -> None:
    urls = [p.relative_to(site).as_posix() for p in (site / language).rglob("*")]
    assert not [u for u in urls if re.search(r"(?i)seed", u)]


def test_the_word_list_catches_what_it_names() -> None:
    """The patterns find what they are meant to (and leave plain prose alone)."""
    caught = [
        "原典との違い",
        "與原始資料的差異",
        "seed 002",
        "以 OpenCC 轉換",
        "サイトをビルドするたびに",
        "每次建置網站都重畫",
        "見 docs_src/masks/causal.pycon",
        "CI で実行",
    ]
    for sentence in caught:
        assert any(re.search(p, sentence) for _, p in FORBIDDEN), sentence
    plain = [
        "アテンション重みの各行の合計は 1 です。",
        "注意力權重的每一列總和為 1。",
        "随机种子固定为 0。",
        "乱数は種（シード）を固定して作ります。",
        "The random seed is fixed.",
        "行列の積 \\(Q K^\\top\\) を計算します。",
    ]
    for sentence in plain:
        assert not any(re.search(p, sentence) for _, p in FORBIDDEN), sentence
