"""Typeset every formula with KaTeX while the book is built.

A page's maths reaches the reader as HTML (with MathML for screen readers),
there at first paint, without JavaScript, after instant navigation and in
print. Pages carry KaTeX's stylesheet and fonts (``stages/book.py`` adds them
from ``node_modules``) but no KaTeX script.

- **Where the formulas are.** ``pymdownx.arithmatex`` (generic mode) wraps a
  page's inline maths ``\\( … \\)`` in ``<span class="arithmatex">`` and its
  display maths ``\\[ … \\]`` or ``\\begin{…} … \\end{…}`` in
  ``<div class="arithmatex">``.
- **One KaTeX process per build.** ``stages/katex_server.js`` runs under Node
  with the KaTeX that ``package-lock.json`` pins and answers one formula per
  line. It starts with the first formula and stops after the build (also
  after each rebuild of ``mkdocs serve``); identical formulas are typeset once.
- **Typeset once across builds.** What KaTeX answered is kept in
  ``.cache/katex/<version>.json``, named by a hash of KaTeX's version and of
  ``katex_server.js`` (the options), so that the editions, the PDFs' print
  builds and later builds typeset only formulas they have not seen; a new
  KaTeX or new options start a new file. ``BOOK_KATEX_CACHE=0`` turns it off.
- **Strict.** A formula KaTeX cannot parse, or would only warn about, fails
  the build with the page and the formula named.
- **Fonts at first paint.** KaTeX's fonts are requested only once text set
  in them is laid out, and its CSS declares ``font-display: block``: a font
  that arrives after the first paint moves the text around it (layout shift
  0.08 to 0.16 on the heaviest page). Each page therefore preloads the fonts
  its formulas use, found from KaTeX's own stylesheet: which classes select
  which font, and which of those classes the page's formulas carry.
- **Fonts cut to the book's characters.** KaTeX's fonts cover all of TeX's
  symbols; the book uses about a hundred characters. After the build, each
  font a page preloads is cut (fontTools) to the characters of every
  formula of the edition plus printable ASCII, without hinting: 110 KiB of
  fonts on the heaviest page become 40. Every page of an edition shares the
  cut fonts, so instant navigation finds every glyph it needs.
- **Search.** Material's search plugin indexes a page's HTML after this hook
  (in ``on_page_context``). KaTeX's output holds each formula twice (the
  MathML, with the TeX source as its annotation, and the visible HTML), and
  the plugin's ``data-search-exclude`` cannot leave it out: its parser
  compares elements by tag name, so the first nested ``</span>`` ends the
  exclusion. So the page is indexed with each formula as readable text
  (``QK^⊤/√(d_k)``, by pylatexenc), and the typeset formulas replace those
  placeholders once the page is indexed.
- **Headings.** The toc extension names a heading's entry in the table of
  contents with the heading's text, the TeX of an inline formula included
  (``\\(\\sqrt{d_{\\text{model}}}\\)``). Such an entry gets the formula
  typeset, as Material's template shows an entry's ``typeset`` title, and
  readable text (``√(d_model)``) as its plain title, which the template uses
  as a label.
"""

from __future__ import annotations

import functools
import hashlib
import html
import io
import json
import logging
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from attention_book import ROOT

log = logging.getLogger("mkdocs.hooks.katex")

SERVER = Path(__file__).resolve().with_name("katex_server.js")
KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
#: KaTeX's answers, kept between builds (``Katex.cache_file``).
CACHE = ROOT / ".cache" / "katex"

#: pymdownx.arithmatex's generic output: the TeX, HTML-escaped, delimiters kept.
ARITHMATEX = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">(?P<tex>.*?)</(?P=tag)>', re.DOTALL
)
#: A formula while the page is indexed: its readable text, and its number in
#: the page's list of typeset formulas.
PLACEHOLDER = re.compile(r'<formula-text data-n="(\d+)">[^<]*</formula-text>')


