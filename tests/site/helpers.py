"""Helpers of the site tests."""

from __future__ import annotations

import functools
import importlib
import re
import socket
from pathlib import Path

from bs4 import BeautifulSoup

from attention_book import editions
from attention_book import site as build_site  # noqa: F401 (scripts/build_site.py's code)

ROOT = Path(__file__).resolve().parents[2]

#: language folder -> MkDocs configuration, as ``make site`` builds them.
LANGUAGES: dict[str, str] = editions.LANGUAGES

#: A book with no sources of its own -> the language it is converted from.
DERIVED = editions.DERIVED


def load_hook(name: str):
    """``hooks/<name>.py``: the module ``hooks.<name>``, imported once."""
    return importlib.import_module(f"hooks.{name}")


def traditional_characters(text: str) -> list[str]:
    """The characters of ``text`` that are Traditional only, each in context.

    A character is Traditional only if OpenCC's plain Traditional-to-Simplified
    character conversion ("t2s", no vocabulary) changes it. The book's own
    table plays no part: the check is independent of the conversion it tests.
    """
    import opencc

    t2s = opencc.OpenCC("t2s")
    return [
        text[max(0, m.start() - 12) : m.start() + 12].replace("\n", "⏎")
        for m in re.finditer(r"[^\x00-\x7f]", text)
        if t2s.convert(m[0]) != m[0]
    ]


def parse(path: Path) -> BeautifulSoup:
    """The page's tree, parsed once per session and shared: never change it.

    With their maths typeset, pages are large (a chapter is 0.4 MB of HTML)
    and many tests read every page; a test that removes or edits elements
    calls ``parse_fresh`` instead.
    """
    return _parse(path, path.stat().st_mtime_ns)


@functools.cache
def _parse(path: Path, mtime_ns: int) -> BeautifulSoup:
    return parse_fresh(path)


def parse_fresh(path: Path) -> BeautifulSoup:
    """A tree of the page that is the caller's own to change."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: Where the tests serve the built site. The site is built for this address
#: (SITE_URL), because Material's language selector matches the sitemap's
#: URLs against the page's, port included.
SITE_PORT = _free_port()
LOCAL_HOST = f"127.0.0.1:{SITE_PORT}"
BASE_URL = f"http://{LOCAL_HOST}/"
