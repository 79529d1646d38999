"""The search index and the search worker of the built site (stages/search.py).

What the reader gets from them is tested in tests/browser/test_search.py; the
checks here read the built files and say which file is wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attention_book.glossary import location, search_words
from attention_book.stages import notebooks as notebooks_hook
from attention_book.stages import search as search_hook

from .helpers import LANGUAGES

MATERIAL_WORKER = re.compile(r"search\.[0-9a-f]+\.min\.js")


def index_docs(site: Path, language: str) -> list[dict]:
    path = site / language / "search" / "search_index.json"
    return json.loads(path.read_text(encoding="utf-8"))["docs"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_links_are_not_indexed(site, language) -> None:
    """The links under every chapter's title would crowd every search."""
    words = notebooks_hook.words(language)
    docs = index_docs(site, language)
    text = " ".join(d["title"] + " " + d["text"] for d in docs)
    assert words["download"] not in text
    assert words["colab"] not in text
    # The chapters are indexed all the same.
    assert any(d["location"] == "softmax/" for d in docs)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_break_next_to_full_width_punctuation(site, language) -> None:
    """No zero-width space before 。 ） or after （ in titles and snippets."""
    breaks = [
        field[max(0, m.start() - 8) : m.end() + 8]
        for doc in index_docs(site, language)
        for field in (doc["title"], doc["text"])
        for m in search_hook.NEEDLESS_BREAK.finditer(field)
    ]
    assert breaks == []


@pytest.mark.parametrize("language", ["zh-Hant", "zh-Hans"])
def test_chinese_words_keep_their_boundaries(site, language) -> None:
    text = " ".join(d["text"] for d in index_docs(site, language))
    assert "\u200b注意力\u200b" in text
    assert re.search("\u200b[^\u200b]+。", text), "a word ends a sentence"


@pytest.mark.parametrize("language", LANGUAGES)
def test_search_worker_segments_queries_as_the_book_needs(site, language) -> None:
    """The site serves Material's worker with the edits of stages/search.py."""
    [worker] = [
        path
        for path in (site / language / "assets/javascripts/workers").iterdir()
        if MATERIAL_WORKER.fullmatch(path.name)
    ]
    source = worker.read_text(encoding="utf-8")
    for purpose, pattern, _ in search_hook.WORKER_EDITS:
        assert not pattern.search(source), f"the worker does not {purpose}"
    assert '.join(" ")' in source
    assert search_hook.book_query(language) in source, "the query is read first"


@pytest.mark.parametrize("language", LANGUAGES)
def test_code_is_indexed_by_its_names(site, language) -> None:
    """No output or prompt of an example in the index; the names it calls are."""
    text = " ".join(d["text"] for d in index_docs(site, language))
    blocks = search_hook.CODE_BLOCK.findall(text)
    assert len(blocks) > 100
    assert not [block for block in blocks if "&gt;&gt;&gt;" in block]
    assert "[0.665 0.245 0.09 ]" not in text  # an output on the home page
    for name in ("attention_weights", "kv_cache_bytes", "return_weights"):
        assert name in text, name


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_glossary_term_is_a_keyword_of_its_section(site, language) -> None:
    path = site / language / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    assert index["config"]["fields"]["keywords"] == search_hook.KEYWORDS["keywords"]
    keywords = {d["location"]: d.get("keywords", "") for d in index["docs"]}
    for where, words in search_words(language).items():
        held = keywords.get(where) or keywords[where.partition("#")[0]]
        assert set(words) <= set(held.split("\u200b")), where


@pytest.mark.parametrize("language", LANGUAGES)
def test_symbols_and_variant_names_are_keywords_of_their_sections(
    site, language
) -> None:
    """docs_src/search_words.yml: each section holds its symbols' keyword
    and the edition's variant names (セルフアテンション, 複雜度)."""
    docs = {d["location"]: d.get("keywords", "") for d in index_docs(site, language)}
    words = search_hook.load_search_words()
    for where in words["symbols"]:
        held = docs[location(where)].split("\u200b")
        assert search_hook.symbol_keyword(location(where)) in held, where
    for where, editions in words["synonyms"].items():
        held = docs[location(where)].split("\u200b")
        assert set(search_hook.synonyms(editions, language)) <= set(held), where
    # No word the book writes begins with a symbol's keyword (every query
    # term is a prefix): the keywords find their sections only.
    text = " ".join(d["title"] + " " + d["text"] for d in index_docs(site, language))
    assert "zzsym" not in text.lower()