#: A rule of katex.min.css: its selectors and its declarations.
CSS_RULE = re.compile(r"(?P<selectors>[^{}]+)\{(?P<declarations>[^{}]*)\}")
#: Where the page's stylesheets start, for the font preloads to go before.
HEAD_STYLES = re.compile(r'<link rel="stylesheet"')
CLASS = re.compile(r'class="([^"]+)"')
#: An inline formula in a table of contents entry's title (escaped text).
TOC_FORMULA = re.compile(r"\\\((.+?)\\\)")


class KatexError(Exception):
    """KaTeX refused a formula."""


class Katex:
    """One Node process running stages/katex_server.js, one formula per line."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._cache: dict[tuple[str, bool], str] = {}
        self._loaded = False  # the cache file read
        self._new = False  # formulas typeset since the file was read
        self.formulas = 0  # typeset or taken from the cache
        self.seconds = 0.0  # spent waiting for KaTeX
        self.hook_seconds = 0.0  # spent in this hook, KaTeX included

    def _start(self) -> subprocess.Popen:
        node = shutil.which("node")
        if node is None:
            raise PluginError("Node.js is needed to typeset the maths (KaTeX)")
        return subprocess.Popen(
            [node, str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    @staticmethod
    def cache_file() -> Path | None:
        """The file of KaTeX's answers for this KaTeX and these options."""
        if os.environ.get("BOOK_KATEX_CACHE", "1") == "0":
            return None
        version = json.loads((KATEX_DIST.parent / "package.json").read_bytes())
        digest = hashlib.sha256(SERVER.read_bytes())
        digest.update(version["version"].encode())
        return CACHE / f"{digest.hexdigest()[:32]}.json"

    @staticmethod
    def _read(path: Path) -> dict[tuple[str, bool], str]:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or one a crash left unreadable
        return {(tex, bool(display)): html for tex, display, html in entries}

    def _load(self) -> None:
        self._loaded = True
        path = self.cache_file()
        if path is not None:
            self._cache = {**self._read(path), **self._cache}

    def save(self) -> None:
        """Add what this build typeset to the cache file (whole, then renamed,
        as builds run side by side: a formula another build adds meanwhile
        may be lost, never a file cut short)."""
        path = self.cache_file()
        if path is None or not self._new:
            return
        self._new = False
        entries = {**self._read(path), **self._cache}
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(
            json.dumps(
                [[tex, display, html] for (tex, display), html in entries.items()]
            ),
            encoding="utf-8",
        )
        partial.replace(path)

    def render(self, tex: str, display: bool) -> str:
        self.formulas += 1
        if not self._loaded:
            self._load()
        key = (tex, display)
        if key in self._cache:
            return self._cache[key]
        start = time.perf_counter()
        if self._process is None or self._process.poll() is not None:
            self._process = self._start()
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps({"tex": tex, "display": display}) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            code = self._process.wait()
            raise PluginError(f"KaTeX ({SERVER.name}) stopped with exit code {code}")
        answer = json.loads(line)
        self.seconds += time.perf_counter() - start
        if "error" in answer:
            raise KatexError(answer["error"])
        self._cache[key] = answer["html"]
        self._new = True
        return answer["html"]

    def close(self) -> None:
        if self.formulas:
            # What build-time maths costs the build (make bench reports it).
            log.info(
                "KaTeX typeset %d formulas (%d distinct) in %.2f s; "
                "maths took %.2f s of the build",
                self.formulas,
                len(self._cache),
                self.seconds,
                self.hook_seconds,
            )
        self.formulas, self.seconds, self.hook_seconds = 0, 0.0, 0.0
        self.save()
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None


KATEX = Katex()
#: Each page's typeset formulas, from on_page_content to on_page_context.
_TYPESET: dict[str, list[str]] = {}
#: Each page's KaTeX fonts, from on_page_context to on_post_page.
_FONTS: dict[str, list[str]] = {}
#: Every character of the edition's formulas, and the fonts its pages use.
_CHARACTERS: set[str] = set()
_FONTS_USED: set[str] = set()
#: A safety margin kept in every cut font: printable ASCII.
ASCII = {chr(code) for code in range(0x20, 0x7F)}
TAG = re.compile(r"<[^>]+>")


