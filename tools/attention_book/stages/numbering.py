"""The book's numbers given while it is built (``attention_book.numbering``
holds the scheme and says why): every page's chapter and numbers read before
any page is built, then each page's headings numbered, its equations tagged
and its links to numbered things filled with their numbers."""

from __future__ import annotations

import functools
import posixpath
import re
import unicodedata
from pathlib import Path

from mkdocs.exceptions import PluginError

from attention_book.glossary import converters, load_glossary, variants
from attention_book.numbering import (
    CATALOGUE,
    DISPLAY_BLOCK,
    LABEL,
    REFERENCE,
    SECTION_REFERENCE,
    TAG,
    chapter_numbers,
    full_nav,
    nav_pages,
    number_headings,
    page_numbers,
    page_title,
    quote_section_titles,
    section_numbers,
    section_titles,
    sub_outside_code,
    words,
)
from attention_book.zh_hans import to_simplified


@functools.cache
def glossary_terms(language: str) -> frozenset[str]:
    """Every word of the glossary's terms in ``language`` ('クエリ / キー')."""
    source = "ja" if language == "ja" else "zh-Hant"
    convert = converters(language)[0]
    return frozenset(
        convert(word) for entry in load_glossary() for word in variants(entry[source])
    )


def on_files(files, config):
    """Every page's chapter and numbers, read before any page is built."""
    language = config.theme["language"]
    chapters = chapter_numbers(nav_pages(full_nav(config)))
    catalogue = {}
    docs = Path(config["docs_dir"])
    for page, chapter in chapters.items():
        path = docs / page
        if not path.is_file():
            continue
        markdown = path.read_text(encoding="utf-8")
        numbers, tags = page_numbers(markdown, chapter, language, page)
        # The zh-Hans pages are the Traditional ones converted whole: their
        # titles are read from the page as converted, where the override
        # phrases that keep a heading's wording (a title's "and", not the
        # one of running prose) see the heading and the links that name it
        # alike.
        converted = to_simplified(markdown) if language == "zh-Hans" else markdown
        titles = section_titles(converted)
        title = page_title(converted)
        catalogue[page] = {
            "chapter": chapter,
            "numbers": numbers,
            "tags": tags,
            "titles": titles,
            "sections": section_numbers(markdown, chapter),
            "title": title,
        }
    CATALOGUE[language] = catalogue
    return files


def on_page_markdown(markdown, page, config, files):
    language = config.theme["language"]
    catalogue = CATALOGUE.get(language, {})
    src = page.file.src_uri
    entry = catalogue.get(src)
    if entry is None:
        return markdown
    if entry["chapter"]:
        markdown = number_headings(markdown, entry["chapter"], language)
    tags = entry["tags"]
    markdown = LABEL.sub(lambda m: rf"\tag{{{tags[m['id']]}}}", markdown)

    def reference(match: re.Match) -> str:
        target, name = match["page"], match["id"]
        if target is None and name.startswith("fig-"):
            return match[0]  # the page's own figure: stages/plots.py numbers it
        where = posixpath.normpath(
            posixpath.join(posixpath.dirname(src), target or src)
        )
        number = catalogue.get(where, {}).get("numbers", {}).get(name)
        if number is None:
            raise PluginError(f"{src}: {match[0]} links to nothing numbered on {where}")
        return f"[{number}]({target or ''}#{name})"

    markdown = REFERENCE.sub(reference, markdown)

    def section_reference(match: re.Match) -> str:
        target, name = match["page"], match["id"]
        where = posixpath.normpath(
            posixpath.join(posixpath.dirname(src), target or src)
        )
        number = catalogue.get(where, {}).get("sections", {}).get(name)
        if number is None:
            raise PluginError(
                f"{src}: {match[0]} links to no numbered section of {where}"
            )
        cited = words(language)["section"].format(number)
        # "は18.5 節" -> "は 18.5 節": a space between a word and the number,
        # as the text sets 第 12 章 (none after a bracket or punctuation)
        before = match.string[match.start() - 1] if match.start() else ""
        space = " " if unicodedata.category(before or " ").startswith("L") else ""
        return f"{space}[{cited}]({target or ''}#{name})"

    markdown = sub_outside_code(SECTION_REFERENCE, section_reference, markdown)

    def section(target: str | None, name: str):
        where = posixpath.normpath(
            posixpath.join(posixpath.dirname(src), target or src)
        )
        if posixpath.basename(where) == "references.md":
            return None  # a citation (Kudo, 2018) names a work, not a section
        page = catalogue.get(where, {})
        if name is None:  # the page as a whole: its chapter
            found = page.get("title")
            return None if found is None else (found, page.get("chapter"), False)
        found = page.get("titles", {}).get(name)
        if found is None:
            return None
        # A section named by a glossary term (因果マスク) is linked where the
        # term is used as a word: there it is not cited as a title.
        term = found in glossary_terms(language)
        return found, page.get("sections", {}).get(name), term

    return quote_section_titles(markdown, section, language)


def anchor_equations(markdown, page, config, files):
    """Each labelled equation in a block with its label as its id, which
    links and MkDocs' check of anchors find (after the notebook is made from
    the page: a notebook shows the equation's tag, and links to the page)."""
    language = config.theme["language"]
    entry = CATALOGUE.get(language, {}).get(page.file.src_uri)
    if entry is None or not entry["tags"]:
        return markdown
    by_tag = {tag: name for name, tag in entry["tags"].items()}

    def wrap(match: re.Match) -> str:
        tag = TAG.search(match[0])
        name = by_tag.get(tag["number"]) if tag else None
        if name is None:
            return match[0]
        indent = match["indent"]
        return (
            f'{indent}<div class="book-equation" id="{name}" markdown="block">\n'
            f"{match[0]}\n{indent}</div>"
        )

    return DISPLAY_BLOCK.sub(wrap, markdown)
