"""The Simplified Chinese book, converted from the Traditional (Taiwan) one.

Only ``docs/zh-Hant/`` is written by hand; the zh-Hans book is that book
converted on every build by ``attention_book.zh_hans`` (whose docstring says
how: the book's phrase table, then OpenCC, on prose only).

The hook is in every edition's list (``mkdocs.yml``'s ``hooks:``, which the
other editions inherit), right after ``stages/book.py``, and does nothing but
in the converted edition: the one whose ``theme.language`` is ``zh-Hans``
(``mkdocs.zh-Hans.yml``). There it converts

- the part titles of the navigation, ``mkdocs.zh-Hant.yml``'s (``on_nav``);
- every page's Markdown (``on_page_markdown``), before the glossary and plot
  hooks insert their Simplified table and alt texts, and before the notebook
  hook makes the chapter's notebook of it;

- the words of its configuration that a reader sees (``on_config``): the
  site's name and description, the footer's copyright, the heading links'
  tooltip and the colour scheme toggle's names, which ``mkdocs.zh-Hans.yml``
  inherits from ``mkdocs.zh-Hant.yml`` and never types;

and checks (``on_config``) that the edition's pages are ``docs/zh-Hant/`` and
that the phrase table is sound, so a broken table fails the build at once.

The theme's templates (``overrides/``) get two filters in every edition
(``on_config``, in every environment the theme makes: MkDocs' own, and the
one the PDF's print-site plugin makes to render the print page with the same
templates): ``edition_words`` picks the edition's words from a table of the
hand-written editions' words (``{"ja": …, "zh-Hant": …} | edition_words``),
converting zh-Hant's for zh-Hans, and ``simplified`` converts a string in the
zh-Hans edition and returns it unchanged in the others. So no template types
a Simplified word either (tests/docs/test_interface.py checks it).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from attention_book import ROOT
from attention_book.editions import DERIVED
from attention_book.zh_hans import edition_words, overrides, to_simplified

#: The converted edition's theme.language, and the edition it converts.
LANGUAGE = "zh-Hans"
SOURCE_DOCS = ROOT / "docs" / DERIVED[LANGUAGE]


def converts(config) -> bool:
    """Whether the edition being built is the one this hook converts."""
    return config.theme["language"] == LANGUAGE


def on_config(config):
    add_filters_to_every_environment(config)
    if not converts(config):
        return config
    if Path(config.docs_dir).resolve() != SOURCE_DOCS:
        raise PluginError(f"the {LANGUAGE} book is converted from {SOURCE_DOCS}")
    overrides()  # a broken table fails the build here, not on the first page
    convert_config_words(config)
    return config


def convert_config_words(config) -> None:
    """The configuration's words a reader sees, inherited from
    mkdocs.zh-Hant.yml, in Simplified (HTML tags and entities unchanged)."""
    for key in ("site_name", "site_description", "copyright"):
        if config[key]:
            config[key] = to_simplified(config[key])
    toc = config.mdx_configs.get("toc", {})
    if toc.get("permalink_title"):
        toc["permalink_title"] = to_simplified(toc["permalink_title"])
    for palette in config.theme["palette"] or []:
        toggle = palette.get("toggle") or {}
        if toggle.get("name"):
            toggle["name"] = to_simplified(toggle["name"])


def add_filters(env, language: str) -> None:
    """The templates' filters (the module's docstring) for ``language``."""
    env.filters["edition_words"] = lambda words: edition_words(words, language)
    env.filters["simplified"] = to_simplified if language == LANGUAGE else str


def add_filters_to_every_environment(config) -> None:
    """Every Jinja environment the theme makes has the filters.

    ``Theme.get_env`` makes a new environment at each call: MkDocs calls it
    once (and would then run ``on_env``), but a plugin may call it again, as
    mkdocs-print-site-plugin does to render the PDF's print page with the
    theme's templates, which need the filters too. So the theme's method is
    wrapped, once per configuration.
    """
    theme = config.theme
    if getattr(theme.get_env, "_book_filters", False):
        return
    language = theme["language"]
    make_env = theme.get_env

    def get_env():
        env = make_env()
        add_filters(env, language)
        return env

    get_env._book_filters = True
    theme.get_env = get_env


def on_nav(nav, config, files):
    """The part titles of the navigation (mkdocs.zh-Hant.yml's nav) in Simplified."""
    if converts(config):
        _convert_titles(nav)
    return nav


def _convert_titles(items) -> None:
    for item in items:
        if item.is_section:
            item.title = to_simplified(item.title)
            _convert_titles(item.children)


@event_priority(50)  # before the glossary and plot hooks add Simplified text
def on_page_markdown(markdown, page, config, files):
    return to_simplified(markdown) if converts(config) else markdown
