"""The PDF of each edition, as ``make pdf`` makes it (scripts/build_pdf.py).

The PDFs are made once per session, into a folder of their own, by the same
script as ``make pdf``; the built site (the ``site`` fixture) tells what they
must hold: every page of the edition, in reading order, each under its own
heading. Their text is read with ``pdftotext`` (Poppler; ``make browser``
installs it), their fonts, links and bookmarks with pypdf.

**Tiers.** ``make test`` makes and checks the Japanese PDF; the exhaustive
tier (marker ``exhaustive``) the Traditional and Simplified ones too. A run
makes the PDFs its selected tests check, side by side, the first time a test
asks for one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from .helpers import LANGUAGES, ROOT, tree

pytestmark = pytest.mark.pdf

#: The editions whose PDF a test checks: the Japanese one in every tier, the
#: others in the exhaustive tier.
EDITIONS = [
    pytest.param(language, marks=[] if language == "ja" else pytest.mark.exhaustive)
    for language in LANGUAGES
]

#: Unicode's radicals, which no page of the book uses (build_pdf.unify_cmap).
RADICALS = re.compile("[\u2e80-\u2fdf]")
#: TeX that KaTeX would have typeset: its delimiters and a few commands.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\frac|\\mathbf|\\sqrt")


def pdf_name(language: str) -> str:
    return f"attention-{language}.pdf"


def wanted(session: pytest.Session) -> list[str]:
    """The editions whose PDF this run's selected tests of this module check."""
    found = {
        item.callspec.params["language"]
        for item in session.items
        if item.path == Path(__file__)
        and "language" in getattr(getattr(item, "callspec", None), "params", {})
        and {"pdfs", "texts"} & set(item.fixturenames)
    }
    return [language for language in LANGUAGES if language in found]


@pytest.fixture(scope="session")
def pdfs(
    site: Path, tmp_path_factory: pytest.TempPathFactory, request
) -> dict[str, Path]:
    """The PDFs this run checks, made by ``scripts/build_pdf.py`` side by side.

    With ``BOOK_SITE`` (a site that ``make pdf`` built, tests/conftest.py),
    the PDFs beside its pages: the very files the Pages workflow deploys.
    """
    languages = wanted(request.session)
    assert languages, "the fixture serves the tests of this module only"
    if "BOOK_SITE" in os.environ:
        found = {
            language: site / language / pdf_name(language) for language in languages
        }
        missing = [str(path) for path in found.values() if not path.is_file()]
        assert not missing, f"BOOK_SITE holds no PDF at {missing}"
        return found
    out = tmp_path_factory.mktemp("pdf")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_pdf.py"), str(out), *languages],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"make pdf failed:\n{result.stderr[-5000:]}"
    return {language: out / language / pdf_name(language) for language in languages}


