"""The Simplified Chinese book, converted from the Traditional (Taiwan) one.

Only ``docs/zh-Hant/`` is written by hand; the zh-Hans book is that book
converted on every build by ``attention_book.zh_hans`` (whose docstring says
how: the book's phrase table, then OpenCC, on prose only). As a MkDocs hook
(``mkdocs.zh-Hans.yml``, listed before the hooks that add text of their own)
it converts

- the part titles of the navigation, ``mkdocs.zh-Hant.yml``'s (``on_nav``);
- every page's Markdown (``on_page_markdown``), before the glossary and plot
  hooks insert their Simplified table and alt texts, and before the notebook
  hook makes the chapter's notebook of it.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from attention_book import ROOT
from attention_book.zh_hans import overrides, to_simplified

LANGUAGE = "zh-Hans"
SOURCE_DOCS = ROOT / "docs" / "zh-Hant"


def on_config(config):
    if config.theme["language"] != LANGUAGE:
        raise PluginError(f"hooks/zh_hans.py belongs to the {LANGUAGE} build only")
    if Path(config.docs_dir).resolve() != SOURCE_DOCS:
        raise PluginError(f"the {LANGUAGE} book is converted from {SOURCE_DOCS}")
    overrides()  # a broken table fails the build here, not on the first page
    return config


def on_nav(nav, config, files):
    """The part titles of the navigation (mkdocs.zh-Hant.yml's nav) in Simplified."""
    for item in nav:
        if item.is_section:
            item.title = to_simplified(item.title)
            on_nav(item.children, config, files)
    return nav


@event_priority(50)  # before the glossary and plot hooks add Simplified text
def on_page_markdown(markdown, page, config, files):
    return to_simplified(markdown)
