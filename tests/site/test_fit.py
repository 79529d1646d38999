"""The built pages around the book: 404 pages, root pages, favicon, tables.

- Each edition's 404 page speaks its language (Simplified in zh-Hans, which
  templates do not get from the conversion) and offers its home page and its
  search, by absolute paths under the address the site is built for.
- The root 404 page, which a host serves at any depth, links everything
  relative to a <base> that the build sets to the root of that address, also
  under a sub-path (a GitHub Pages project site); the root chooser names the
  book in all three languages, each marked with its language.
- Every page, root pages included, names the SVG favicon, and it exists.
- No table has a header cell without text (a screen reader reads it as the
  name of its column).

The browser tests (tests/browser/test_fit.py) check how these pages look and
behave; these checks read the built HTML only.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from attention_book import site as build_site
from attention_book.zh_hans import edition_words

from .helpers import (
    BASE_URL,
    LANGUAGES,
    parse,
    stripped_text,
    traditional_characters,
    tree,
)

#: What each edition's 404 page must say (overrides/404.html): the
#: Simplified edition's words are the Traditional ones, converted.
NOT_FOUND = {
    "ja": ("ページが見つかりません", "トップページへ", "本書を検索"),
    "zh-Hant": ("找不到這個頁面", "回到首頁", "搜尋本書"),
}
NOT_FOUND["zh-Hans"] = edition_words(NOT_FOUND, "zh-Hans")
SVG = "{http://www.w3.org/2000/svg}svg"


def resolve(page_url: str, page, href: str) -> str:
    """``href`` as a browser resolves it on ``page`` (lxml's tree) served at
    ``page_url``."""
    base = page.xpath("//base/@href")
    return urljoin(urljoin(page_url, base[0]) if base else page_url, href)


def local_file(site: Path, url: str) -> Path:
    """The built file that the test server answers ``url`` with."""
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}/" == BASE_URL, url
    path = site / parts.path.lstrip("/")
    return path / "index.html" if path.is_dir() else path


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_edition_404_page_speaks_its_language(site: Path, language: str) -> None:
    soup = parse(site / language / "404.html")
    title, home, search = NOT_FOUND[language]
    assert soup.find("html")["lang"] == language
    assert soup.title.get_text().startswith(title)
    article = soup.select_one("article.md-content__inner")
    assert article.h1.get_text(strip=True) == title
    assert "404 - Not found" not in soup.get_text()
    links = {a.get_text(" ", strip=True): a["href"] for a in article.find_all("a")}
    # Absolute paths from the address the edition is built for (SITE_URL):
    # the page is right at any depth, under any sub-path.
    root = urlsplit(BASE_URL).path + language + "/"
    assert links[home] == root
    assert links[search] == root + "?q="  # Material opens its search for ?q=
    assert local_file(site, urljoin(BASE_URL, root)).is_file()
    if language == "zh-Hans":
        assert not traditional_characters(article.get_text()), article.get_text()


def test_root_404_page_offers_every_book_and_its_search(site: Path) -> None:
    soup, page = parse(site / "404.html"), tree(site / "404.html")
    assert soup.find("html")["lang"] == "mul"
    assert soup.find("script") is None, "readable and usable without JavaScript"
    assert soup.find("base")["href"] == urlsplit(BASE_URL).path
    heading = {span["lang"]: span.get_text() for span in soup.h1.find_all("span")}
    assert heading == {language: NOT_FOUND[language][0] for language in LANGUAGES}
    # A host serves it for any missing address, at any depth.
    served_at = BASE_URL + "zh-Hant/no/such/page/"
    for language in LANGUAGES:
        section = soup.find("section", lang=language)
        _, home, search = NOT_FOUND[language]
        links = {a.get_text(strip=True): a["href"] for a in section.find_all("a")}
        assert resolve(served_at, page, links[home]) == f"{BASE_URL}{language}/"
        assert resolve(served_at, page, links[search]) == f"{BASE_URL}{language}/?q="
        assert local_file(site, f"{BASE_URL}{language}/").is_file()


def test_root_404_page_links_under_a_sub_path(tmp_path: Path) -> None:
    """Built for a GitHub Pages project site, its links keep the sub-path."""
    site_url = "https://user.github.io/attention_docs/"
    build_site.copy_root_pages(tmp_path, site_url)
    soup, page = parse(tmp_path / "404.html"), tree(tmp_path / "404.html")
    assert soup.find("base")["href"] == "/attention_docs/"
    served_at = site_url + "ja/no/such/page/"
    hrefs = [a["href"] for a in soup.find_all("a")]
    hrefs.append(soup.find("link", rel="icon")["href"])
    for href in hrefs:
        url = resolve(served_at, page, href)
        assert url.startswith(site_url), f"{href} -> {url}"
    # The root chooser is copied with its Simplified words converted, and
    # links relatively.
    chooser = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert chooser == build_site.root_page(build_site.ROOT / "site-root" / "index.html")
    assert "{{zh-Hans:" not in chooser and "从矩阵学注意力机制" in chooser


def test_root_page_names_the_book_in_every_language(site: Path) -> None:
    soup = parse(site / "index.html")
    heading = {span["lang"] for span in soup.h1.find_all("span", lang=True)}
    assert heading == set(LANGUAGES)
    items = soup.select("main li[lang]")
    assert [li["lang"] for li in items] == list(LANGUAGES)
    for item in items:
        assert item.a["href"] == f"{item['lang']}/"
        assert item.p.get_text(strip=True), "a sentence about the book"
    # Its own style, and the stylesheet it shares with the root 404 page.
    style = "".join(element.get_text() for element in soup.find_all("style"))
    for link in soup.select("link[rel~=stylesheet]"):
        style += (site / link["href"]).read_text(encoding="utf-8")
    assert soup.select("link[rel~=stylesheet]"), "the shared root.css"
    for language in LANGUAGES:
        assert f":lang({language})" in style, "each language's own fonts"
    assert "prefers-color-scheme: dark" in style


def favicon(page) -> str:
    """The href of the page's one icon link (lxml's tree)."""
    icons = [
        link for link in page.iter("link") if "icon" in link.get("rel", "").split()
    ]
    assert len(icons) == 1, icons
    return icons[0].attrib["href"]


def test_every_page_names_the_svg_favicon(site: Path, pages) -> None:
    paths = [path for language in LANGUAGES for path in pages[language]]
    paths += [site / "index.html", site / "404.html"]
    for path in paths:
        page = tree(path)
        page_url = BASE_URL + path.relative_to(site).as_posix()
        url = resolve(page_url, page, favicon(page))
        assert url.endswith("/assets/images/favicon.svg"), f"{path}: {url}"
        icon = local_file(site, url)
        assert icon.is_file(), f"{path}: {url}"
        assert ET.parse(icon).getroot().tag == SVG


def test_no_table_header_cell_is_empty(pages) -> None:
    empty = [
        f"{path}: {stripped_text(next(th.iterancestors('table')))[:60]}"
        for paths in pages.values()
        for path in paths
        for th in tree(path).iter("th")
        if not stripped_text(th, "")
    ]
    assert not empty, "\n".join(empty)
