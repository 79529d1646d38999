"""The glossary: one table (docs_src/glossary.yml), every language's page.

The table is read by ``attention_book.glossary``, which the search hook uses
too (each term leads to the section that explains it).

- ``glossary.md`` of each language holds a marker line; this hook replaces it
  with the tables in the page's language, one under the name of each chapter
  that explains a term, in the book's order (``chapters``): the term, its
  English original, a third term, and the section of the book that explains
  it. The third term is the one a reader of that edition meets elsewhere: the
  Chinese term on the Japanese page, the mainland (Simplified) term on the
  Traditional page, which the Simplified conversion gives, and the Taiwan term
  (the Traditional page's own, in Traditional characters) on the Simplified
  page: mainland readers meet it in Taiwanese lectures and books, where the
  Japanese term would be of little use to them. The tables sit in one
  ``<div class="book-glossary">`` (md_in_html), for the stylesheet's
  narrow-screen layout of their rows.
- The Chinese search index keeps the glossary's terms whole: jieba learns them
  as words, so that 線性變換 or 注意力權重 is one token that a search finds.
- The Simplified Chinese book (zh-Hans) has no column of its own in the
  table: its terms are the Traditional ones converted by
  ``attention_book.zh_hans``, the conversion that makes the rest of its pages.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from attention_book.editions import DERIVED
from attention_book.glossary import (
    GLOSSARY,
    converters,
    load_glossary,
    variants,
)
from attention_book.numbering import chapter_numbers, full_nav, nav_pages
from attention_book.zh_hans import edition_words, to_simplified_text

MARKER = "<!-- glossary-table -->"
HEADERS = {
    "ja": ("日本語", "英語", "中国語（繁体字）", "説明している節"),
    "zh-Hant": ("繁體中文", "英文", "中國大陸用語", "說明的一節"),
}
#: The Simplified page's headers, written like every Simplified word of the
#: book in Traditional characters and converted at build time (``headers``):
#: its third column is the Taiwan term, not the mainland one.
SIMPLIFIED_HEADERS = ("簡體中文", "英文", "臺灣用語", "說明的一節")


def headers(language: str) -> tuple[str, ...]:
    """The table's column headers on ``language``'s glossary page."""
    if language in DERIVED:
        return edition_words({DERIVED[language]: SIMPLIFIED_HEADERS}, language)
    return HEADERS[language]


HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*\{\s*#(?P<id>[\w-]+)\s*\}\s*$", re.M)
HAN_ONLY = re.compile(r"^[\u4e00-\u9fff]{2,}$")


def section_title(docs_dir: Path, target: str, markdown=None) -> str:
    """'scaled-dot-product.md#scores' -> 'スケール化内積アテンション › スコア'.

    ``markdown`` converts the page (zh-Hans: ``to_simplified``) before its
    headings are read: a title reads as the converted page's heading does.
    """
    page, _, anchor = target.partition("#")
    path = docs_dir / page
    if not path.is_file():
        raise PluginError(f"{GLOSSARY.name}: {page} does not exist in {docs_dir}")
    source = path.read_text("utf-8")
    source = markdown(source) if markdown else source
    headings = {m["id"]: m["text"] for m in HEADING.finditer(source)}
    title = next(iter(headings.values()), page)
    if anchor and anchor not in headings:
        raise PluginError(f"{GLOSSARY.name}: no heading #{anchor} in {path}")
    if not anchor or headings[anchor] == title:
        return title
    return f"{title} › {headings[anchor]}"


LEVELED = re.compile(
    r"^(?P<level>#{1,6})\s+(?P<text>.+?)\s*\{\s*#(?P<id>[\w-]+)\s*\}\s*$", re.M
)


def parent_section(
    docs_dir: Path, target: str, markdown=None
) -> tuple[str, str] | None:
    """The ``##`` section (its id and title) that holds ``target``'s heading
    when that heading is a ``###`` or deeper one (a subsection, which has no
    number of its own), else None: 'notation.md#batch-dimensions' ->
    ('shapes', '記号の表')."""
    page, _, anchor = target.partition("#")
    source = (docs_dir / page).read_text("utf-8")
    source = markdown(source) if markdown else source
    parent = None
    for m in LEVELED.finditer(source):
        if len(m["level"]) == 2:
            parent = (m["id"], m["text"])
        if m["id"] == anchor:
            return parent if len(m["level"]) > 2 else None
    return None


def third_term(language: str, entry: dict) -> str:
    """The table's third column: the term a reader of ``language`` meets elsewhere."""
    if language == "zh-Hant":
        return f'<span lang="zh-Hans">{to_simplified_text(entry["zh-Hant"])}</span>'
    if language in DERIVED:
        return f'<span lang="{DERIVED[language]}">{entry[DERIVED[language]]}</span>'
    return f'<span lang="zh-Hant">{entry["zh-Hant"]}</span>'  # ja: the Chinese term