@pytest.fixture(scope="session")
def texts(pdfs: dict[str, Path]) -> dict[str, list[str]]:
    """Each PDF's text, page by page (pdftotext ends every page with a form feed)."""
    if shutil.which("pdftotext") is None:
        pytest.fail("no pdftotext: run `make browser`, which installs poppler-utils")
    return {
        language: subprocess.run(
            ["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\f")[:-1]
        for language, pdf in pdfs.items()
    }


def reading_order(site: Path, language: str) -> list[Path]:
    """The edition's pages in reading order: from the home page, rel="next"."""
    pages, path = [], site / language / "index.html"
    while True:
        pages.append(path)
        following = tree(path).cssselect('link[rel~="next"]')
        if not following:
            return pages
        target = urljoin(path.relative_to(site).as_posix(), following[0].get("href"))
        path = site / urlsplit(target).path
        if path.suffix != ".html":
            path = path / "index.html"


def heading(page: Path) -> str:
    """A built page's title as its <h1> shows it (without the permalink)."""
    h1 = tree(page).cssselect("article h1")[0]
    # Its own text, not its children's (the permalink's ¶).
    return "".join([h1.text or "", *(child.tail or "" for child in h1)]).strip()


def squeeze(text: str) -> str:
    return "".join(text.split())


def first_line(page_text: str) -> str:
    return next((line for line in page_text.splitlines() if line.strip()), "")


@pytest.mark.parametrize("language", LANGUAGES)
def test_home_and_about_pages_link_the_pdf(site: Path, language) -> None:
    """In a site that ``make pdf`` built (``BOOK_SITE``), both pages link the
    file it writes for their edition; a site built without the PDFs (the
    run's own) links none (stages/book.py)."""
    made_by_make_pdf = "BOOK_SITE" in os.environ
    expected = [f"/{language}/{pdf_name(language)}"] if made_by_make_pdf else []
    for page in ("index.html", "about/index.html"):
        links = [
            urlsplit(urljoin(f"/{language}/{page}", a.get("href"))).path
            for a in tree(site / language / page).cssselect("article a[href]")
            if a.get("href").endswith(".pdf")
        ]
        assert links == expected, (page, links)


@pytest.mark.parametrize("language", EDITIONS)
def test_every_page_starts_a_page_of_the_pdf_in_reading_order(
    site: Path, texts, language
) -> None:
    pages = texts[language]
    assert first_line(pages[0]).strip() == heading(site / language / "index.html")
    found, start = [], 1  # after the title page
    for page in reading_order(site, language):
        title = squeeze(heading(page))
        number = next(
            (
                n
                for n in range(start, len(pages))
                if squeeze(first_line(pages[n])) == title
            ),
            None,
        )
        assert number is not None, f"{language}: no page starts with {title!r}"
        found.append(number)
        start = number + 1
    assert len(found) >= 20
    assert len(pages) > 2 * len(found)


@pytest.mark.parametrize("language", EDITIONS)
def test_the_bookmarks_lead_to_the_chapters(site: Path, pdfs, texts, language) -> None:
    from pypdf import PdfReader

    reader = PdfReader(pdfs[language])

    def leaves(items) -> list[int]:
        pages = []
        for position, item in enumerate(items):
            if isinstance(item, list):
                pages += leaves(item)
            elif position + 1 == len(items) or not isinstance(
                items[position + 1], list
            ):
                pages.append(reader.get_destination_page_number(item))
        return pages

    chapters = leaves(reader.outline)
    titles = [squeeze(heading(page)) for page in reading_order(site, language)]
    assert [squeeze(first_line(texts[language][n])) for n in chapters] == titles


@pytest.mark.parametrize("language", EDITIONS)
def test_the_maths_is_typeset(texts, language) -> None:
    text = "".join(texts[language])
    assert not RAW_TEX.findall(text)
    assert "√" in text and "⊤" in text  # \sqrt{d_k} and K^\top, as typeset


@pytest.mark.parametrize("language", EDITIONS)
def test_every_page_but_the_title_page_is_numbered(texts, language) -> None:
    pages = texts[language]
    assert str(1) not in [line.strip() for line in pages[0].splitlines()]
    unnumbered = [
        number
        for number, text in enumerate(pages[1:], start=2)
        if str(number) not in [line.strip() for line in text.splitlines()]
    ]
    assert not unnumbered


@pytest.mark.parametrize("language", EDITIONS)
def test_the_text_reads_as_the_pages_do(texts, language) -> None:
    """Copied or searched, the text holds ideographs, never the radicals that
    share their glyphs; the Simplified book's text is Simplified."""
    text = "".join(texts[language])
    assert not RADICALS.findall(text)
    if language == "zh-Hans":
        assert "注意力机制" in text and "機制" not in text
    if language == "zh-Hant":
        assert "注意力機制" in text


@pytest.mark.parametrize("language", EDITIONS)
def test_every_figure_is_printed_with_its_caption(site: Path, texts, language) -> None:
    """The figures of the pages (plots, diagrams, the paper's Figure 2) are in
    the PDF: each caption, with its number, and the diagrams' words, which
    stay text in print."""
    # pdftotext joins a word broken at a hyphen at the end of a line and drops
    # the hyphen (post-norm, set as "post-" and "norm", reads "postnorm"):
    # hyphens are left out of both sides.
    text = squeeze("".join(texts[language])).replace("-", "")
    captions = [
        squeeze(caption.text_content()).replace("-", "")
        for path in reading_order(site, language)
        for caption in tree(path).cssselect("article figure figcaption")
    ]
    assert len(captions) >= 10
    assert [caption for caption in captions if caption not in text] == []
    drawn = squeeze(
        (site / language / "assets" / "diagrams" / "attention_shapes.svg")
        .read_text(encoding="utf-8")
        .split("<text", 2)[1]
        .split(">", 1)[1]
        .split("<", 1)[0]
    )
    assert drawn in text


@pytest.mark.parametrize("language", EDITIONS)
def test_every_font_is_embedded(pdfs, language) -> None:
    """Chromium embeds the fonts it draws with: TrueType ones (KaTeX's, DejaVu)
    as font files, the CFF outlines of Noto CJK as Type 3 fonts, whose glyphs
    are drawings in the PDF itself."""
    from pypdf import PdfReader

    fonts = {}
    for page in PdfReader(pdfs[language]).pages:
        for font in page["/Resources"].get("/Font", {}).values():
            fonts[font.idnum] = font.get_object()
    assert fonts
    missing = []
    for font in fonts.values():
        if font["/Subtype"] == "/Type3":
            embedded = len(font["/CharProcs"]) > 0
        else:
            descendant = font.get("/DescendantFonts", [font])[0].get_object()
            descriptor = descendant["/FontDescriptor"].get_object()
            embedded = any(
                key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")
            )
        if not embedded or "/ToUnicode" not in font:
            missing.append(font.get("/BaseFont", font["/Subtype"]))
    assert not missing


@pytest.mark.parametrize("language", EDITIONS)
def test_each_glyph_is_drawn_once(pdfs, language) -> None:
    """Chromium writes a Type 3 font for every subset of Noto CJK it draws
    with, and draws an ideograph again in each that holds it; the PDF keeps
    one drawing of each (build_pdf.share_glyphs)."""
    import pikepdf

    holders: dict[bytes, set] = {}
    with pikepdf.open(pdfs[language]) as document:
        fonts = {
            font.objgen: font
            for page in document.pages
            for font in page.Resources.get("/Font", {}).values()
            if font.get("/Subtype") == "/Type3"
        }
        for font in fonts.values():
            for drawing in font.CharProcs.values():
                holders.setdefault(drawing.read_bytes(), set()).add(drawing.objgen)
    assert len(holders) > 100, "the CJK glyphs are Type 3 drawings"
    assert [len(objects) for objects in holders.values() if len(objects) > 1] == []


@pytest.mark.parametrize("language", EDITIONS)
def test_links_lead_into_the_book_or_to_the_web(pdfs, language) -> None:
    """No link points at the server the PDF was printed from."""
    from pypdf import PdfReader

    uris = [
        str(annotation.get_object()["/A"]["/URI"])
        for page in PdfReader(pdfs[language]).pages
        for annotation in page.get("/Annots") or []
        if "/URI" in annotation.get_object().get("/A", {})
    ]
    assert uris
    assert [u for u in uris if urlsplit(u).scheme not in ("http", "https")] == []
    assert [u for u in uris if urlsplit(u).hostname in ("127.0.0.1", "localhost")] == []
