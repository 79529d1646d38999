"""The PDF of each edition, as ``make pdf`` makes it (scripts/build_pdf.py).

The PDFs are made once per session, into a folder of their own, by the same
script as ``make pdf``; the built site (the ``site`` fixture) tells what they
must hold: every page of the edition, in reading order, each under its own
heading. Their text is read with ``pdftotext`` (Poppler; ``make browser``
installs it), their fonts, links and bookmarks with pypdf.

**Tiers.** ``make test`` makes and checks a PDF of one Japanese chapter
(``SAMPLE``: the home page and a chapter with maths, figures, code and links
to other chapters), made by the same script with ``--pages``; the exhaustive
tier (marker ``exhaustive``) the whole PDF of every edition. A run makes the
PDFs its selected tests check, side by side, the first time a test asks for
one.
"""

from __future__ import annotations

import copy
import itertools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import lxml.etree
import pytest

from .helpers import LANGUAGES, ROOT, selected, tree

pytestmark = pytest.mark.pdf

#: The pages of the quick tier's PDF, as ``nav:`` names them: the home page
#: and a chapter with maths, diagrams, the paper's figure, an interactive
#: figure's static state, code and links to pages that the PDF leaves out.
SAMPLE = ("ja", ["index.md", "scaled-dot-product.md"])
#: The PDFs a test checks: one chapter in every tier, each edition's whole
#: book in the exhaustive tier; with ``BOOK_SITE``, the whole books that
#: ``make pdf`` made beside that site's pages, and nothing else.
PRINTS = (
    [pytest.param(language) for language in LANGUAGES]
    if "BOOK_SITE" in os.environ
    else [
        pytest.param("ja-sample", id="ja-sample"),
        *(pytest.param(lang, marks=pytest.mark.exhaustive) for lang in LANGUAGES),
    ]
)


def edition(name: str) -> str:
    """The edition of a PDF of ``PRINTS``."""
    return SAMPLE[0] if name == "ja-sample" else name


def sampled(name: str) -> list[str] | None:
    """The pages of a PDF of ``PRINTS`` (``None``: every page)."""
    return SAMPLE[1] if name == "ja-sample" else None


#: Unicode's radicals, which no page of the book uses (build_pdf.unify_cmap).
RADICALS = re.compile("[\u2e80-\u2fdf]")
#: TeX that KaTeX would have typeset: its delimiters and a few commands.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\frac|\\mathbf|\\sqrt")


def pdf_name(language: str) -> str:
    return f"attention-{language}.pdf"


def wanted(session: pytest.Session) -> list[str]:
    """The PDFs (of ``PRINTS``) this run's selected tests check."""
    found = selected(session, "pdfs", "name")
    return [param.values[0] for param in PRINTS if param.values[0] in found]


@pytest.fixture(scope="session")
def pdfs(
    site: Path, tmp_path_factory: pytest.TempPathFactory, request
) -> dict[str, Path]:
    """The PDFs this run checks, made by ``scripts/build_pdf.py`` side by side.

    With ``BOOK_SITE`` (a site that ``make pdf`` built, tests/conftest.py),
    the PDFs beside its pages: the very files the Pages workflow deploys.
    """
    names = wanted(request.session)
    assert names, "the fixture serves the tests of this module only"
    if "BOOK_SITE" in os.environ:
        found = {name: site / name / pdf_name(name) for name in names}
        missing = [str(path) for path in found.values() if not path.is_file()]
        assert not missing, f"BOOK_SITE holds no PDF at {missing}"
        return found
    script = [sys.executable, str(ROOT / "scripts" / "build_pdf.py")]
    runs, made = {}, {}
    whole = [name for name in names if not sampled(name)]
    if whole:
        out = tmp_path_factory.mktemp("pdf")
        runs["whole"] = [*script, str(out), *whole]
        made |= {name: out / name / pdf_name(name) for name in whole}
    for name in names:
        if sampled(name):
            out = tmp_path_factory.mktemp("pdf-sample")
            runs[name] = [*script, str(out), edition(name), "--pages", *sampled(name)]
            made[name] = out / edition(name) / pdf_name(edition(name))
    processes = {
        run: subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for run, command in runs.items()
    }
    for run, process in processes.items():
        _, errors = process.communicate()
        assert process.returncode == 0, f"make pdf ({run}) failed:\n{errors[-5000:]}"
    return made


