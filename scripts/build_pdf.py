"""Make a PDF of each edition: ``SITE_DIR/<language>/attention-<language>.pdf``.

Usage: ``python scripts/build_pdf.py [SITE_DIR]`` (default ``site``; ``make pdf``
builds the site first, then runs this).

Why this route: the PDF is the book as its pages show it, so it is printed
from those pages by a well-kept print view and a real browser rather than by
a renderer of our own. Our part is the glue between them.

1. **One print page per edition.** ``mkdocs-print-site-plugin`` combines
   every page of the edition's navigation, in reading order, into one print
   page, with a title page (``scripts/pdf/cover.html``) and a table of
   contents, and turns links between pages into links within it. It runs in
   a build of its own, the edition's configuration plus the plugin and the
   book plugin's ``print_page`` stage (which hands the plugin each page with
   its maths typeset, opens every ``<details>`` and adds ``scripts/pdf/print.css``:
   see its docstring), built with ``--strict`` into a temporary folder. The
   online book never gets the print page.
2. **Printed by Chromium.** Playwright drives the Chromium the browser tests
   use (Debian's ``chromium``, or ``CHROMIUM``; never a browser of its own)
   with the tests' launch flags. It opens the print page from a server on
   127.0.0.1, in the light palette and without JavaScript, aborts any
   request to another host (and then fails), waits for the fonts, and
   prints it as the print stylesheet says: A4, numbered pages. Chromium
   embeds the fonts it draws with (subsets: KaTeX's, and Noto CJK's as
   Type 3 fonts, Skia's form for CFF outlines).
3. **Bookmarks, searchable text, size** (pikepdf): the parts and chapters
   become the PDF's bookmarks, each font's map from glyphs to text is
   mended where Chromium names a radical for an ideograph (``unify_cmap``),
   each CJK glyph is drawn once (``share_glyphs``) and the small objects are
   compressed together: some 5.5 MB an edition instead of 8.

The editions are made side by side, one per core, each in a process of its
own: about two and a half minutes for the three on two cores.
"""

from __future__ import annotations

import functools
import http.server
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

from attention_book import ROOT
from attention_book.browser import CHROMIUM, CHROMIUM_ARGS
from attention_book.editions import LANGUAGES
from attention_book.site import BuildError, side_by_side
from attention_book.zh_hans import edition_words

#: The table of contents' title in each hand-written edition; the Simplified
#: edition converts the Traditional one (``edition_words``).
TOC_TITLES = {"ja": "目次", "zh-Hant": "目錄"}


def pdf_name(language: str) -> str:
    """The file name of an edition's PDF, linked from its home and about pages."""
    return f"attention-{language}.pdf"


# --- 1. The print page -------------------------------------------------------


def print_site_options(language: str) -> dict:
    """mkdocs-print-site-plugin's options for an edition's print page."""
    return {
        "add_to_navigation": False,
        "add_cover_page": True,
        "cover_page_template": "scripts/pdf/cover.html",
        "add_table_of_contents": True,
        "toc_title": edition_words(TOC_TITLES, language),
        # The book's build numbers chapters, sections and figures
        # (attention_book.numbering): the plugin's own numbers would double them.
        "enumerate_headings": False,
        "enumerate_figures": False,
        # A notebook page has no print view of its own.
        "exclude": ["*.ipynb"],
    }


def _plugin_name(entry) -> str:
    """The name of a ``plugins:`` entry of mkdocs.yml (a name or a mapping)."""
    return entry if isinstance(entry, str) else next(iter(entry))


def only_pages(nav: list, pages: list[str]) -> list:
    """The entries of ``nav`` (mkdocs.yml's ``nav:``) that lead to ``pages``,
    in the navigation's order, each under its part; parts left empty go."""
    kept = []
    for entry in nav:
        if isinstance(entry, str):
            if entry in pages:
                kept.append(entry)
            continue
        ((title, value),) = entry.items()
        if isinstance(value, list):
            value = only_pages(value, pages)
            if value:
                kept.append({title: value})
        elif value in pages:
            kept.append(entry)
    return kept


