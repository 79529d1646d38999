"""The interface words of the built pages, in each edition's usage.

The words a reader of every page sees around the book's text, as the browser
gets them: the heading links' tooltip, the skip link, the search box and its
messages, the copy button and its "copied" message (Material's script reads
them from the page's __config), the footer's previous/next, the table of
contents' title, the language selector, the colour scheme toggle, "back to
top", the edit link and the date of the last update; and the 404 page. None is
English; the Traditional edition's are Taiwan's (no Hong Kong or mainland
word: 拷貝, 倉庫, 跳轉 …), the Simplified edition's the mainland's (no Taiwan
word). tests/docs/test_interface.py checks the strings where they are written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_book.stages import glossary
from attention_book.zh_hans import to_simplified

from ..docs.test_interface import ENGLISH, NAMES, not_mainland, not_taiwanese
from .helpers import LANGUAGES, tree

#: (CSS selector, attribute or None for the element's text)
INTERFACE = [
    ("a.headerlink", "title"),
    ("a.md-skip", None),
    ("input.md-search__input", "placeholder"),
    ("input.md-search__input", "aria-label"),
    (".md-search", "aria-label"),
    (".md-search__options [title]", "title"),
    (".md-search-result__meta", None),
    (".md-footer__direction", None),
    ("nav.md-nav--secondary > label.md-nav__title", None),
    (".md-header__option .md-select > button", "aria-label"),
    ("label.md-header__button[for^='__palette_']", "title"),
    ("button.md-top", None),
    ("a.md-content__button", "title"),
    (".md-source-file__fact [title]", None),
    ("nav.md-footer__inner", "aria-label"),
    ("header.md-header", "aria-label"),
    (".md-progress", "aria-label"),
]

CHECK = {"zh-Hant": not_taiwanese, "zh-Hans": not_mainland}


def interface_words(path: Path) -> list[str]:
    page = tree(path)
    words = []
    for selector, attribute in INTERFACE:
        for element in page.cssselect(selector):
            text = element.get(attribute) if attribute else element.text_content()
            if text and text.strip():
                words.append(" ".join(text.split()))
    config = page.cssselect("#__config")
    if config:
        words += json.loads(config[0].text)["translations"].values()
    return words


def pages_of(site: Path, language: str) -> list[Path]:
    folder = site / language
    # The chapters (headings, exercises, code), the home page and the 404 page.
    names = ["index.html", "404.html", "softmax/index.html", "masks/index.html"]
    return [folder / name for name in names]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_interface_is_in_the_editions_usage(site: Path, language: str) -> None:
    found, seen = {}, set()
    for path in pages_of(site, language):
        for word in interface_words(path):
            seen.add(word)
            wrong = sorted(set(ENGLISH.findall(word)) - NAMES)
            if language in CHECK:
                wrong += CHECK[language](word)
            if wrong:
                found[word] = wrong
    assert found == {}
    # the check reads what it should: the tooltip, the copy button, the footer
    assert len(seen) >= 15, sorted(seen)


def test_the_heading_links_and_the_copy_button_speak_each_language(site: Path) -> None:
    expected = {
        "zh-Hant": ("永久連結", "複製", "已複製"),
        "zh-Hans": ("永久链接", "复制", "已复制"),
    }
    for language, (permalink, copy, copied) in expected.items():
        words = interface_words(site / language / "softmax" / "index.html")
        assert permalink in words and copy in words and copied in words, language


def test_the_simplified_words_are_the_traditional_ones_converted(site: Path) -> None:
    """No Simplified interface word is typed by hand (tests/docs/test_interface.py):
    the Simplified page shows every word of the Traditional one, converted."""
    for page in ("index.html", "glossary/index.html", "masks/index.html"):
        hant, hans = (tree(site / lang / page) for lang in ("zh-Hant", "zh-Hans"))
        words = {}
        for lang, built in (("zh-Hant", hant), ("zh-Hans", hans)):
            words[lang] = [
                *interface_words(site / lang / page),
                built.findtext(".//title"),
                built.cssselect(".md-copyright")[0].text_content().strip(),
                *(a.text_content() for a in built.cssselect("div.book-notebook a")),
            ]
        assert len(words["zh-Hans"]) == len(words["zh-Hant"]) > 20, page
        converted = [to_simplified(word) for word in words["zh-Hant"]]
        assert words["zh-Hans"] == converted, page
    # The glossary's headers are its own (its third column is the Taiwan
    # term): stages/glossary.py's Traditional words, converted.
    # Every chapter's table has the same header row.
    tables = tree(site / "zh-Hans" / "glossary" / "index.html").cssselect(
        ".book-glossary table"
    )
    assert len(tables) > 5
    expected = [to_simplified(w) for w in glossary.SIMPLIFIED_HEADERS]
    assert expected[0] == "简体中文"
    for table in tables:
        assert [th.text_content() for th in table.cssselect("th")] == expected