@pytest.fixture(scope="session")
def texts(pdfs: dict[str, Path]) -> dict[str, list[str]]:
    """Each PDF's text, page by page (pdftotext ends every page with a form feed)."""
    if shutil.which("pdftotext") is None:
        pytest.fail("no pdftotext: run `make browser`, which installs poppler-utils")
    return {
        name: subprocess.run(
            ["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\f")[:-1]
        for name, pdf in pdfs.items()
    }


def reading_order(site: Path, name: str) -> list[Path]:
    """The pages of a PDF of ``PRINTS`` in reading order: from the edition's
    home page, rel="next" (those of ``sampled(name)`` only, if given)."""
    language, only = edition(name), sampled(name)
    pages, path = [], site / language / "index.html"
    while True:
        if only is None or page_file(site / language, path) in only:
            pages.append(path)
        following = tree(path).cssselect('link[rel~="next"]')
        if not following:
            assert only is None or len(pages) == len(only), (only, pages)
            return pages
        target = urljoin(path.relative_to(site).as_posix(), following[0].get("href"))
        path = site / urlsplit(target).path
        if path.suffix != ".html":
            path = path / "index.html"


def page_file(edition_dir: Path, page: Path) -> str:
    """The source file of a built page, as ``nav:`` names it (a/index.html: a.md)."""
    parent = page.relative_to(edition_dir).parent
    return "index.md" if parent == Path() else f"{parent.as_posix()}.md"


def heading(page: Path) -> str:
    """A built page's title as its <h1> shows it (without the permalink)."""
    h1 = tree(page).cssselect("article h1")[0]
    # Its own text, not its children's (the permalink's ¶).
    return "".join([h1.text or "", *(child.tail or "" for child in h1)]).strip()


def squeeze(text: str) -> str:
    return "".join(text.split())


#: What stands for a formula in a caption's text (no caption holds it).
GAP = "\ue000"


def caption_words(caption) -> list[str]:
    """A figcaption's text between its formulas (``.arithmatex``)."""
    caption = copy.deepcopy(caption)
    for formula in caption.cssselect(".arithmatex"):
        formula.clear(keep_tail=True)
        formula.text = GAP  # lxml takes no NUL: a private-use character
    return [words for words in caption.text_content().split(GAP) if words.strip()]


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


@pytest.mark.parametrize("name", PRINTS)
def test_every_page_starts_a_page_of_the_pdf_in_reading_order(
    site: Path, texts, name
) -> None:
    pages, language = texts[name], edition(name)
    assert first_line(pages[0]).strip() == heading(site / language / "index.html")
    found, start = [], 1  # after the title page
    for page in reading_order(site, name):
        title = squeeze(heading(page))
        number = next(
            (
                n
                for n in range(start, len(pages))
                if squeeze(first_line(pages[n])) == title
            ),
            None,
        )
        assert number is not None, f"{name}: no page starts with {title!r}"
        found.append(number)
        start = number + 1
    assert len(found) >= (20 if sampled(name) is None else len(sampled(name)))
    assert len(pages) > 2 * len(found)


@pytest.mark.parametrize("name", PRINTS)
def test_the_bookmarks_lead_to_the_chapters(site: Path, pdfs, texts, name) -> None:
    from pypdf import PdfReader

    reader = PdfReader(pdfs[name])

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
    titles = [squeeze(heading(page)) for page in reading_order(site, name)]
    assert [squeeze(first_line(texts[name][n])) for n in chapters] == titles


@pytest.mark.parametrize("name", PRINTS)
def test_the_maths_is_typeset(texts, name) -> None:
    text = "".join(texts[name])
    assert not RAW_TEX.findall(text)
    assert "√" in text and "⊤" in text  # \sqrt{d_k} and K^\top, as typeset


@pytest.mark.parametrize("name", PRINTS)
def test_every_page_but_the_title_page_is_numbered(pdfs, name) -> None:
    # The footer is read from the page as laid out: the flowing text joins a
    # word broken at a hyphen at the foot of a page with the page number
    # ("z-" and "417" read "z417").
    pages = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "-layout", str(pdfs[name]), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\f")[:-1]
    assert str(1) not in [line.strip() for line in pages[0].splitlines()]
    unnumbered = [
        number
        for number, text in enumerate(pages[1:], start=2)
        if str(number) not in [line.strip() for line in text.splitlines()]
    ]
    assert not unnumbered


@pytest.mark.parametrize("name", PRINTS)
def test_the_text_reads_as_the_pages_do(site: Path, texts, name) -> None:
    """Copied or searched, the text holds ideographs, never the radicals that
    share their glyphs; the Simplified book's text is Simplified, but for the
    Taiwan terms its glossary gives on purpose (its third column)."""
    text, language = "".join(texts[name]), edition(name)
    assert not RADICALS.findall(text)
    if language == "zh-Hans":
        glossary = (site / "zh-Hans" / "glossary" / "index.html").read_text("utf-8")
        taiwan = "".join(re.findall(r'<span lang="zh-Hant">([^<]*)</span>', glossary))
        assert "注意力機制" in taiwan
        assert "注意力机制" in text
        assert text.count("機制") == taiwan.count("機制")
    if language == "zh-Hant":
        assert "注意力機制" in text


@pytest.mark.parametrize("name", PRINTS)
def test_every_figure_is_printed_with_its_caption(site: Path, texts, name) -> None:
    """The figures of the pages (plots, diagrams, the paper's Figure 2) are in
    the PDF: each caption, with its number, and the diagrams' words, which
    stay text in print."""
    # pdftotext joins a word broken at a hyphen at the end of a line and drops
    # the hyphen (post-norm, set as "post-" and "norm", reads "postnorm"):
    # hyphens are left out of both sides.
    text = squeeze("".join(texts[name])).replace("-", "")
    # A caption's formulas print as maths, not as their TeX: the words
    # between them are looked for.
    captions = [
        [squeeze(words).replace("-", "") for words in caption_words(caption)]
        for path in reading_order(site, name)
        for caption in tree(path).cssselect("article figure figcaption")
    ]
    assert len(captions) >= (10 if sampled(name) is None else 2)
    assert [c for c in captions if not all(words in text for words in c)] == []
    # A diagram's longest words, drawn as text (the first chapter's first).
    diagram = next(
        urljoin(path.as_posix(), img.get("src"))
        for path in reading_order(site, name)[1:]
        for img in tree(path).cssselect("article figure img")
        if "/assets/diagrams/" in urljoin(path.as_posix(), img.get("src"))
    )
    words = lxml.etree.parse(urlsplit(diagram).path).iterfind(".//{*}text")
    drawn = max(words, key=lambda words: len(squeeze("".join(words.itertext()))))
    assert len(squeeze("".join(drawn.itertext()))) > 3, diagram
    # A label's formula is set in the maths face and its words in the text
    # face; pdftotext may lay the two runs out as blocks of their own (Fig 1.1's
    # "X = E[ids]" and ": (11, 96)" beside the column of ids), so each run is
    # looked for on its own.
    runs = [squeeze(drawn.text or "")] + [
        squeeze(part)
        for run in drawn
        for part in ("".join(run.itertext()), run.tail or "")
    ]
    runs = [run.replace("-", "") for run in runs if run]
    assert len(runs) >= 1, diagram
    assert [run for run in runs if run not in text] == [], diagram


@pytest.mark.parametrize("name", PRINTS)
def test_every_font_is_embedded(pdfs, name) -> None:
    """Chromium embeds the fonts it draws with: TrueType ones (STIX Two Math,
    DejaVu) as font files, the CFF outlines of Noto CJK as Type 3 fonts, whose glyphs
    are drawings in the PDF itself."""
    from pypdf import PdfReader

    fonts = {}
    for page in PdfReader(pdfs[name]).pages:
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


@pytest.mark.parametrize("name", PRINTS)
def test_the_maths_is_drawn_in_the_books_maths_font(pdfs, name) -> None:
    """The formulas' glyphs come from the STIX Two Math the site serves (its
    italic letters included), never from a maths font of the machine that
    printed the PDF (DejaVu Math TeX Gyre, until 2026-12-03)."""
    from pypdf import PdfReader

    names = set()
    for page in PdfReader(pdfs[name]).pages:
        for font in page["/Resources"].get("/Font", {}).values():
            names.add(str(font.get_object().get("/BaseFont", "")).split("+")[-1])
    assert "STIXTwoMath-Regular" in names, sorted(names)
    others = [n for n in names if "math" in n.lower() and "STIXTwoMath" not in n]
    assert not others, others


@pytest.mark.parametrize("name", PRINTS)
def test_each_glyph_is_drawn_once(pdfs, name) -> None:
    """Chromium writes a Type 3 font for every subset of Noto CJK it draws
    with, and draws an ideograph again in each that holds it; the PDF keeps
    one drawing of each (build_pdf.share_glyphs)."""
    import pikepdf

    holders: dict[bytes, set] = {}
    with pikepdf.open(pdfs[name]) as document:
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


@pytest.mark.parametrize("name", PRINTS)
def test_links_lead_into_the_book_or_to_the_web(pdfs, name) -> None:
    """No link points at the server the PDF was printed from."""
    from pypdf import PdfReader

    uris = [
        str(annotation.get_object()["/A"]["/URI"])
        for page in PdfReader(pdfs[name]).pages
        for annotation in page.get("/Annots") or []
        if "/URI" in annotation.get_object().get("/A", {})
    ]
    assert uris
    assert [u for u in uris if urlsplit(u).scheme not in ("http", "https")] == []
    assert [u for u in uris if urlsplit(u).hostname in ("127.0.0.1", "localhost")] == []


#: A link's text that cites a figure or an equation by its number, squeezed.
CITATION = re.compile(
    r"(?P<figure>[図圖图])(?P<n>[0-9A-Z.]+)|式[(（](?P<eq>[0-9A-Z.]+)[)）]"
)


def text_in(pdf: Path, page: int, box: tuple[float, float, float, float]) -> list:
    """The lines of ``page`` (from 0) inside ``box`` (x1, y1, x2, y2 in points
    from the top left), squeezed: ``pdftotext`` cropped to it, which keeps
    the glyphs wholly inside. A link's box is the height of its text, and a
    glyph's the height of its line: the box is taken a line's height, and a
    little narrower, so that a neighbour that touches its edge stays out."""
    x1, y1, x2, y2 = box[0] + 2, box[1] - 8, box[2] - 2, box[3] + 8
    command = ["pdftotext", "-enc", "UTF-8", "-r", "72"]
    command += ["-f", str(page + 1), "-l", str(page + 1)]
    command += ["-x", str(round(x1)), "-y", str(round(y1))]
    command += ["-W", str(round(x2 - x1)), "-H", str(round(y2 - y1))]
    result = subprocess.run(
        [*command, str(pdf), "-"], capture_output=True, text=True, check=True
    )
    # A small glyph of the line above (a table's digit) may be in the box too.
    return [squeeze(line) for line in result.stdout.splitlines() if line.strip()]


#: Opening brackets that Chromium pulls into a link's box when one follows it.
OPENING = "（「『《〈【"


def cited(pieces: list[list[str]]) -> re.Match | None:
    """The citation that a link's pieces (the lines of each) spell, if any.

    An opening bracket right after the link (式 (23.1)（…）) is set without
    its half-em of space after the citation's closing one (CSS
    ``text-spacing-trim``), so its glyph begins inside the link's box and
    ``pdftotext`` gives it: one such bracket at the end is not the link's.
    The closing bracket of an equation's citation can fall just outside the
    link's box where the citation ends a line (式 (6.1 at a line's end, its
    ")" cut off by the box): an equation's number without its closing
    bracket is read with it.
    """
    spelt = map("".join, itertools.product(*pieces))
    spelt = (s[:-1] if s[-1:] in OPENING else s for s in spelt)
    spelt = (s + ")" if UNCLOSED.fullmatch(s) else s for s in spelt)
    return next(filter(None, map(CITATION.fullmatch, spelt)), None)


UNCLOSED = re.compile(r"式[(（][0-9A-Z.]*[0-9A-Z]")


@pytest.mark.parametrize("name", PRINTS)
def test_numbered_references_lead_to_their_targets(site: Path, pdfs, texts, name):
    """A link that cites a figure or an equation by its number (図 6.1,
    式 (6.1)) is a link of the PDF, and the page it leads to shows that
    number: the figure with the caption the site gives it (a figure taller
    than what is left of the page ends on the next), or the equation's tag.
    As many such links as the pages hold to figures and equations that
    the PDF prints."""
    from pypdf import PdfReader

    reader = PdfReader(pdfs[name])
    pages = reading_order(site, name)
    captions = {}  # the site's figures: number -> caption, squeezed
    for path in pages:
        for caption in tree(path).cssselect("article figure figcaption"):
            (number,) = caption.cssselect(".book-figure-number")
            # the words before its first formula (a formula prints as maths)
            words = caption_words(caption)[0]
            captions[squeeze(number.text_content())] = squeeze(words)
    # The site's links to numbered things that the PDF prints.
    printed = {p.parent.relative_to(site / edition(name)).as_posix() for p in pages}
    expected = 0
    for path in pages:
        url = path.relative_to(site / edition(name)).as_posix()
        for a in tree(path).cssselect("article a[href]"):
            target = urlsplit(urljoin(url, a.get("href")))
            if re.match(r"(fig|eq)-", target.fragment) and (
                str(Path(target.path).parent) in printed
            ):
                expected += 1
    # Each link to a figure or an equation, as the pieces Chromium makes of
    # a link broken across lines: (page, destination, each piece's lines).
    # Any other link that cited one would have lost its target: the count tells.
    links = []
    for number, page in enumerate(reader.pages):
        height = float(page.mediabox.height)
        for annotation in page.get("/Annots") or []:
            link = annotation.get_object()
            destination = str(link.get("/Dest", ""))
            if not re.search(r"-(fig|eq)-", destination):
                continue
            x1, y1, x2, y2 = (float(v) for v in link["/Rect"])
            lines = text_in(pdfs[name], number, (x1, height - y2, x2, height - y1))
            last = links[-1] if links else None
            if (
                last
                and last[1] == destination
                and last[0] >= number - 1
                and cited(last[2]) is None
            ):
                last[2].append(lines)
            else:
                links.append((number, destination, [lines]))
    found, wrong = 0, []
    for number, destination, pieces in links:
        citation = cited(pieces)
        if citation is None:
            continue
        text = citation[0]
        found += 1
        # The page where the target begins; a figure taller than what is left
        # of it ends, with its caption, on the next.
        at = reader.get_destination_page_number(reader.named_destinations[destination])
        shown = squeeze("".join(texts[name][at : at + 2]))
        if citation["figure"]:
            ok = captions.get(text, "\0")[:40] in shown
        else:  # the tag, not a citation of it (式 (6.1))
            tag = re.escape(f"({citation['eq']})")
            ok = re.search(f"(?<!式){tag}", shown) is not None
        if not ok:
            wrong.append((number + 1, text, destination))
    assert not wrong, wrong
    assert found == expected > 0, (found, expected)
