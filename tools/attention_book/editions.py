"""The editions of the book, each an MkDocs build of its own (``make site``)."""

from __future__ import annotations

#: language folder -> MkDocs configuration; the first is the default language.
LANGUAGES = {
    "ja": "mkdocs.yml",
    "zh-Hant": "mkdocs.zh-Hant.yml",
    "zh-Hans": "mkdocs.zh-Hans.yml",  # converted from zh-Hant (stages/zh_hans.py)
}

#: An edition with no pages of its own -> the edition it is converted from.
DERIVED = {"zh-Hans": "zh-Hant"}
