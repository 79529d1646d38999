"""The editions' navigations and the book's plugin.

mkdocs.yml (the Japanese edition) and mkdocs.zh-Hant.yml each write the nav
out, because a part's title is words of the edition; the Simplified edition
inherits the Traditional nav and converts its titles (stages/zh_hans.py). The
hooks are the same in every edition: mkdocs.yml lists them, and the others
inherit the list.
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from attention_book import load_yaml
from attention_book.editions import DERIVED, LANGUAGES
from attention_book.stages import zh_hans

from .test_parity import pages

ROOT = Path(__file__).resolve().parents[2]
PARTS = 6  # foundations, mechanism, learning and position, language model, scale, back


def config(name: str) -> dict:
    return load_yaml((ROOT / name).read_text("utf-8"))


def nav(name: str) -> list:
    return config(name)["nav"]


def shape(items: list) -> list:
    """The nav without the part titles: pages, and lists of pages for parts."""
    result = []
    for item in items:
        if isinstance(item, dict):
            ((_, children),) = item.items()
            result.append(shape(children))
        else:
            result.append(item)
    return result


def titles(items: list) -> list[str]:
    return [next(iter(item)) for item in items if isinstance(item, dict)]


def flatten(items: list) -> list[str]:
    listed = [item if isinstance(item, list) else [item] for item in shape(items)]
    return [page for part in listed for page in part]


def test_the_chinese_nav_lists_the_japanese_pages_in_the_same_parts() -> None:
    assert shape(nav("mkdocs.zh-Hant.yml")) == shape(nav("mkdocs.yml"))


def test_the_simplified_edition_inherits_the_traditional_nav() -> None:
    simplified = config("mkdocs.zh-Hans.yml")
    assert simplified["INHERIT"] == "mkdocs.zh-Hant.yml"
    assert "nav" not in simplified


def test_the_book_reads_in_six_parts_titled_in_each_language() -> None:
    ja, zh = titles(nav("mkdocs.yml")), titles(nav("mkdocs.zh-Hant.yml"))
    assert len(ja) == len(zh) == PARTS
    assert len(set(ja)) == len(set(zh)) == PARTS
    assert nav("mkdocs.yml")[0] == "index.md"  # the home page stands before the parts


def test_every_page_is_in_the_nav_once() -> None:
    listed = flatten(nav("mkdocs.yml"))
    assert len(listed) == len(set(listed))
    assert set(listed) == pages("ja") == pages("zh-Hant")


# --- the book's plugin ---------------------------------------------------------


@functools.cache
def loaded(name: str) -> MkDocsConfig:
    """An edition's configuration as MkDocs loads it (INHERIT resolved)."""
    return load_config(config_file=str(ROOT / name))


def test_every_edition_ends_its_plugins_with_the_book() -> None:
    """The book's plugin runs its stages after every other plugin's handlers
    (attention_book.plugin), in every edition, with the same options."""
    from attention_book.plugin import BookPlugin

    for language, name in LANGUAGES.items():
        plugins = loaded(name).plugins
        assert list(plugins)[-1] == "book", (language, list(plugins))
        assert isinstance(plugins["book"], BookPlugin)
        assert plugins["book"].config == {"search": True, "print_view": False}
        assert not loaded(name).hooks, "the build's steps are the plugin's stages"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_zh_hans_stage_converts_the_converted_edition_only(language) -> None:
    config = loaded(LANGUAGES[language])
    hook = zh_hans
    converted = language in DERIVED
    assert hook.converts(config) == converted
    assert hook.on_config(config) is config
    page = "# 注意力機制 { #attention }\n\n列向量的程式碼。\n"
    markdown = hook.on_page_markdown(page, page=None, config=config, files=None)
    assert (markdown != page) == converted, markdown
    part = SimpleNamespace(is_section=True, title="學習與位置", children=[])
    nav = [part, SimpleNamespace(is_section=False, title="程式碼")]
    assert hook.on_nav(nav, config=config, files=None) is nav
    assert (part.title != "學習與位置") == converted, part.title
    assert nav[1].title == "程式碼"
