"""Helpers of the browser tests: the book's pages, and moving between them.

Material's instant navigation fetches the next page and swaps the content in
place: the document, its scripts and its ``window`` stay. ``follow`` clicks a
link and proves that this is what happened (a mark set on ``window`` survives,
the content element was replaced), so that a test can check the new page as a
reader gets it after moving, not only after a fresh load.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

from ..site.helpers import BASE_URL

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
#: How long a test waits for a page to do something, in milliseconds: far
#: more than any step takes here, and far less than Playwright's 30 s.
TIMEOUT = 10_000


def book_pages(site: Path, language: str) -> list[str]:
    """The pages of one language's book, as its sitemap lists them.

    Paths below the site root, e.g. ``["ja/", "ja/glossary/", ...]``.
    """
    tree = ET.parse(site / language / "sitemap.xml")
    urls = [loc.text.strip() for loc in tree.iter(f"{SITEMAP}loc")]
    assert urls, f"{language}: empty sitemap"
    assert all(url.startswith(BASE_URL + language + "/") for url in urls), urls
    return [url.removeprefix(BASE_URL) for url in urls]


def path_of(url: str) -> str:
    """``http://host/ja/masks/#causal-mask`` -> ``/ja/masks/``."""
    return urlsplit(url).path


def nav_link(page, path: str):
    """The link of the primary navigation (left sidebar) to ``path``.

    Found by the address it leads to (its ``href`` may be relative).
    """
    url = BASE_URL + path
    found = page.evaluate(
        """url => {
            let found = 0;
            const sidebar = document.querySelector(".md-sidebar--primary");
            for (const a of sidebar.querySelectorAll("a.md-nav__link")) {
                a.toggleAttribute("data-test-nav", a.href === url);
                found += a.href === url;
            }
            return found;
        }""",
        url,
    )
    assert found == 1, f"{found} links to {url} in the sidebar of {page.url}"
    return page.locator("a[data-test-nav]")


def follow(page, link, expected_path: str) -> None:
    """Click ``link`` and check that instant navigation took it there.

    ``expected_path`` is the URL path the page must reach (``/ja/masks/``).
    Fails if the browser reloaded the page instead (the mark set on
    ``window`` is gone) or if the content was not replaced.
    """
    before = path_of(page.url)
    assert before != expected_path, f"already on {expected_path}"
    # Instant navigation takes only the links that its language's sitemap
    # lists; clicked before the sitemap has come, a link loads the page.
    page.wait_for_function(
        """() => performance.getEntriesByType("resource").some(entry =>
            entry.name.endsWith(`/${document.documentElement.lang}/sitemap.xml`)
            && entry.responseEnd > 0)""",
        timeout=TIMEOUT,
    )
    page.evaluate(
        """() => {
            window.__marker = 1;
            window.__content = document.querySelector("[data-md-component=container]");
        }"""
    )
    link.click()
    page.wait_for_url(lambda url: path_of(url) == expected_path, timeout=TIMEOUT)
    page.wait_for_function(
        """() => document.querySelector("[data-md-component=container]")
                 !== window.__content""",
        timeout=TIMEOUT,
    )
    assert page.evaluate("window.__marker") == 1, (
        f"{before} -> {expected_path} reloaded the page: no instant navigation"
    )


#: How Chromium reports a request that it cancelled.
ABORTED = " (net::ERR_ABORTED)"


def problems_but_cancelled(watch) -> list[str]:
    """``watch.problems()`` but the requests cancelled by leaving a page.

    A test that moves on as soon as a page shows what it checks leaves it
    while it still loads things (the search worker fetches its index and
    lunr's languages after "load", the favicon comes late), and Chromium
    cancels those requests: no failure of the site. test_pages.py checks
    every request of every page.
    """
    return [p for p in watch.problems() if not p.endswith(ABORTED)]
