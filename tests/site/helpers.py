"""Helpers of the site tests."""

from __future__ import annotations

import copy
import functools
import os
import re
import socket
import tempfile
from pathlib import Path

import lxml.html
import pytest
from bs4 import BeautifulSoup

from attention_book import editions

ROOT = Path(__file__).resolve().parents[2]

#: language folder -> MkDocs configuration, as ``make site`` builds them.
LANGUAGES: dict[str, str] = editions.LANGUAGES

#: A book with no sources of its own -> the language it is converted from.
DERIVED = editions.DERIVED

#: The editions a browser test checks: the hand-written ones in every tier,
#: the Simplified one (its pages are the Traditional ones converted, with the
#: same templates, scripts and structure: tests/site/test_zh_hans.py proves
#: it from the built HTML) in the exhaustive tier (``make test-exhaustive``).
BROWSER_EDITIONS = [
    pytest.param(language, marks=pytest.mark.exhaustive)
    if language in DERIVED
    else language
    for language in LANGUAGES
]


def sample(values, keep) -> list:
    """Parameters of a test whose whole breadth is the exhaustive tier's: the
    values in ``keep`` run in every tier, the others are marked ``exhaustive``.
    """
    missing = set(keep) - set(values)
    assert not missing, f"the sample names what is not there: {missing}"
    return [
        pytest.param(value, marks=() if value in keep else pytest.mark.exhaustive)
        for value in values
    ]


def selected(session: pytest.Session, fixture: str, argument: str) -> set:
    """The values of ``argument`` taken by this run's selected tests that use
    ``fixture``: what that (session) fixture must prepare for them."""
    return {
        item.callspec.params[argument]
        for item in session.items
        if fixture in getattr(item, "fixturenames", ())
        and argument in getattr(getattr(item, "callspec", None), "params", {})
    }


def traditional_characters(text: str) -> list[str]:
    """The characters of ``text`` that are Traditional only, each in context.

    A character is Traditional only if OpenCC's plain Traditional-to-Simplified
    character conversion ("t2s", no vocabulary) changes it. The book's own
    table plays no part: the check is independent of the conversion it tests.
    """
    import opencc

    t2s = opencc.OpenCC("t2s")
    converted = {c: t2s.convert(c) for c in set(re.findall(r"[^\x00-\x7f]", text))}
    return [
        text[max(0, m.start() - 12) : m.start() + 12].replace("\n", "⏎")
        for m in re.finditer(r"[^\x00-\x7f]", text)
        if converted[m[0]] != m[0]
    ]


def parse(path: Path) -> BeautifulSoup:
    """The page's BeautifulSoup tree, parsed once per process and shared:
    never change it. Reading a whole page this way is slow (a chapter is
    2 MB of typeset maths): ``tree`` and ``soups`` are the fast ways."""
    return _parse(path, path.stat().st_mtime_ns)


@functools.cache
def _parse(path: Path, mtime_ns: int) -> BeautifulSoup:
    return BeautifulSoup(path.read_bytes(), "lxml", from_encoding="utf-8")


def tree(path: Path) -> lxml.html.HtmlElement:
    """The page as lxml's tree, parsed once per process and shared: never
    change it (``text_of`` works on a copy). For the checks that read every
    page of every edition, where BeautifulSoup's trees are too slow."""
    return _tree(path, path.stat().st_mtime_ns)


@functools.cache
def _tree(path: Path, mtime_ns: int) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(path.read_bytes())


def soups(path: Path, selector: str) -> list[BeautifulSoup]:
    """The elements of the built page ``path`` that the CSS ``selector``
    finds (none inside another), each as a BeautifulSoup tree of its own.

    For the checks written on BeautifulSoup's API (tests/copying.py): lxml
    finds the elements in the page's shared tree and BeautifulSoup reads
    only their HTML, not the whole page (a chapter is 2 MB of typeset maths).
    Each tree is the caller's own; its one child is the element.
    """
    found = tree(path).cssselect(selector)
    outermost = [
        element
        for element in found
        if not any(ancestor in found for ancestor in element.iterancestors())
    ]
    return [
        BeautifulSoup(
            lxml.html.tostring(element, encoding="unicode", with_tail=False),
            "html.parser",
        )
        for element in outermost
    ]


def text_of(element: lxml.html.HtmlElement, leave_out: str = "", sep: str = " ") -> str:
    """The text of ``element`` without the elements that the CSS selector
    ``leave_out`` matches: its pieces joined by single spaces, as
    BeautifulSoup's ``get_text(" ")`` and a reader read it; with ``sep=""``,
    exactly as the page holds it (``get_text()``)."""
    if leave_out:
        element = copy.deepcopy(element)
        for found in element.cssselect(leave_out):
            found.clear(keep_tail=True)  # the text after it stays
    text = sep.join(element.itertext())  # not the tail of element itself
    return " ".join(text.split()) if sep else text


def stripped_text(element: lxml.html.HtmlElement, sep: str = " ") -> str:
    """BeautifulSoup's ``get_text(sep, strip=True)`` on lxml's tree: the text
    pieces of ``element``, each stripped, the empty ones left out, joined by
    ``sep`` (the whitespace inside a piece stays as it is)."""
    return sep.join(piece.strip() for piece in element.itertext() if piece.strip())


def classes(element: lxml.html.HtmlElement) -> list[str]:
    """The classes of ``element``, as BeautifulSoup's ``get("class", [])``."""
    return (element.get("class") or "").split()


#: The first process of a run (pytest's own, or pytest-xdist's controller)
#: binds the port the site is served at and keeps it bound until the run
#: ends (tests/conftest.py serves the site on it); its workers, started
#: later, find the port and the folder of the run's one site build in the
#: environment they inherit. BOOK_TEST_PORT chooses the port.
WORKER = "PYTEST_XDIST_WORKER" in os.environ
if not WORKER:
    LISTENER: socket.socket | None = socket.create_server(
        ("127.0.0.1", int(os.environ.get("BOOK_TEST_PORT", "0")))
    )
    os.environ["BOOK_TEST_PORT"] = str(LISTENER.getsockname()[1])
    os.environ["BOOK_TEST_SITE"] = tempfile.mkdtemp(prefix="attention-docs-site-")
else:
    LISTENER = None

#: Where the tests serve the built site. The site is built for this address
#: (SITE_URL), because Material's language selector matches the sitemap's
#: URLs against the page's, port included.
SITE_PORT = int(os.environ["BOOK_TEST_PORT"])
LOCAL_HOST = f"127.0.0.1:{SITE_PORT}"
BASE_URL = f"http://{LOCAL_HOST}/"
#: The folder of the run's one site build (``SITE_DIR/site``), shared by all
#: of the run's processes.
SITE_DIR = Path(os.environ["BOOK_TEST_SITE"])
