"""Checks of the built site: languages, <html lang>, no other host, KaTeX, sections."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from attention_book.stages import book as book_hook

from .helpers import LANGUAGES, LOCAL_HOST, classes, parse, stripped_text, tree

# Attributes through which a page makes the browser request something.
RESOURCE_ATTRIBUTES = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"),
}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def other_host(url: str) -> bool:
    url = url.strip().split()[0] if url.strip() else url
    parts = urlsplit(url)
    if parts.scheme in ("", "data", "blob") and not url.startswith("//"):
        return False
    return parts.netloc != LOCAL_HOST


def resource_urls(page) -> list[str]:
    """The URLs that ``page`` (lxml's tree) makes the browser request."""
    urls = []
    for tag, attributes in RESOURCE_ATTRIBUTES.items():
        for element in page.iter(tag):
            for attribute in attributes:
                value = element.get(attribute)
                if not value:
                    continue
                if attribute == "srcset":  # "url 1x, url 2x"
                    urls += [part.strip().split(" ")[0] for part in value.split(",")]
                else:  # one URL, which may hold commas (data:image/png;base64,...)
                    urls.append(value.strip())
    for element in page.iter("link"):
        rel = set(element.get("rel", "").split())
        if rel & {
            "stylesheet",
            "icon",
            "preload",
            "modulepreload",
            "manifest",
            "prefetch",
            "preconnect",
            "dns-prefetch",
        }:
            urls.append(element.get("href", ""))
    for element in page.xpath("//*[@style]"):
        urls += [a or b for a, b in CSS_URL.findall(element.get("style"))]
    for element in page.iter("style"):
        urls += [a or b for a, b in CSS_URL.findall("".join(element.itertext()))]
    return urls


def test_every_language_is_built_in_its_folder(site: Path) -> None:
    assert (site / "index.html").is_file()
    for language in LANGUAGES:
        assert (site / language / "index.html").is_file(), language
        assert (site / language / "search" / "search_index.json").is_file()


def test_every_page_declares_its_language(pages) -> None:
    for language, paths in pages.items():
        assert paths, language
        for path in paths:
            html = tree(path).getroottree().getroot()
            assert html.tag == "html", path
            assert html.get("lang") == language, f"{path}: lang={html.get('lang')}"


def test_root_page_offers_every_language(site: Path) -> None:
    soup = parse(site / "index.html")
    links = {a["href"] for a in soup.find_all("a")}
    assert links == {f"{language}/" for language in LANGUAGES}
    assert soup.find("script") is not None, "the root page redirects by language"


def test_no_request_to_another_host(site: Path) -> None:
    offenders = []
    for path in site.rglob("*.html"):
        offenders += [
            f"{path}: {url}" for url in resource_urls(tree(path)) if other_host(url)
        ]
    for path in site.rglob("*.css"):
        for a, b in CSS_URL.findall(path.read_text(encoding="utf-8")):
            if other_host(a or b):
                offenders.append(f"{path}: {a or b}")
    assert not offenders, "\n".join(offenders)


def test_math_fonts_referenced_by_the_book_css_exist(site: Path) -> None:
    """book.css declares the maths fonts (MathML drawn by the browser); the
    build ships them, and nothing of KaTeX's stylesheet or fonts."""
    for language in LANGUAGES:
        css = site / language / "assets" / "stylesheets" / "book.css"
        urls = [a for a, _ in CSS_URL.findall(css.read_text(encoding="utf-8")) if a]
        assert any(url.endswith("stix-two-math.woff2") for url in urls), urls
        for url in urls:
            assert (css.parent / url).is_file(), f"{language}: {url}"
        assert not (site / language / "assets" / "katex").exists()


def test_local_references_resolve(site: Path) -> None:
    """Scripts, styles and images named by a page exist in the built site."""
    missing = []
    for path in site.rglob("*.html"):
        base = f"http://{LOCAL_HOST}/" + path.relative_to(site).as_posix()
        for url in resource_urls(tree(path)):
            target = urlsplit(urljoin(base, url))
            if target.netloc != LOCAL_HOST or not target.path:
                continue
            local = site / target.path.lstrip("/")
            if not (local.is_file() or (local / "index.html").is_file()):
                missing.append(f"{path}: {url}")
    assert not missing, "\n".join(missing)


def test_language_selector_links_to_the_same_page_in_every_language(
    pages, site: Path
) -> None:
    for language, paths in pages.items():
        for path in paths:
            alternates = {
                a.get("hreflang"): a.attrib["href"]
                for a in tree(path).cssselect("a.md-select__link[hreflang]")
            }
            assert set(alternates) == set(LANGUAGES), path
            relative = path.relative_to(site / language).as_posix()
            page_url = f"http://{LOCAL_HOST}/{language}/{relative}"
            for target_language, href in alternates.items():
                target = urlsplit(urljoin(page_url, href)).path
                # The 404 page is not a page of the book: it offers each home page.
                same_page = "" if relative == "404.html" else relative
                expected = f"/{target_language}/{same_page}".removesuffix("index.html")
                assert target == expected, f"{path}: {href}"
                local = site / target.lstrip("/")
                assert local.is_file() or (local / "index.html").is_file(), target


def test_language_selector_marks_the_current_edition(pages, site: Path) -> None:
    for language, paths in pages.items():
        for path in paths:
            current = tree(path).cssselect("a.md-select__link[aria-current]")
            assert [a.attrib["hreflang"] for a in current] == [language], path


def test_book_title_appears_once_in_the_navigation(pages) -> None:
    """The site's name heads the navigation; the home page's entry is not a copy."""
    for paths in pages.values():
        for path in paths:
            (nav, *_) = tree(path).cssselect("nav.md-nav--primary")
            (title, *_) = nav.cssselect(".md-nav__title")
            title = stripped_text(title)
            entries = [stripped_text(a) for a in nav.cssselect(".md-nav__list a")]
            assert title not in entries, f"{path}: {title!r} twice"


def test_head_lists_the_same_page_in_every_edition(pages, site: Path) -> None:
    """hreflang links: the same page in every edition, absolute, and x-default."""
    for language, paths in pages.items():
        for path in paths:
            relative = path.relative_to(site / language).as_posix()
            same_page = "" if relative == "404.html" else relative
            same_page = same_page.removesuffix("index.html")
            links = [
                link
                for link in tree(path).head.iter("link")
                if "alternate" in link.get("rel", "").split() and link.get("hreflang")
            ]
            found = {link.get("hreflang"): link.attrib["href"] for link in links}
            assert len(found) == len(links), f"{path}: an hreflang twice"
            expected = {
                lang: f"http://{LOCAL_HOST}/{lang}/{same_page}" for lang in LANGUAGES
            }
            expected["x-default"] = expected[next(iter(LANGUAGES))]
            assert found == expected, path
            for href in found.values():
                local = site / urlsplit(href).path.lstrip("/")
                assert local.is_file() or (local / "index.html").is_file(), href


def sections(page):
    """Yield (heading, elements) for each section of a page's article (lxml)."""
    (article, *_) = page.cssselect("article.md-content__inner")
    heading, elements = None, []
    for element in article.iterchildren("*"):  # its elements, not comments
        if element.tag in ("h1", "h2", "h3", "h4"):
            if heading is not None:
                yield heading, elements
            heading, elements = element, []
        else:
            elements.append(element)
    if heading is not None:
        yield heading, elements


def test_every_section_with_a_display_formula_shows_code(pages) -> None:
    offenders, formulas = [], 0
    for paths in pages.values():
        for path in paths:
            if path.name == "404.html":
                continue
            for heading, elements in sections(tree(path)):
                # cssselect matches the element itself too: no matter here,
                # since an element of that class counts anyway.
                has_formula = any(
                    e.cssselect("div.arithmatex") or "arithmatex" in classes(e)
                    for e in elements
                )
                has_code = any(
                    e.cssselect("div.highlight") or "highlight" in classes(e)
                    for e in elements
                )
                formulas += has_formula
                if has_formula and not has_code:
                    offenders.append(f"{path}#{heading.get('id')}")
    assert formulas > 0, "the book shows display formulas"
    assert not offenders, "sections with a formula and no code:\n" + "\n".join(
        offenders
    )


#: A list item that Markdown took as a line of the paragraph before it: a line
#: that begins with "2. " or "- " inside a paragraph's or a list item's own
#: text (a "2." right after an indented line of item 1, with no blank line
#: between them, continues item 1's paragraph).
SWALLOWED_ITEM = re.compile(r"\n[ \t]*(?:\d+\.|[-*+]) \S")


def test_no_list_item_is_swallowed_by_the_paragraph_before_it(pages) -> None:
    swallowed, paragraphs = [], 0
    for paths in pages.values():
        for path in paths:
            for element in tree(path).iter("p", "li"):
                if element.xpath("ancestor::pre or ancestor::code"):
                    continue
                paragraphs += 1
                own = (element.text or "") + "".join(
                    child.tail or "" for child in element
                )
                if match := SWALLOWED_ITEM.search(own):
                    swallowed.append(f"{path}: {own[match.start() :][:60]!r}")
    assert paragraphs > 1000, "the pages' paragraphs are read"
    assert not swallowed, "\n".join(swallowed)


def search_text(site: Path, language: str) -> str:
    index = json.loads(
        (site / language / "search" / "search_index.json").read_text(encoding="utf-8")
    )
    return "".join(doc["title"] + doc["text"] for doc in index["docs"])


def test_japanese_search_index_is_not_split_by_jieba(site: Path) -> None:
    text = search_text(site, "ja")
    assert "行列" in text
    assert "\u200b" not in text, "jieba must not segment the Japanese book"


@pytest.mark.parametrize("language", ["zh-Hant", "zh-Hans"])
def test_chinese_search_index_is_segmented_by_jieba(site: Path, language) -> None:
    assert "\u200b" in search_text(site, language)


def page_text(site: Path, language: str, page: str) -> str:
    return parse(site / language / page / "index.html").select_one("article").get_text()


def test_japanese_book_shows_the_printed_outputs_of_the_object_view(
    site: Path,
) -> None:
    """The object view's result and the from-scratch self-attention's
    weights, as numpy really prints them.

    The values were computed independently of the package (plain loops, and
    plain numpy on ``default_rng(0)``'s uniform draws for the self-attention).
    """
    text = page_text(site, "ja", "object-view")
    assert "output:  [0.256 0.493 0.319]" in text  # 0.25588256 0.4930077 0.31917147
    text = page_text(site, "ja", "self-attention")
    rows = (
        "[[0.124 0.285 0.207 0.187 0.197]\n"
        " [0.039 0.479 0.184 0.138 0.16 ]\n"
        " [0.054 0.417 0.197 0.161 0.171]\n"
        " [0.087 0.35  0.197 0.175 0.191]\n"
        " [0.069 0.39  0.199 0.161 0.181]]"
    )
    assert rows in text
    assert "[0.78 2.68 2.01 1.72 1.79]" in text  # ||k_j||


def test_a_doctest_s_blank_line_is_shown_as_python_prints_it(site: Path) -> None:
    """No page shows doctest's ``<BLANKLINE>``; a 3-D array prints its
    matrices with an empty line between them, as Python does."""
    shown = [
        str(page.relative_to(site))
        for language in LANGUAGES
        for page in (site / language).rglob("*.html")
        if "&lt;BLANKLINE&gt;" in page.read_text(encoding="utf-8")
    ]
    assert not shown, shown
    for language in LANGUAGES:
        text = page_text(site, language, "multi-head")
        assert "  [1. 1.]]\n\n [[1. 0.]" in text, language


def test_japanese_book_shows_the_row_vector_worked_example(site: Path) -> None:
    text = page_text(site, "ja", "linear-algebra")
    assert "(23, 34)" in text
    assert "(9, 12)" in text  # the rows of a matrix product, one by one


def search_index(site: Path, language: str) -> dict:
    path = site / language / "search" / "search_index.json"
    return json.loads(path.read_text(encoding="utf-8"))


KANA = re.compile(r"[\u3040-\u30ff]")
TRADITIONAL_ONLY = ("權重", "變換", "遮罩", "詞彙表")


def test_each_search_index_holds_only_its_own_language(pages, site: Path) -> None:
    for language, paths in pages.items():
        index = search_index(site, language)
        built = {
            p.parent.relative_to(site / language).as_posix() + "/"
            for p in paths
            if p.name == "index.html"
        }
        located = {doc["location"].split("#")[0] or "./" for doc in index["docs"]}
        assert located == built, language
        # The glossary page names every term in both languages; elsewhere a
        # Japanese index holds no Traditional-only word and a Chinese one no kana.
        text = "".join(
            doc["title"] + doc["text"]
            for doc in index["docs"]
            if not doc["location"].startswith("glossary/")
        )
        if language == "ja":
            assert not [w for w in TRADITIONAL_ONLY if w in text]
        else:
            assert not KANA.search(text), KANA.search(text)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("zh-Hant", ["線性變換", "注意力權重", "多頭注意力", "因果遮罩", "內積"]),
        ("zh-Hans", ["线性变换", "注意力权重", "多头注意力", "因果掩码", "内积"]),
        ("ja", ["ソフトマックス", "アテンション重み", "線形変換", "自己注意"]),
    ],
)
def test_search_index_finds_multi_character_words(site, language, words) -> None:
    """The words a reader types come out of the index as whole tokens.

    Chinese is segmented at build time (jieba, with the glossary's terms as
    words): each word must be one token after splitting on the configured
    separator. Japanese is segmented in the browser (lunr.ja's TinySegmenter
    splits query and text alike), so the index must keep the text unsplit.
    """
    index = search_index(site, language)
    separator = re.compile(index["config"]["separator"])
    text = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"])
    tokens = set(separator.split(text))
    for word in words:
        if language == "ja":
            assert word in text, word
        else:
            assert word in tokens, word