@functools.cache
def _font_rules() -> tuple[tuple[frozenset[str], str], ...]:
    """(classes an element must have, font file) pairs, from katex.min.css.

    ``.katex .mathbf{font-family:KaTeX_Main;font-weight:700}`` says that an
    element of class ``mathbf`` is set in ``KaTeX_Main-Bold``; for
    ``.katex .delimsizing.mult .delim-size1>span`` the classes are those of
    the last part that names any (``delim-size1``).
    """
    css = (KATEX_DIST / "katex.min.css").read_text(encoding="utf-8")
    rules = []
    for rule in CSS_RULE.finditer(css):
        declarations = rule["declarations"]
        family = re.search(r"font-family:KaTeX_(\w+)", declarations)
        if family is None or "@font-face" in rule["selectors"]:
            continue
        bold = re.search(r"font-weight:(?:700|bold)", declarations) is not None
        italic = "font-style:italic" in declarations
        variant = {
            (True, True): "BoldItalic",
            (True, False): "Bold",
            (False, True): "Italic",
        }.get((bold, italic), "Regular")
        font = f"KaTeX_{family[1]}-{variant}.woff2"
        if not (KATEX_DIST / "fonts" / font).is_file():
            continue
        for selector in rule["selectors"].split(","):
            parts = [p for p in re.split(r"[\s>+~]+", selector.strip()) if "." in p]
            if parts and parts[-1] != ".katex":
                classes = frozenset(re.findall(r"\.([\w-]+)", parts[-1]))
                rules.append((classes, font))
    return tuple(rules)


def fonts_used(formulas: list[str]) -> list[str]:
    """The KaTeX font files that the typeset ``formulas`` are set in."""
    if not formulas:
        return []
    used = {"KaTeX_Main-Regular.woff2"}  # .katex's own font
    class_sets = {
        frozenset(match[1].split())
        for formula in formulas
        for match in CLASS.finditer(formula)
    }
    for classes, font in _font_rules():
        if any(classes <= found for found in class_sets):
            used.add(font)
    return sorted(used)


@functools.cache
def _readable(tex: str) -> str:
    """The formula as plain text for the search index, or "" if it has none
    (kept: a book writes the same formula many times)."""
    from pylatexenc.latex2text import LatexNodes2Text

    text = LatexNodes2Text(math_mode="text").latex_to_text(tex)
    return " ".join(text.split())


def _typeset(tex: str, display: bool, page, errors: list[str]) -> str | None:
    """A placeholder for the formula, or None (and an error) if KaTeX refuses it."""
    try:
        rendered = KATEX.render(tex, display)
    except KatexError as error:
        errors.append(f"{tex.strip()!r}: {error}")
        return None
    formulas = _TYPESET.setdefault(page.file.src_uri, [])
    formulas.append(rendered)
    # Its characters (a superset: MathML and the TeX annotation count too).
    _CHARACTERS.update(html.unescape(TAG.sub("", rendered)))
    text = html.escape(_readable(tex), quote=False)
    return f'<formula-text data-n="{len(formulas) - 1}">{text}</formula-text>'


def _arithmatex(match: re.Match, page, errors: list[str]) -> str:
    source = html.unescape(match["tex"]).strip()
    if source.startswith("\\(") and source.endswith("\\)"):
        tex, display = source[2:-2], False
    elif source.startswith("\\[") and source.endswith("\\]"):
        tex, display = source[2:-2], True
    else:  # \begin{…} … \end{…}, kept whole
        tex, display = source, True
    placeholder = _typeset(tex, display, page, errors)
    if placeholder is None:
        return match[0]
    return f'<{match["tag"]} class="arithmatex">{placeholder}</{match["tag"]}>'


