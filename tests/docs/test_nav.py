"""The editions' navigations: the same pages in the same parts, each in its language.

mkdocs.yml (the Japanese edition) and mkdocs.zh-Hant.yml each write the nav
out, because a part's title is words of the edition; the Simplified edition
inherits the Traditional nav and converts its titles (hooks/zh_hans.py).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .test_parity import pages

ROOT = Path(__file__).resolve().parents[2]
PARTS = 5  # foundations, the mechanism, learning and position, scale, back matter


def config(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text("utf-8"))


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


def test_the_book_reads_in_five_parts_titled_in_each_language() -> None:
    ja, zh = titles(nav("mkdocs.yml")), titles(nav("mkdocs.zh-Hant.yml"))
    assert len(ja) == len(zh) == PARTS
    assert len(set(ja)) == len(set(zh)) == PARTS
    assert nav("mkdocs.yml")[0] == "index.md"  # the home page stands before the parts


def test_every_page_is_in_the_nav_once() -> None:
    listed = flatten(nav("mkdocs.yml"))
    assert len(listed) == len(set(listed))
    assert set(listed) == pages("ja") == pages("zh-Hant")
