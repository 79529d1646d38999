"""The language model's corpus: the prose of the book's own pages, one edition each.

``corpus(edition)`` reads the pages of ``docs/<edition>/`` (for zh-Hans, the
Traditional pages converted as the Simplified book is) and keeps their prose:
one paragraph a line, without code, maths, HTML, includes, link targets,
heading anchors or Markdown markup. ``scripts/train_language_model.py``
writes it into the package (``attention_docs/data/corpus-<edition>.txt``)
beside the weights trained on it, so the book's numbers do not move when its
pages change; the pages are CC BY 4.0 (``LICENSE-BOOK``), like the corpus.
"""

from __future__ import annotations

import re

from attention_book import ROOT
from attention_book.editions import DERIVED

#: Pages left out: lists of terms, titles and credits rather than prose; and
#: the chapters that show the model itself, its samples among them (a corpus
#: that held them would change with every retraining).
SKIPPED = {
    "glossary.md",
    "references.md",
    "about.md",
    "package.md",
    "tokens.md",
    "language-model.md",
    "lm-training.md",
    "generation.md",
    "attention-maps.md",
}

FENCE = re.compile(r"^\s*(```|~~~)")
DROP_LINE = re.compile(r"^\s*(--8<--|<|!\[|\||\{:|\[\^|[-*_]{3,}\s*$)")
ADMONITION = re.compile(r"^\s*(!!!|\?\?\?\+?)\s*\S+\s*(\"(?P<title>[^\"]*)\")?\s*$")
INLINE_MATH = re.compile(r"\\\((.*?)\\\)", re.S)
DISPLAY_MATH = re.compile(r"\\\[.*?\\\]|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S)
CODE = re.compile(r"`([^`]*)`")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
ANCHOR = re.compile(r"\{[^}]*\}")
TAG = re.compile(r"<[^>]+>")
MARKUP = re.compile(r"^\s*(#+|[-*+]|\d+\.|>)\s+")
EMPHASIS = re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)")
SPACES = re.compile(r"[ \t\u3000]+")


def _readable(tex: str) -> str:
    """An inline formula as plain text (``W_Q`` for ``W_Q``, √ for ``\\sqrt``)."""
    from pylatexenc.latex2text import LatexNodes2Text

    return " ".join(LatexNodes2Text(math_mode="text").latex_to_text(tex).split())


def page_paragraphs(markdown: str) -> list[str]:
    """The prose paragraphs of one page, each on one line."""
    markdown = DISPLAY_MATH.sub("", markdown)
    markdown = INLINE_MATH.sub(lambda m: _readable(m.group(1)), markdown)
    paragraphs: list[str] = []
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        text = SPACES.sub(" ", "".join(current)).strip()
        if text:
            paragraphs.append(text)
        current.clear()

    for line in markdown.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            flush()
            continue
        if in_fence:
            continue
        admonition = ADMONITION.match(line)
        if admonition:
            flush()
            if admonition.group("title"):
                paragraphs.append(admonition.group("title").strip())
            continue
        if not line.strip() or DROP_LINE.match(line):
            flush()
            continue
        text = TAG.sub("", ANCHOR.sub("", LINK.sub(r"\1", CODE.sub(r"\1", line))))
        heading = line.lstrip().startswith("#")
        text = EMPHASIS.sub("", MARKUP.sub("", text)).strip()
        if heading:
            flush()
            if text:
                paragraphs.append(text)
            continue
        if text:
            # a line break inside a paragraph: a space between Latin words only
            if current and current[-1][-1:].isascii() and text[:1].isascii():
                current.append(" ")
            current.append(text)
    flush()
    return [p for p in paragraphs if len(p) > 1]


def corpus(edition: str) -> str:
    """The prose of every page of ``edition``, a paragraph a line, pages by name."""
    source = DERIVED.get(edition, edition)
    pages = sorted((ROOT / "docs" / source).glob("*.md"))
    lines: list[str] = []
    for page in pages:
        if page.name in SKIPPED:
            continue
        markdown = page.read_text(encoding="utf-8")
        if edition in DERIVED:
            from attention_book.zh_hans import to_simplified

            markdown = to_simplified(markdown)
        lines.extend(page_paragraphs(markdown))
    return "\n".join(lines) + "\n"