def _build_print_view(
    language: str, out_dir: Path, pages: list[str] | None = None
) -> None:
    """Build an edition with its print page into ``out_dir`` (in this process).

    With ``pages`` (files of the edition, as ``nav:`` names them), the print
    page holds those pages only: a PDF of one chapter, for the quick tier of
    the tests. The other pages are built as usual, so links to them resolve.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.utils.yaml import yaml_load

    # MkDocs' own log, as `mkdocs build` prints it (and counts its warnings).
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logging.getLogger("mkdocs").addHandler(handler)
    logging.getLogger("mkdocs").setLevel(logging.INFO)
    config_file = ROOT / LANGUAGES[language]
    with config_file.open("rb") as source:
        raw = yaml_load(source)  # INHERIT resolved: the edition's full lists
    # A PDF has no search box: the search index is not built for it. The
    # print-site plugin comes last, after every plugin that changes pages,
    # the book's own (attention_book.plugin) included, whose print_view
    # stage hands it each page with its maths.
    plugins = [p for p in raw["plugins"] if _plugin_name(p) not in ("search", "book")]
    book = {"book": {"search": False, "print_view": True}}
    options = {}
    if pages:
        # The pages left out of the navigation are there on purpose.
        validation = {**raw.get("validation", {}), "omitted_files": "info"}
        options = {"nav": only_pages(raw["nav"], pages), "validation": validation}
    config = load_config(
        str(config_file),
        site_dir=str(out_dir),
        strict=True,
        plugins=[*plugins, book, {"print-site": print_site_options(language)}],
        **options,
    )
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()


# --- 2. The PDF ----------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


#: How long the print page may take to load and print (milliseconds).
PRINT_TIMEOUT_MS = 600_000


class OtherHostError(Exception):
    """The print page asked for something from another host."""


def print_pdf(browser, url: str, target: Path) -> None:
    """Print the print page at ``url`` (on 127.0.0.1) to ``target``."""
    local = urlsplit(url).netloc
    other_hosts: list[str] = []

    def route(route):
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            other_hosts.append(route.request.url)
            route.abort()

    # No JavaScript: the print page is complete without it (the print_page stage).
    context = browser.new_context(color_scheme="light", java_script_enabled=False)
    try:
        context.route("**/*", route)
        # A guard against a hang, not a limit on speed: the print page holds
        # the whole book, and on a busy machine (three editions printed
        # beside the tests) its load took over Playwright's default 30 s.
        context.set_default_timeout(PRINT_TIMEOUT_MS)
        page = context.new_page()
        page.goto(url, wait_until="load")
        # Every font the page uses (KaTeX's are loaded once text needs them).
        page.evaluate("document.fonts.ready.then(() => document.fonts.size)")
        target.parent.mkdir(parents=True, exist_ok=True)
        # Page size, margins and numbers come from scripts/pdf/print.css.
        page.pdf(path=target, prefer_css_page_size=True, print_background=True)
    finally:
        context.close()
    if other_hosts:
        raise OtherHostError(
            f"{url} asked another host for:\n  " + "\n  ".join(other_hosts)
        )


# --- 3. Bookmarks and searchable text (pikepdf) ---------------------------------

#: Unicode's two blocks of radicals: CJK Radicals Supplement, Kangxi Radicals.
FIRST_RADICAL, LAST_RADICAL = 0x2E80, 0x2FDF
RADICALS = re.compile(f"[{chr(FIRST_RADICAL)}-{chr(LAST_RADICAL)}]")
#: A ToUnicode CMap's mappings: one code, or a range of codes, to Unicode.
BFCHAR = re.compile(r"\d+ beginbfchar(.*?)endbfchar", re.DOTALL)
BFRANGE = re.compile(r"\d+ beginbfrange(.*?)endbfrange", re.DOTALL)
HEX = re.compile(r"<([0-9A-Fa-f]+)>")


@functools.cache
def radical_equivalents() -> dict[str, str]:
    """Each radical a CJK font of this machine draws with an ideograph's glyph.

    The fonts come from fontconfig (those that draw radicals); a radical's
    ideograph is the lowest code point of the CJK blocks that maps to the
    radical's glyph in the same font (the first font that has one decides).
    """
    from fontTools.ttLib import TTCollection, TTFont

    listing = subprocess.run(
        ["fc-list", "--format=%{file}\n", ":charset=2f00"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    equivalents: dict[str, str] = {}
    for path in sorted(set(listing.split())):
        if path.endswith((".ttc", ".otc")):
            fonts = TTCollection(path, lazy=True).fonts
        else:
            fonts = [TTFont(path, lazy=True)]
        for font in fonts:
            cmap = font.getBestCmap()
            # The glyphs of the font's radicals, then the ideographs drawn
            # with them: two passes over the map (some 65 000 codes a font).
            radicals = {code: glyph for code, glyph in cmap.items() if _radical(code)}
            ideographs: dict[str, list[str]] = {}
            shared = set(radicals.values())
            for code, glyph in cmap.items():
                if glyph in shared and not _radical(code):
                    if unicodedata.name(chr(code), "").startswith("CJK UNIFIED"):
                        ideographs.setdefault(glyph, []).append(chr(code))
            for code, glyph in radicals.items():
                if glyph in ideographs:
                    equivalents.setdefault(chr(code), min(ideographs[glyph]))
    return equivalents


def _radical(code: int) -> bool:
    """Whether ``code`` is in one of the two blocks of radicals."""
    return FIRST_RADICAL <= code <= LAST_RADICAL


def unify_radical(character: str) -> str:
    """The ideograph a radical stands for in running text, or the character."""
    if not RADICALS.fullmatch(character):
        return character
    # A Kangxi radical's compatibility decomposition is its ideograph.
    decomposed = unicodedata.normalize("NFKC", character)
    if decomposed != character:
        return decomposed
    return radical_equivalents().get(character, character)


def unify_cmap(cmap: str) -> str:
    """A ToUnicode CMap whose radicals are the ideographs they are drawn as.

    Chromium (Skia) maps each glyph it embeds to the lowest code point that
    the font maps to it. Noto CJK draws 力 and the Kangxi radical ⼒, 页 and
    the radical ⻚ with one glyph each, so the text of the PDF, as a reader
    copies or searches it, would hold radicals where the page has ideographs.
    """
    mappings: list[tuple[int, str]] = []
    for block in BFCHAR.findall(cmap):
        codes = HEX.findall(block)
        for source, target in zip(codes[::2], codes[1::2], strict=True):
            mappings.append((int(source, 16), _utf16(target)))
    for block in BFRANGE.findall(cmap):
        codes = HEX.findall(block)
        for low, high, target in zip(codes[::3], codes[1::3], codes[2::3], strict=True):
            first = _utf16(target)
            for offset in range(int(high, 16) - int(low, 16) + 1):
                text = first[:-1] + chr(ord(first[-1]) + offset)
                mappings.append((int(low, 16) + offset, text))
    if not any(RADICALS.search(text) for _, text in mappings):
        return cmap
    width = len(HEX.search(cmap.split("begincodespacerange")[1])[1])
    lines = []
    for source, text in mappings:
        unified = "".join(map(unify_radical, text)).encode("utf-16-be").hex()
        lines.append(f"<{source:0{width}X}> <{unified.upper()}>")
    blocks = "".join(
        f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar\n"
        for chunk in (lines[i : i + 100] for i in range(0, len(lines), 100))
    )
    head = cmap[: cmap.index("endcodespacerange") + len("endcodespacerange\n")]
    return head + blocks + cmap[cmap.index("endcmap") :]


def _utf16(hex_text: str) -> str:
    return bytes.fromhex(hex_text).decode("utf-16-be")


def share_glyphs(document) -> int:
    """Draw each glyph of the Type 3 fonts once: how many drawings were shared.

    Chromium embeds Noto CJK as Type 3 fonts, each glyph a small stream of
    drawing operators, and writes a font for every subset it draws with: the
    same ideograph is drawn again, byte for byte, in each font that holds
    it. A font's glyph now points to the first identical drawing; qpdf leaves
    out the copies, which nothing refers to any more, when it writes the file.
    Only fonts without resources of their own share drawings: the same bytes
    could name another image or state in another font's resources (Chromium
    gives its Type 3 fonts none: each drawing is a path).
    """
    first: dict[tuple, object] = {}
    shared = 0
    fonts = {
        font.objgen: font
        for page in document.pages
        for font in page.Resources.get("/Font", {}).values()
        if font.get("/Subtype") == "/Type3" and "/Resources" not in font
    }
    for font in fonts.values():
        drawings = font.CharProcs
        for name in list(drawings.keys()):
            drawing = drawings[name]
            key = (
                drawing.read_raw_bytes(),
                repr(drawing.get("/Filter")),
                repr(drawing.get("/DecodeParms")),
            )
            kept = first.setdefault(key, drawing)
            if kept.objgen != drawing.objgen:
                drawings[name] = kept
                shared += 1
    return shared


def finish_pdf(pdf: Path, outline: list[dict]) -> None:
    """Give ``pdf`` its bookmarks, text that reads as the page does, and a
    smaller file.

    Bookmarks: Chromium writes a named destination (the catalogue's
    ``/Dests``) for every element a link of the page points to, as the table
    of contents does for each part and chapter; each bookmark goes to its
    destination's page. Text: every font's ToUnicode map is passed through
    ``unify_cmap``. Size: each glyph is drawn once (``share_glyphs``), and
    the file's many small objects (a Type 3 font's dictionaries, its
    widths) are compressed together in object streams (PDF 1.5), which every
    reader of the last twenty years opens: some 30 % smaller. pikepdf (qpdf)
    rewrites the file in place: a few seconds for a book of 300 pages.
    """
    import pikepdf

    with pikepdf.open(pdf, allow_overwriting_input=True) as document:
        number_of = {page.objgen: n for n, page in enumerate(document.pages)}
        dests = document.Root.get("/Dests", {})
        pages = {
            str(name).lstrip("/"): number_of[destination[0].objgen]
            for name, destination in dests.items()
        }

        def add(entries: list[dict], into: list) -> None:
            for entry in entries:
                if entry["id"] not in pages:
                    raise SystemExit(f"{pdf}: no destination for {entry}")
                item = pikepdf.OutlineItem(entry["title"], pages[entry["id"]])
                into.append(item)
                add(entry["children"], item.children)

        with document.open_outline() as bookmarks:
            add(outline, bookmarks.root)
        # Open with the bookmarks shown.
        document.Root.PageMode = pikepdf.Name.UseOutlines

        done = set()
        for page in document.pages:
            for font in page.Resources.get("/Font", {}).values():
                if font.objgen in done or "/ToUnicode" not in font:
                    continue
                done.add(font.objgen)
                cmap = font.ToUnicode.read_bytes().decode("latin-1")
                unified = unify_cmap(cmap)
                if unified != cmap:
                    font.ToUnicode.write(unified.encode("latin-1"))
        share_glyphs(document)
        document.save(pdf, object_stream_mode=pikepdf.ObjectStreamMode.generate)


def make_pdf(language: str, target: Path, pages: list[str] | None = None) -> None:
    """Build an edition's print view (of ``pages`` only, if given: see
    ``_build_print_view``) and print it to ``target`` (in this process)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="attention-docs-print-") as work:
        start = time.perf_counter()
        _build_print_view(language, Path(work) / language, pages)
        built = time.perf_counter()
        handler = functools.partial(_QuietHandler, directory=work)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/{language}/print_page/"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS
                )
                print_pdf(browser, url, target)
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
        outline = Path(work) / language / "print_page" / "outline.json"
        finish_pdf(target, json.loads(outline.read_text(encoding="utf-8")))
    print(
        f"{language}: print view built in {built - start:.1f} s, "
        f"printed in {time.perf_counter() - built:.1f} s",
        flush=True,
    )