def section_order(docs_dir: Path, page: str) -> dict[str, int]:
    """Each heading id of ``page`` -> its place on the page (0, 1, 2 ...)."""
    text = (docs_dir / page).read_text("utf-8")
    return {m["id"]: place for place, m in enumerate(HEADING.finditer(text))}


def chapters(language: str, docs_dir: Path, pages: list[str]) -> list[tuple]:
    """The glossary's groups: (page, its heading, its entries) for every page
    that explains a term, in the book's reading order (``pages``: the
    navigation's), and each group's entries in the order of the sections
    that explain them (glossary.yml's order among terms of one section).

    A term thus stands where the book introduces it: the page reads like the
    book, chapter by chapter, and a reader who knows roughly where a word came
    up finds it under that chapter."""
    numbers = chapter_numbers(pages)
    place = {page: index for index, page in enumerate(pages)}
    groups: dict[str, list[dict]] = {}
    for entry in load_glossary():
        page = entry["page"].partition("#")[0]
        if page not in place:
            raise PluginError(f"{GLOSSARY.name}: {page} is not in the navigation")
        groups.setdefault(page, []).append(entry)
    found = []
    for page in sorted(groups, key=place.__getitem__):
        order = section_order(docs_dir, page)
        entries = sorted(
            groups[page],
            key=lambda entry: order.get(entry["page"].partition("#")[2], -1),
        )
        title = section_title(docs_dir, page, converters(language)[1])
        number = numbers.get(page)
        found.append((page, f"{number} {title}" if number else title, entries))
    return found


def glossary_table(language: str, docs_dir: Path, pages: list[str]) -> str:
    """The glossary in ``language``: a heading and a table for each chapter
    that explains a term, in the book's order (``chapters``)."""
    source = DERIVED.get(language, language)
    text, markdown = converters(language)
    parts = []
    for page, heading, entries in chapters(language, docs_dir, pages):
        anchor = "glossary-" + page.removesuffix(".md")
        # The chapter names its table in bold, not in a heading: a heading
        # would be a section of the search index of its own, found before the
        # chapter itself by a search for the chapter's title.
        lines = [
            f"**{heading}**",  # converted with its page (``section_title``)
            f"{{: #{anchor} .book-glossary-chapter }}",
            "",
            "| " + " | ".join(headers(language)) + " |",
            "|---|---|---|---|",
        ]
        for entry in entries:
            # The chapter is the group's heading: the link names the section.
            title = section_title(docs_dir, entry["page"], markdown)
            title = title.rpartition(" › ")[2]
            link = f"[{title}]({entry['page']})"
            parent = parent_section(docs_dir, entry["page"], markdown)
            if parent:  # a subsection: cited with its section's number
                page = entry["page"].partition("#")[0]
                link = f"[{parent[1]}]({page}#{parent[0]})（{link}）"
            cells = (
                text(entry[source]),
                f'<span lang="en">{entry["en"]}</span>',
                third_term(language, entry),
                link,
            )
            lines.append("| " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    tables = "\n\n".join(parts)
    return f'<div class="book-glossary" markdown>\n\n{tables}\n\n</div>'


#: Words of the pages' titles that jieba's dictionaries cut in two (線性/代數):
#: the search finds a title as the reader types it only if the index holds
#: its words whole (the query is cut along the index's words, stages/search.py).
TITLE_WORDS = ("線性代數", "物件導向")


def on_config(config):
    language = config.theme["language"]
    if language.startswith("zh"):
        from material.plugins.search import plugin as search_plugin

        text, _ = converters(language)
        for word in TITLE_WORDS:
            search_plugin.jieba.add_word(text(word))
        for entry in load_glossary():
            for word in variants(text(entry[DERIVED.get(language, language)])):
                if HAN_ONLY.match(word):
                    search_plugin.jieba.add_word(word)
        if language == "zh-Hant":  # the glossary's mainland column
            for entry in load_glossary():
                for word in variants(to_simplified_text(entry["zh-Hant"])):
                    if HAN_ONLY.match(word):
                        search_plugin.jieba.add_word(word)
    return config


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "glossary.md":
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"{page.file.src_path} must hold the line {MARKER}")
    pages = nav_pages(full_nav(config))
    table = glossary_table(config.theme["language"], Path(config.docs_dir), pages)
    return markdown.replace(MARKER, table)
