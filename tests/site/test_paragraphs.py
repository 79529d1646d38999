"""Dense paragraphs: few paragraphs of the built book are long (issue 26).

A paragraph is a ``<p>`` of a page's article, read as the reader reads its
words: the formulas left out (they are read as formulas, not counted as
characters), inline code kept, runs of white space as one space. The limits
are the editorial pass's: in the whole Japanese book at most 10 paragraphs
over 300 characters, in the Traditional Chinese book at most 10 over 250.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import text_of, tree

#: language -> (characters a paragraph may have, paragraphs allowed over it).
LIMITS = {"ja": (300, 10), "zh-Hant": (250, 10)}

#: What is not counted: formulas, and the headers' permalinks.
NOT_COUNTED = ".katex, .arithmatex, script, style, .headerlink"


def long_paragraphs(site: Path, language: str, limit: int) -> list[tuple[str, int]]:
    """(page, length) of every paragraph of ``language`` over ``limit``."""
    found = []
    for path in sorted((site / language).rglob("index.html")):
        if "assets" in path.parts:
            continue
        article = tree(path).cssselect("article.md-content__inner")
        for paragraph in article[0].cssselect("p") if article else []:
            length = len(" ".join(text_of(paragraph, NOT_COUNTED, sep="").split()))
            if length > limit:
                page = path.parent.relative_to(site / language).as_posix()
                found.append((page if page != "." else "index", length))
    return found


@pytest.mark.parametrize("language", LIMITS)
def test_few_paragraphs_are_long(site, language) -> None:
    limit, allowed = LIMITS[language]
    found = long_paragraphs(site, language, limit)
    listing = "\n".join(
        f"  {page}: {', '.join(str(n) for p, n in found if p == page)}"
        for page in dict.fromkeys(page for page, _ in found)
    )
    assert len(found) <= allowed, (
        f"{language}: {len(found)} paragraphs over {limit} characters "
        f"(at most {allowed}), by page (lengths):\n{listing}"
    )