def build_edition(
    language: str, site_dir: Path, pages: list[str] | None = None
) -> tuple[float, str]:
    """Make an edition's PDF (of ``pages`` only, if given) in a process of its
    own: (seconds, its log)."""
    target = site_dir / language / pdf_name(language)
    command = [sys.executable, __file__, "--edition", language, str(target)]
    command += pages or []
    # The print view is the edition as the site with its PDFs shows it: its
    # home and about pages speak of the PDF (the book stage).
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "BOOK_PDF": "1"}
    start = time.perf_counter()
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    if result.returncode:
        raise BuildError(f"{language} PDF", result.stdout)
    return time.perf_counter() - start, result.stdout


def build(
    site_dir: Path, languages=None, jobs: int | None = None, pages=None
) -> dict[str, dict]:
    """Write every edition's PDF into ``site_dir/<language>/`` (of ``pages``
    only, if given: the files as ``nav:`` names them, e.g. ``index.md``).

    The editions are made side by side (``side_by_side``), each in a process
    of its own (its print build, its server, its browser). Returns, per
    edition, its PDF's path, the seconds it took and its log, and
    ``"total"``: the wall time of the whole.
    """
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: run `make browser`")
    site_dir = site_dir.resolve()
    results = side_by_side(
        functools.partial(build_edition, pages=pages),
        languages or LANGUAGES,
        site_dir,
        "PDF made",
        jobs,
    )
    for language, result in results.items():
        if language != "total":
            result["pdf"] = site_dir / language / pdf_name(language)
    return results


def main(argv: list[str]) -> None:
    """``build_pdf.py [SITE [EDITION ...]] [--pages PAGE.md ...]``: every
    edition unless some are named, every page unless some are named."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("editions", nargs="*", metavar="EDITION")
    parser.add_argument("--pages", nargs="+", metavar="PAGE.md")
    arguments = parser.parse_args(argv)
    unknown = sorted(set(arguments.editions) - set(LANGUAGES))
    if unknown:
        parser.error(f"no edition {unknown}: expected some of {list(LANGUAGES)}")
    try:
        times = build(arguments.site, arguments.editions or None, pages=arguments.pages)
    except BuildError as error:
        print(error, file=sys.stderr)
        raise SystemExit(1) from None
    print(f"PDFs made in {times['total']['seconds']:.1f} s")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--edition"]:
        try:
            make_pdf(sys.argv[2], Path(sys.argv[3]), sys.argv[4:] or None)
        except OtherHostError as error:
            print(error)
            raise SystemExit(1) from None
        raise SystemExit(0)
    main(sys.argv[1:])
