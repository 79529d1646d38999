"""The built Simplified Chinese book: the Traditional one, converted, nothing lost.

site/zh-Hans/ is built from docs/zh-Hant/ by stages/zh_hans.py (see
tests/docs/test_zh_hans.py for the conversion itself). Here, the result:

- parity: the same pages as the Traditional book, and on each page the same
  anchors, links, images, code (with its outputs) and maths;
- Simplified everywhere: no Traditional-only character in any page's text,
  title, navigation or search index (text marked as another language, such as
  the selector's 繁體中文 or the glossary's Taiwan terms, excepted);
- the table's rows and columns as a reader sees them on the built pages;
- a search index segmented by jieba's Simplified dictionary.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from attention_book import snippets
from attention_book.stages import glossary

from .helpers import DERIVED, ROOT, parse, text_of, traditional_characters, tree

LANGUAGE = "zh-Hans"
SOURCE = DERIVED[LANGUAGE]


#: A link to the edition's own PDF: attention-zh-Hant.pdf, attention-zh-Hans.pdf.
OWN_PDF = re.compile(r"attention-zh-Han[st]\.pdf$")


@cache
def html_pages(site: Path, language: str) -> dict[str, Path]:
    folder = site / language
    return {p.relative_to(folder).as_posix(): p for p in folder.rglob("*.html")}


def article(path: Path):
    return parse(path).select_one("article.md-content__inner")


def structure(path: Path) -> dict[str, list[str] | str]:
    """What the conversion must not change on a page."""
    found = tree(path).cssselect("article.md-content__inner")
    # The 404 page is no page of the book: its words come from a template
    # (overrides/404.html), not from the conversion, and link its own edition.
    if not found or path.name == "404.html":
        return {}
    node = found[0]
    code = [pre.text_content().strip() for pre in node.iter("pre")]
    if own_examples(path):
        # the edition's own examples: other strings and outputs, so other
        # lines (and line anchors); the same blocks in the same places
        code = [f"<{len(code)} blocks>"]
    return {
        "ids": [
            e.get("id")
            for e in node.iterdescendants()
            if e.get("id") is not None and not e.get("id").startswith(LINE_IDS)
        ],
        # Each edition links its own PDF (stages/book.py; tests/site/test_pdf.py).
        "links": [
            OWN_PDF.sub("attention-<edition>.pdf", a.get("href"))
            for a in node.iterdescendants("a")
            if a.get("href") is not None
            and not a.get("href").startswith("#" + LINE_ANCHOR)
        ],
        "images": [img.get("src", "") for img in node.iterdescendants("img")],
        "code": "\n".join(code),
        "maths": [m.text_content() for m in node.find_class("arithmatex")],
    }


#: The anchors and spans of code lines (pymdownx.highlight's anchor_linenums
#: and line_spans).
LINE_ANCHOR = "__codelineno-"
LINE_IDS = (LINE_ANCHOR, "__span-")


def own_examples(path: Path) -> bool:
    """Whether the page includes examples of the edition's own folder
    (docs_src/<page>/<edition>/): its code differs between the editions."""
    page = ROOT / "docs" / SOURCE / f"{path.parent.name}.md"
    if not page.is_file():
        return False
    text = page.read_text(encoding="utf-8")
    return any(
        snippets.EDITION_FOLDER.search(include.path)
        for include in snippets.includes(text)
    )


def test_the_same_pages_as_the_traditional_book(site: Path) -> None:
    assert set(html_pages(site, LANGUAGE)) == set(html_pages(site, SOURCE))


def test_every_page_keeps_anchors_links_images_code_and_maths(site: Path) -> None:
    differences = []
    pages = html_pages(site, LANGUAGE)
    compared = 0
    for relative, source in sorted(html_pages(site, SOURCE).items()):
        expected, actual = structure(source), structure(pages[relative])
        compared += bool(expected.get("code"))
        differences += [
            f"{relative}: {kind}"
            for kind in expected
            if actual.get(kind) != expected[kind]
        ]
    assert compared >= 10, "the check compares the book's pages"
    assert differences == []


@cache
def visible_text(path: Path) -> str:
    """The page's text in its own language: title, navigation, article, UI."""
    page = tree(path)
    others = f'script, style, svg, [lang]:not([lang="{LANGUAGE}"])'
    title = page.find("head/title").text_content()
    return title + "\n" + text_of(page.find("body"), others, sep="")


def test_no_traditional_character_is_left_on_any_page(site: Path) -> None:
    left = {}
    for relative, path in sorted(html_pages(site, LANGUAGE).items()):
        text = visible_text(path)
        assert re.search(r"[\u4e00-\u9fff]", text), relative
        if found := traditional_characters(text):
            left[relative] = found[:5]
    assert left == {}


def test_no_traditional_character_is_left_in_the_search_index(site: Path) -> None:
    path = site / LANGUAGE / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    text = "\n".join(doc["title"] + "\n" + doc["text"] for doc in index["docs"])
    text = text.replace("\u200b", "")  # jieba's word boundaries
    # The glossary names every term as Taiwan writes it too (the index keeps
    # no lang).
    taiwan = [entry[SOURCE] for entry in glossary.load_glossary()]
    for term in sorted(taiwan, key=len, reverse=True):
        text = text.replace(term, "")
    assert traditional_characters(text) == []


def test_the_check_would_find_traditional_text(site: Path) -> None:
    source = html_pages(site, SOURCE)["index.html"]
    assert traditional_characters(visible_text(source)) != []


def glossary_row(site: Path, language: str, english: str) -> list[str]:
    for row in parse(site / language / "glossary" / "index.html").select("tbody tr"):
        cells = [cell.get_text(strip=True) for cell in row.find_all("td")]
        if cells[1] == english:
            return cells
    raise AssertionError(f"{language}: no glossary row for {english}")


def test_rows_and_columns_swap_their_names(site: Path) -> None:
    """Taiwan: 列 = row, 行 = column; mainland: 行 = row, 列 = column."""
    english = "row vector / column vector"
    assert glossary_row(site, SOURCE, english)[0] == "列向量 / 行向量"
    assert glossary_row(site, LANGUAGE, english)[0] == "行向量 / 列向量"
    notation = article(site / LANGUAGE / "notation" / "index.html").get_text()
    assert "行向量" in notation and "列向量" in notation


@pytest.mark.parametrize(
    ("english", "term"),
    [
        ("mask", "掩码"),
        ("attention weights", "注意力权重"),
        ("query / key / value", "查询 / 键 / 值"),
        ("linear transformation", "线性变换"),
    ],
)
def test_glossary_terms_are_mainland_terms(site: Path, english, term) -> None:
    row = glossary_row(site, LANGUAGE, english)
    assert row[0] == term
    assert row[2] == glossary_row(site, SOURCE, english)[0]  # the Taiwan term


def test_vector_is_never_a_physicists_vector(site: Path) -> None:
    for relative, path in html_pages(site, LANGUAGE).items():
        assert "矢量" not in visible_text(path), relative


def test_search_index_is_segmented_with_the_simplified_dictionary(site: Path) -> None:
    """jieba (Simplified dictionary, plus the glossary's terms) splits the text
    at build time; each word below must come out as one token."""
    path = site / LANGUAGE / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    separator = re.compile(index["config"]["separator"])
    text = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"])
    assert "\u200b" in text
    tokens = set(separator.split(text))
    words = [
        "矩阵",
        "向量",
        "计算",
        "函数",
        "序列",
        "线性变换",
        "注意力权重",
        "因果掩码",
    ]
    assert [word for word in words if word not in tokens] == []