def link_targets(site: Path, path: Path) -> list[tuple[str, str]]:
    """(href, URL) of every link of the page ``path`` into the site.

    Relative to the page, or to its ``<base>`` (the root 404 page's).
    """
    page = tree(path)
    base = f"http://{LOCAL_HOST}/" + path.relative_to(site).as_posix()
    if tags := page.xpath("//base[@href]"):
        base = urljoin(f"http://{LOCAL_HOST}/", tags[0].get("href"))
    return [
        (href, urljoin(base, href))
        for href in page.xpath("//a/@href")
        if urlsplit(urljoin(base, href)).netloc == LOCAL_HOST
    ]


def test_every_link_leads_to_a_file_of_the_site(site: Path) -> None:
    """No page links a file the site lacks: not even the PDFs, which only
    ``make pdf`` makes (stages/book.py leaves their paragraphs out of any
    other build). ``--strict`` checks the links between pages while each
    edition builds; this checks the whole site as served, root pages and
    files made after the build included."""
    missing, links = [], 0
    for path in site.rglob("*.html"):
        for href, url in link_targets(site, path):
            links += 1
            local = site / urlsplit(url).path.lstrip("/")
            if not (local.is_file() or (local / "index.html").is_file()):
                missing.append(f"{path.relative_to(site)}: {href}")
    assert links > 1000
    assert not missing, "\n".join(missing)