def _timed(event):
    """Count the time an event of this hook takes in KATEX.hook_seconds."""

    @functools.wraps(event)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return event(*args, **kwargs)
        finally:
            KATEX.hook_seconds += time.perf_counter() - start

    return timed


@_timed
def on_page_content(html_: str, page, config, files) -> str:
    errors: list[str] = []
    _TYPESET[page.file.src_uri] = []
    html_ = ARITHMATEX.sub(lambda match: _arithmatex(match, page, errors), html_)
    if errors:
        raise PluginError(
            f"{page.file.src_uri}: KaTeX cannot typeset "
            + ("this formula" if len(errors) == 1 else f"{len(errors)} formulas")
            + ":\n  "
            + "\n  ".join(errors)
        )
    return html_


def _interleave(texts: list[str], formulas: list[str]) -> str:
    return "".join(a + b for a, b in zip(texts, [*formulas, ""], strict=True))


def typeset_toc(items) -> None:
    """Typeset the formulas of table of contents entries (``AnchorLink``s).

    An entry whose title holds ``\\(…\\)`` gets ``typeset = {"title": …}``,
    the title with the formulas typeset, which Material's toc-item template
    shows instead of the title; the title itself keeps the formulas as
    readable text, for the labels the template derives from it.
    """
    for item in items:
        # Text and formulas alternate: [text, tex, text, …, text].
        parts = TOC_FORMULA.split(item.title)
        if len(parts) > 1:
            formulas = [html.unescape(tex) for tex in parts[1::2]]
            typeset = [KATEX.render(tex, False) for tex in formulas]
            readable = [html.escape(_readable(tex), quote=False) for tex in formulas]
            item.typeset = {"title": _interleave(parts[::2], typeset)}
            item.title = _interleave(parts[::2], readable)
        typeset_toc(item.children)


@_timed
def on_page_context(context, page, config, nav):
    # Material's search plugin has indexed the page (it runs first): put the
    # typeset formulas in place of their readable text.
    formulas = _TYPESET.pop(page.file.src_uri, [])
    page.content = PLACEHOLDER.sub(lambda match: formulas[int(match[1])], page.content)
    typeset_toc(page.toc.items)
    _FONTS[page.file.src_uri] = fonts_used(formulas)
    _FONTS_USED.update(_FONTS[page.file.src_uri])
    return context


@_timed
def on_post_page(output: str, page, config) -> str:
    fonts = _FONTS.pop(page.file.src_uri, [])
    if not fonts:
        return output
    links = "".join(
        '<link rel="preload" href="'
        + get_relative_url(f"assets/katex/fonts/{font}", page.url)
        + '" as="font" type="font/woff2" crossorigin>'
        for font in fonts
    )
    return HEAD_STYLES.sub(lambda match: links + match[0], output, count=1)


def cut_font(path: Path, characters: set[str]) -> None:
    """Keep only ``characters`` in the WOFF2 font at ``path``, in place."""
    from fontTools import subset

    options = subset.Options()
    options.flavor = "woff2"
    options.hinting = False
    # From memory: the font is rewritten in place, and fontTools reads lazily.
    font = subset.load_font(io.BytesIO(path.read_bytes()), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(map(ord, characters)))
    subsetter.subset(font)
    subset.save_font(font, str(path), options)
    font.close()


@_timed
def _cut_fonts(config) -> None:
    fonts = Path(config.site_dir) / "assets" / "katex" / "fonts"
    for name in sorted(_FONTS_USED):
        cut_font(fonts / name, _CHARACTERS | ASCII)


def reset() -> None:
    """Forget the pages' formulas and fonts and stop KaTeX, as a new build needs.

    At the end of every build (``mkdocs serve`` builds again with the same
    module), and after a test that used the hook's events.
    """
    _TYPESET.clear()
    _FONTS.clear()
    _CHARACTERS.clear()
    _FONTS_USED.clear()
    KATEX.close()


def on_post_build(config) -> None:
    if _FONTS_USED:
        _cut_fonts(config)
    reset()


def on_build_error(error) -> None:
    reset()