def test_the_site_root_answers_browsers_and_crawlers(site: Path, base_url) -> None:
    """favicon.ico, robots.txt and sitemap.xml at the root, served: an icon,
    the sitemap named, and an index of every edition's sitemap."""
    import io
    import urllib.request
    import xml.etree.ElementTree as ET

    from PIL import Image

    def get(name: str) -> tuple[str, bytes]:
        with urllib.request.urlopen(base_url + name) as response:
            return response.headers["Content-Type"], response.read()

    kind, icon = get("favicon.ico")
    assert kind in ("image/x-icon", "image/vnd.microsoft.icon"), kind
    image = Image.open(io.BytesIO(icon))
    assert image.format == "ICO" and {(16, 16), (32, 32)} <= image.info["sizes"]

    kind, robots = get("robots.txt")
    assert kind.startswith("text/plain"), kind
    assert f"Sitemap: {base_url}sitemap.xml" in robots.decode().splitlines()

    kind, sitemap = get("sitemap.xml")
    index = ET.fromstring(sitemap)
    namespace = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    assert index.tag == f"{namespace}sitemapindex"
    locations = [loc.text for loc in index.iter(f"{namespace}loc")]
    assert locations == [f"{base_url}{language}/sitemap.xml" for language in LANGUAGES]
    for location in locations:
        local = site / urlsplit(location).path.lstrip("/")
        assert ET.parse(local).getroot().tag == f"{namespace}urlset", location


def test_the_first_screen_is_read_whole_before_it_is_painted(pages) -> None:
    """A page longer than its first screen holds a hidden marker as its
    article's 25th block, and its head asks the browser to read up to it
    before it paints (``rel=expect``, ``blocking=render``: stages/book.py);
    a shorter page holds neither."""
    marked = []
    for path in (path for found in pages.values() for path in found):
        page = tree(path)
        articles = page.cssselect("article.md-content__inner")
        if not articles:
            continue
        blocks = [child for child in articles[0] if isinstance(child.tag, str)]
        markers = page.cssselect(f"#{book_hook.FIRST_SCREEN_ID}")
        expected = [f"#{book_hook.FIRST_SCREEN_ID}"] if markers else []
        links = page.cssselect('link[rel="expect"][blocking="render"]')
        assert [link.get("href") for link in links] == expected, path
        assert all(link.getparent().tag == "head" for link in links), path
        if markers:
            assert markers == [blocks[book_hook.FIRST_SCREEN_BLOCKS]], path
            assert markers[0].get("hidden") is not None, path
            marked.append(path)
        else:
            assert len(blocks) <= book_hook.FIRST_SCREEN_BLOCKS, path
    assert len(marked) >= 3 * 15, "the chapters are longer than a screen"


def test_palette_stylesheet_restyles_nothing_as_a_page_starts(site: Path) -> None:
    """No rule of the built site depends on the attribute Material's script
    sets on <body> as every page starts (stages/book.py, palette_css); the
    transitions are off while the reader changes the scheme (palette.js)."""
    for language in LANGUAGES:
        styles = site / language / "assets" / "stylesheets"
        css = "".join(p.read_text(encoding="utf-8") for p in styles.rglob("*.css"))
        assert "data-md-color-switching" not in css, language
        assert "[data-book-color-switching] *" in css, language
        page = (site / language / "index.html").read_text(encoding="utf-8")
        assert "assets/javascripts/palette.js" in page, language
