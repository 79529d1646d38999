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
- **MathML only, the default.** KaTeX is asked for MathML only (half the
  elements of a long page), rewritten for the browsers' MathML Core
  (``rewrite_mathml``) and drawn in STIX Two Math (``\\mathcal`` in
  KaTeX's calligraphic capitals), cut like KaTeX's fonts; KaTeX's
  stylesheet and fonts are not shipped. ``BOOK_MATH=html`` builds the
  book as it was until 2026-12-03 (KaTeX's HTML and MathML, the points
  above on KaTeX's fonts), to compare; docs-dev/performance.md says what
  still differs. An inline formula is cut into consecutive ``<math>``
  where KaTeX's HTML may break the line (``split_inline``), as Chromium
  breaks none inside one; the text's mathematical letters (𝐪 in a
  sentence) are kept in the cut font too, which book.css gives them.
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
import unicodedata
from pathlib import Path

from lxml import etree
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from attention_book import ROOT

log = logging.getLogger("mkdocs.hooks.katex")

SERVER = Path(__file__).resolve().with_name("katex_server.js")
KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
#: KaTeX's answers, kept between builds (``Katex.cache_file``).
CACHE = ROOT / ".cache" / "katex"
#: The maths font of the MathML output, and where the site serves it.
STIX = ROOT / "node_modules" / "@fontsource" / "stix-two-math"
STIX_FONT = STIX / "files" / "stix-two-math-latin-400-normal.woff2"
#: The same font as WOFF 1, what the build reads and cuts: fontTools undoes
#: WOFF 1's zlib some ten times faster than WOFF2's transformed glyphs (some
#: 4 s a read on this machine, twice a build), and the cut font it writes,
#: WOFF2, is the same table for table (tests/docs/test_katex_mathml.py).
STIX_SOURCE = STIX_FONT.with_suffix(".woff")
MATH_FONT = "assets/math/stix-two-math.woff2"
MATH_LICENCE = "assets/math/OFL.txt"
#: ``\mathcal``'s capitals, KaTeX's own (MIT): STIX Two Math has no
#: calligraphic letters (its script ones are round-hand, and the npm build
#: has neither a stylistic set nor a variation sequence to select others).
CALLIGRAPHIC_SOURCE = KATEX_DIST / "fonts" / "KaTeX_Caligraphic-Regular.woff2"
CALLIGRAPHIC_FONT = "assets/math/katex-caligraphic.woff2"
CALLIGRAPHIC_LICENCE = "assets/math/KaTeX-LICENSE.txt"
#: The letters KaTeX_Caligraphic has, and the class its ``<mi>`` get.
CALLIGRAPHIC = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
CALLIGRAPHIC_CLASS = "book-cal"

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


def _write_whole(path: Path, entries) -> None:
    """Write ``entries`` as JSON to ``path``: whole, then renamed, as builds
    run side by side (what another build adds meanwhile may be lost, never a
    file cut short)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(entries), encoding="utf-8")
    partial.replace(path)


class KatexError(Exception):
    """KaTeX refused a formula."""


class Katex:
    """One Node process running stages/katex_server.js, one formula per line."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._cache: dict[tuple[str, bool], str] = {}
        #: What this module makes of an answer (``derived_file``): the MathML
        #: output's formula, "mathml 0|1 <tex>", and the text the search
        #: reads, "text <tex>".
        self._derived: dict[str, str] = {}
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
        if math_output() != "html":  # the HTML's cache file keeps its name
            digest.update(math_output().encode())
        return CACHE / f"{digest.hexdigest()[:32]}.json"

    @classmethod
    def derived_file(cls) -> Path | None:
        """The file of what the build derives from KaTeX's answers (the
        MathML it writes, a formula's readable text): named after the
        answers' file, this module and pylatexenc, which derive them."""
        answers = cls.cache_file()
        if answers is None:
            return None
        from importlib.metadata import version

        digest = hashlib.sha256(answers.name.encode())
        digest.update(Path(__file__).read_bytes())
        digest.update(version("pylatexenc").encode())
        return CACHE / f"derived-{digest.hexdigest()[:32]}.json"

    @staticmethod
    def _read(path: Path) -> dict[tuple[str, bool], str]:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or one a crash left unreadable
        return {(tex, bool(display)): html for tex, display, html in entries}

    def _load(self) -> None:
        self._loaded = True
        path, derived = self.cache_file(), self.derived_file()
        if path is not None and derived is not None:
            self._cache = {**self._read(path), **self._cache}
            self._derived = {**self._read_derived(derived), **self._derived}

    @staticmethod
    def _read_derived(path: Path) -> dict[str, str]:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return entries if isinstance(entries, dict) else {}

    def _derive(self, key: str, make) -> str:
        """``make()``, or what it made for ``key`` in this or an earlier build."""
        if not self._loaded:
            self._load()
        if key not in self._derived:
            self._derived[key] = make()
            self._new = True
        return self._derived[key]

    def readable(self, tex: str) -> str:
        """The formula as plain text for the search index, or "" if it has
        none (pylatexenc's reading of the TeX)."""
        return self._derive(f"text {tex}", lambda: _readable(tex))

    def save(self) -> None:
        """Add what this build typeset to the cache file (whole, then renamed,
        as builds run side by side: a formula another build adds meanwhile
        may be lost, never a file cut short)."""
        path, derived = self.cache_file(), self.derived_file()
        if path is None or derived is None or not self._new:
            return
        self._new = False
        entries = {**self._read(path), **self._cache}
        _write_whole(
            path,
            [[tex, display, html] for (tex, display), html in entries.items()],
        )
        _write_whole(derived, {**self._read_derived(derived), **self._derived})

    def render(self, tex: str, display: bool) -> str:
        """The formula typeset as the book's maths output asks."""
        self.formulas += 1
        if math_output() == "mathml":
            return self._derive(
                f"mathml {int(display)} {tex}",
                lambda: rewrite_mathml(self._render(tex, display), display),
            )
        return self._render(tex, display)

    def _render(self, tex: str, display: bool) -> str:
        if not self._loaded:
            self._load()
        key = (tex, display)
        if key in self._cache:
            return self._cache[key]
        start = time.perf_counter()
        answer = self._ask(tex, display, KATEX_OUTPUT[math_output()])
        self.seconds += time.perf_counter() - start
        self._cache[key] = answer
        self._new = True
        return answer

    def _ask(self, tex: str, display: bool, output: str) -> str:
        """KaTeX's answer for one formula (``output`` is KaTeX's option)."""
        if self._process is None or self._process.poll() is not None:
            self._process = self._start()
        assert self._process.stdin is not None and self._process.stdout is not None
        request = {"tex": tex, "display": display, "output": output}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            code = self._process.wait()
            raise PluginError(f"KaTeX ({SERVER.name}) stopped with exit code {code}")
        answer = json.loads(line)
        if "error" in answer:
            raise KatexError(answer["error"])
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


def math_output() -> str:
    """ "mathml" (MathML only, drawn by the browser in STIX Two Math: the
    default) or "html" (KaTeX's HTML and MathML, the book's output until
    2026-12-03, kept to compare the two): ``BOOK_MATH``."""
    output = os.environ.get("BOOK_MATH", "mathml")
    if output not in MATH_OUTPUTS:
        raise PluginError(f"BOOK_MATH={output!r}: one of {', '.join(MATH_OUTPUTS)}")
    return output


#: KaTeX's ``output`` option for each of the book's outputs.
KATEX_OUTPUT = {"html": "htmlAndMathml", "mathml": "mathml"}


# --- MathML output (``BOOK_MATH=mathml``) -----------------------------------
#
# KaTeX's MathML is written for MathML 3; Chromium implements MathML Core,
# which drops most presentation attributes. ``rewrite_mathml`` turns them into
# what MathML Core draws: Unicode mathematical alphanumerics for
# ``mathvariant``, CSS on the cells for ``mtable``'s alignment and spacing,
# explicit spacing for a unary minus, primes at the base's height.

#: How ``BOOK_MATH`` asks the book's maths to be typeset: KaTeX's HTML (with
#: its MathML for screen readers) or MathML only, drawn by the browser.
MATH_OUTPUTS = ("html", "mathml")

MATHML_NS = "http://www.w3.org/1998/Math/MathML"

#: ``mathvariant`` -> the style's words in Unicode's character names
#: ("MATHEMATICAL BOLD SMALL X").
VARIANT_NAMES = {
    "bold": "BOLD",
    "italic": "ITALIC",
    "bold-italic": "BOLD ITALIC",
    "double-struck": "DOUBLE-STRUCK",
    "script": "SCRIPT",
    "bold-script": "BOLD SCRIPT",
    "fraktur": "FRAKTUR",
    "bold-fraktur": "BOLD FRAKTUR",
    "sans-serif": "SANS-SERIF",
    "bold-sans-serif": "SANS-SERIF BOLD",
    "sans-serif-italic": "SANS-SERIF ITALIC",
    "sans-serif-bold-italic": "SANS-SERIF BOLD ITALIC",
    "monospace": "MONOSPACE",
}
#: The letters Unicode had encoded before the Mathematical Alphanumeric
#: Symbols block: their places in the block are left empty (unassigned), and
#: these are the characters to use.
LETTERLIKE = {
    ("ITALIC", "SMALL H"): "\u210e",  # ℎ PLANCK CONSTANT
    ("SCRIPT", "CAPITAL B"): "\u212c",
    ("SCRIPT", "CAPITAL E"): "\u2130",
    ("SCRIPT", "CAPITAL F"): "\u2131",
    ("SCRIPT", "CAPITAL H"): "\u210b",
    ("SCRIPT", "CAPITAL I"): "\u2110",
    ("SCRIPT", "CAPITAL L"): "\u2112",
    ("SCRIPT", "CAPITAL M"): "\u2133",
    ("SCRIPT", "CAPITAL R"): "\u211b",
    ("SCRIPT", "SMALL E"): "\u212f",
    ("SCRIPT", "SMALL G"): "\u210a",
    ("SCRIPT", "SMALL O"): "\u2134",
    ("FRAKTUR", "CAPITAL C"): "\u212d",
    ("FRAKTUR", "CAPITAL H"): "\u210c",
    ("FRAKTUR", "CAPITAL I"): "\u2111",
    ("FRAKTUR", "CAPITAL R"): "\u211c",
    ("FRAKTUR", "CAPITAL Z"): "\u2128",
    ("DOUBLE-STRUCK", "CAPITAL C"): "\u2102",
    ("DOUBLE-STRUCK", "CAPITAL H"): "\u210d",
    ("DOUBLE-STRUCK", "CAPITAL N"): "\u2115",
    ("DOUBLE-STRUCK", "CAPITAL P"): "\u2119",
    ("DOUBLE-STRUCK", "CAPITAL Q"): "\u211a",
    ("DOUBLE-STRUCK", "CAPITAL R"): "\u211d",
    ("DOUBLE-STRUCK", "CAPITAL Z"): "\u2124",
}
#: Unicode's names of the Greek letters in the mathematical styles differ
#: from those of the letters themselves in a few places.
GREEK_NAMES = {"LAMDA": "LAMDA", "FINAL SIGMA": "FINAL SIGMA"}
#: The variants Unicode encodes symbols of: ϵ ϑ ϰ ϕ ϱ ϖ, ∇ ∂.
SYMBOL_NAMES = {
    "\u03f5": "EPSILON SYMBOL",
    "\u03d1": "THETA SYMBOL",
    "\u03f0": "KAPPA SYMBOL",
    "\u03d5": "PHI SYMBOL",
    "\u03f1": "RHO SYMBOL",
    "\u03d6": "PI SYMBOL",
    "\u03f4": "CAPITAL THETA SYMBOL",
    "\u2207": "NABLA",
    "\u2202": "PARTIAL DIFFERENTIAL",
}


def _letter_name(char: str) -> str | None:
    """ "CAPITAL X", "SMALL ALPHA", "DIGIT ONE", "NABLA", or None."""
    if char in SYMBOL_NAMES:
        return SYMBOL_NAMES[char]
    name = unicodedata.name(char, "")
    for prefix in ("LATIN ", "GREEK "):
        if name.startswith(prefix) and " LETTER " in name:
            case, _, letter = name[len(prefix) :].partition(" LETTER ")
            if case in ("CAPITAL", "SMALL") and " " not in letter:
                return f"{case} {letter}"
    if name.startswith("DIGIT "):
        return name
    return None


@functools.cache
def styled(char: str, variant: str) -> str | None:
    """``char`` in the style ``mathvariant`` names, as one Unicode character
    ("x", "bold" -> "𝐱"; "R", "double-struck" -> "ℝ"), or None if Unicode
    has no such character."""
    style = VARIANT_NAMES.get(variant)
    letter = _letter_name(char)
    if style is None or letter is None:
        return None
    if (style, letter) in LETTERLIKE:
        return LETTERLIKE[style, letter]
    try:
        return unicodedata.lookup(f"MATHEMATICAL {style} {letter}")
    except KeyError:
        return None


#: Operators after which a minus or plus is a sign, not a binary operator
#: (TeX's rule: a binary operator after a relation, an operator, an opening
#: delimiter or punctuation, or first, is an ordinary symbol): every ``mo``
#: except the closing delimiters and the function application.
OPENING = set("([{|\u2016\u27e8\u230a\u2308")
CLOSING = set(")]}|\u2016\u27e9\u230b\u2309\u2032")
SIGNS = set("\u2212+\u00b1\u2213")
PRIME = set("\u2032\u2033\u2034")
#: KaTeX's spacing in em, and the CSS length of half of it.
LENGTH = re.compile(r"(-?[\d.]+)(em|ex|pt)?")


def _tag(element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


#: KaTeX's em (its text at 1.21 times the page's, katex.min.css) in the em
#: of the MathML (at 1.15 times, book.css: STIX Two Math's letters are
#: larger than Computer Modern's at the same size): KaTeX's spacing kept.
KATEX_EM = 1.21 / 1.15


def _half(length: str) -> str:
    match = LENGTH.fullmatch(length.strip())
    if match is None:
        return "0"
    value = float(match[1]) / 2 * (KATEX_EM if (match[2] or "em") == "em" else 1)
    return f"{value:.3g}{match[2] or 'em'}" if value else "0"


def _style(element, declarations: str) -> None:
    old = element.get("style", "").rstrip("; ")
    element.set("style", f"{old}; {declarations}" if old else declarations)


def _rewrite_variant(element, calligraphic: bool = True) -> None:
    variant = element.get("mathvariant")
    if variant is None or variant == "normal" or not element.text:
        return
    if (
        calligraphic
        and variant == "script"
        and _tag(element) == "mi"
        and set(element.text) <= CALLIGRAPHIC
    ):
        # \mathcal{V}: KaTeX's calligraphic capitals (book.css), upright.
        element.set("mathvariant", "normal")
        element.set("class", CALLIGRAPHIC_CLASS)
        return
    # \textbf{…} is text: its font's bold (below), not maths letters.
    chars = [styled(char, variant) for char in element.text]
    if all(chars) and _tag(element) != "mtext":
        element.text = "".join(chars)
        del element.attrib["mathvariant"]
        if _tag(element) == "mi" and len(element.text) == 1:
            # One letter of an <mi> is set italic by default (math-auto):
            # a styled letter is left as it is, but say so.
            element.set("mathvariant", "normal")
        return
    # \textbf{…}, a bold "+" and the like: CSS instead.
    del element.attrib["mathvariant"]
    weight = "bold" if "bold" in variant else None
    italic = "italic" in variant
    if weight:
        _style(element, "font-weight: bold")
    if italic:
        _style(element, "font-style: italic")
    if _tag(element) == "mi" and not italic:
        element.set("mathvariant", "normal")


def _list(value: str | None, default: str) -> list[str]:
    return (value or default).split()


def _rewrite_table(table) -> None:
    """``columnalign``, ``columnspacing``, ``rowspacing``, ``width`` -> CSS."""
    aligns = _list(table.get("columnalign"), "center")
    colspacing = _list(table.get("columnspacing"), "0.8em")
    rowspacing = _list(table.get("rowspacing"), "1ex")
    rows = [row for row in table if _tag(row) in ("mtr", "mlabeledtr")]
    for r, row in enumerate(rows):
        cells = [cell for cell in row if _tag(cell) == "mtd"]
        above = _half(rowspacing[min(r - 1, len(rowspacing) - 1)]) if r else "0"
        below = (
            _half(rowspacing[min(r, len(rowspacing) - 1)]) if r < len(rows) - 1 else "0"
        )
        for c, cell in enumerate(cells):
            left = _half(colspacing[min(c - 1, len(colspacing) - 1)]) if c else "0"
            right = (
                _half(colspacing[min(c, len(colspacing) - 1)])
                if c < len(cells) - 1
                else "0"
            )
            align = cell.get("columnalign") or aligns[min(c, len(aligns) - 1)]
            # Chromium lays a cell's content out as a block: only its
            # -webkit- alignments move it (the standard value for others).
            _style(
                cell,
                f"text-align: {align}; text-align: -webkit-{align}; "
                f"padding: {above} {right} {below} {left}",
            )
            if table.get("width"):
                # \tag's table: its cells are KaTeX's display formula.
                _style(cell, "math-style: normal")
            if cell.get("width"):
                _style(cell, f"width: {cell.attrib.pop('width')}")
    # columnalign stays for the browsers that read it (Firefox); spacing is
    # in the padding now.
    for name in ("columnspacing", "rowspacing"):
        table.attrib.pop(name, None)
    if table.get("width"):
        _style(table, f"width: {table.attrib.pop('width')}")


def _is_space(element) -> bool:
    r"""``\,``, ``\quad``, ``\ ``: an mspace, or an mtext of spaces only."""
    tag = _tag(element)
    return tag == "mspace" or (tag == "mtext" and not (element.text or "").strip())


def _rewrite_function(mo) -> None:
    r"""``\log p``: TeX's thin space between an operator's name and what it
    applies to, unless that opens with a delimiter (``\log(x)``)."""
    if mo.text != "\u2061" or mo.get("rspace") is not None:
        return
    following = mo.getnext()
    if following is None or _is_space(following):
        return
    first = following
    while _tag(first) in ("mrow", "msub", "msup", "msubsup") and len(first):
        first = first[0]
    if _tag(first) == "mo" and (first.text or "") in OPENING:
        return
    mo.set("rspace", "0.1667em")


def _rewrite_sign(mo) -> None:
    """A minus after a relation or an opening delimiter is a sign: no space."""
    if (mo.text or "") not in SIGNS or mo.get("lspace") is not None:
        return
    previous = mo.getprevious()
    while previous is not None and _is_space(previous):
        previous = previous.getprevious()  # TeX's glue is no atom
    if previous is None:
        if mo.getprevious() is None:
            return  # first in its row: MathML's prefix form, unspaced already
        mo.set("lspace", "0em")
        mo.set("rspace", "0em")
        return
    if _tag(previous) == "mrow" and len(previous) == 0:
        return  # after aligned's empty "&" group: still a binary operator
    if _tag(previous) != "mo" or (previous.text or "") in CLOSING:
        return
    if (previous.text or "") == "\u2061":
        return
    mo.set("lspace", "0em")
    mo.set("rspace", "0em")


def _rewrite_prime(msup) -> None:
    """X′: the prime beside its base, at the font's height (TeX's prime is a
    superscript; a Unicode maths font draws ′ raised already)."""
    if len(msup) != 2:
        return
    base, script = msup
    primes = []
    if _tag(script) == "mo" and set(script.text or "") <= PRIME and script.text:
        primes, rest = [script], []
    elif _tag(script) == "mrow":
        children = list(script)
        while (
            children
            and _tag(children[0]) == "mo"
            and (children[0].text or "")
            and set(children[0].text) <= PRIME
        ):
            primes.append(children.pop(0))
        rest = children
    else:
        return
    if not primes:
        return
    row = etree.Element(f"{{{MATHML_NS}}}mrow")
    msup.addprevious(row)
    row.tail, msup.tail = msup.tail, None
    row.append(base)
    for prime in primes:
        prime.set("lspace", "0em")
        prime.set("rspace", "0em")
        row.append(prime)
    if rest:  # X'^\top: the rest stays a superscript of X′
        new_script = etree.SubElement(msup, f"{{{MATHML_NS}}}mrow")
        new_script.extend(rest)
        if len(rest) == 1:
            msup.remove(new_script)
            msup.append(rest[0])
        msup.insert(0, row)
        if script in list(msup):
            msup.remove(script)
    else:
        row.getparent().remove(msup)


#: STIX Two Math's SuperscriptShiftUp (its MATH table): how far MathML Core
#: raises a superscript beside a subscript, in the base's em.
SUPERSCRIPT_SHIFT = "0.36em"


def _rewrite_subsup_prime(msubsup) -> None:
    """m'_i: the prime and the subscript stacked after the base, as TeX sets
    them. KaTeX's msubsup(m, i, ′) would draw the prime at script size and a
    superscript's height above the font's raised ′: the prime keeps its
    base's size (``math-depth: add(0)``) and is lowered by the superscript's
    shift (``mpadded``), so that it stands where it does in ``X′``."""
    if len(msubsup) != 3:
        return
    script = msubsup[2]
    if not (_tag(script) == "mo" and script.text and set(script.text) <= PRIME):
        return
    padded = etree.Element(f"{{{MATHML_NS}}}mpadded")
    padded.set("voffset", f"-{SUPERSCRIPT_SHIFT}")
    padded.set("style", "math-depth: add(0)")
    script.addprevious(padded)
    script.set("lspace", "0em")
    script.set("rspace", "0em")
    padded.append(script)


#: The least width of KaTeX's \underbrace and \overbrace (1.6 of its em,
#: katex/src/stretchy.js), in the MathML's em.
BRACE_MIN_WIDTH = 1.6 * KATEX_EM


def _rewrite_brace(element) -> None:
    r"""\underbrace, \overbrace: the brace is an accent of its base (full
    size, close to it), not a script set smaller; under one letter it keeps
    KaTeX's least width (the browser stretches it to the base only), the
    letter padded on both sides to it."""
    if len(element) != 2:
        return
    base, script = element
    if _tag(script) == "mo" and script.get("stretchy") == "true":
        element.set("accentunder" if _tag(element) == "munder" else "accent", "true")
        if script.text in ("\u23df", "\u23de") and _tag(base) == "mi":
            char = _drawn(base)
            cmap, metrics, _ = _stix()
            glyph = cmap.get(ord(char)) if char else None
            if glyph is not None:
                width = metrics["advance"](glyph) / 1000
                pad = (BRACE_MIN_WIDTH - width) / 2
                if pad > 0:
                    _style(base, f"padding-inline: {pad:.3g}em")


#: KaTeX's struts (``\arraystretch`` times the baseline skip, 1.2 em: 70 %
#: above the baseline, 30 % below) give each row of an array its least
#: height; its MathML stands for them with a ``rowspacing`` of
#: 0.16 + (stretch - 1) em, or 0.1 em for ``smallmatrix`` (stretch 0.5), and
#: 0.25 em (the jot) for ``aligned`` and the like, which have them too.
def _strut(rowspacing: str | None) -> tuple[float, str] | None:
    """(stretch, the rows' spacing left) for a table of KaTeX's, or None."""
    match = LENGTH.fullmatch((rowspacing or "").split()[0] if rowspacing else "")
    if match is None or (match[2] or "em") != "em":
        return None
    gap = float(match[1])
    if abs(gap - 0.25) < 1e-6:
        return 1.0, "0.25em"
    if abs(gap - 0.1) < 1e-6:
        return 0.5, "0"
    return gap - 0.16 + 1, "0"


def _add_struts(table) -> None:
    strut = _strut(table.get("rowspacing"))
    if strut is None:
        return
    stretch, gap = strut
    table.set("rowspacing", gap)
    for row in table:
        cells = [cell for cell in row if _tag(cell) == "mtd"]
        if not cells:
            continue
        space = etree.SubElement(cells[0], f"{{{MATHML_NS}}}mspace")
        space.set("height", f"{0.84 * stretch * KATEX_EM:.3g}em")
        space.set("depth", f"{0.36 * stretch * KATEX_EM:.3g}em")
        space.set("width", "0")


#: Elements whose children after the first are scripts.
SCRIPTED = ("msub", "msup", "msubsup", "munder", "mover", "munderover")


@functools.cache
def _stix() -> tuple[dict[int, str], dict, dict]:
    """STIX Two Math's character map, its glyphs' heights (font units) and
    the bottom-right cut-ins of its MATH table: glyph -> (heights, kerns)."""
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    font = TTFont(STIX_SOURCE)
    cmap = font.getBestCmap()
    glyphs = font.getGlyphSet()

    @functools.cache
    def top(glyph: str) -> float:
        pen = BoundsPen(glyphs)
        glyphs[glyph].draw(pen)
        return pen.bounds[3] if pen.bounds else 0.0

    info = font["MATH"].table.MathGlyphInfo.MathKernInfo
    kerns = {}
    for glyph, record in zip(
        info.MathKernCoverage.glyphs, info.MathKernInfoRecords, strict=True
    ):
        kern = record.BottomRightMathKern
        if kern is not None:
            kerns[glyph] = (
                [height.Value for height in kern.CorrectionHeight],
                [value.Value for value in kern.KernValue],
            )

    def advance(glyph: str) -> float:
        return glyphs[glyph].width

    return cmap, {"top": top, "advance": advance}, kerns


#: STIX Two Math's SubscriptShiftDown and ScriptPercentScaleDown (MATH table).
SUBSCRIPT_SHIFT_DOWN = 210
SCRIPT_SCALE = 0.7


def _drawn(mi) -> str | None:
    """The one character an ``<mi>`` is drawn as: a lone letter is set in
    its mathematical italic (MathML's math-auto), a styled one as it is."""
    text = mi.text or ""
    if len(text) != 1 or len(mi):
        return None
    if mi.get("mathvariant") is None:
        return styled(text, "italic") or text
    return text if mi.get("class") is None else None


def _kern_subscript(msub) -> None:
    """W_a, γ_j: the subscript moved in under the letter as far as the font's
    bottom-right cut-in says at the subscript's top (OpenType MATH kerning,
    which TeX engines apply and Chromium does not), by a negative margin
    after the base; an msub only, as a superscript keeps its place."""
    if len(msub) != 2 or _tag(msub[0]) != "mi":
        return
    sub = msub[1]
    if _tag(sub) == "mrow" and len(sub):  # W_{a,q}: its first letter
        sub = sub[0]
    if _tag(sub) not in ("mi", "mn"):
        return
    char = _drawn(msub[0])
    first = (sub.text or "")[:1]
    if char is None or not first or msub[0].get("style"):
        return
    cmap, metrics, kerns = _stix()
    glyph = cmap.get(ord(char))
    script = (_drawn(sub) or first) if _tag(sub) == "mi" else first
    script_glyph = cmap.get(ord(script[0])) if script else None
    if glyph not in kerns or script_glyph is None:
        return
    height = SCRIPT_SCALE * metrics["top"](script_glyph) - SUBSCRIPT_SHIFT_DOWN
    heights, values = kerns[glyph]
    kern = values[sum(1 for h in heights if height >= h)]
    if kern < 0:
        _style(msub[0], f"margin-inline-end: {kern / 1000:.3g}em")


def _unspace_scripts(math) -> None:
    r"""TeX sets no space around a relation or a binary operator in a script
    (``e^{m_i - c_i}``, ``\sum_{j=1}``, ``n_q \times n_k``); MathML Core
    spaces them at every size."""
    for element in math.iter(*(f"{{{MATHML_NS}}}{tag}" for tag in SCRIPTED)):
        for script in list(element)[1:]:
            for mo in script.iter(f"{{{MATHML_NS}}}mo"):
                if mo.get("lspace") is None and mo.get("rspace") is None:
                    if (mo.text or "") in ("\u2061",):
                        continue
                    mo.set("lspace", "0em")
                    mo.set("rspace", "0em")


#: ``\hat``, ``\tilde``: KaTeX writes ASCII ^ and ~, which MathML Core
#: stretches over the base (as ``\widehat``); the accents themselves, unstretched.
ACCENTS = {"^": "\u02c6", "~": "\u02dc"}


def _rewrite_accent(mover) -> None:
    if mover.get("accent") != "true" or len(mover) != 2:
        return
    accent = mover[1]
    if _tag(accent) != "mo" or accent.get("stretchy") is not None:
        return
    if accent.text in ACCENTS or accent.text in ("\u02c9", "\u02d9", "\u00a8"):
        accent.text = ACCENTS.get(accent.text, accent.text)
        accent.set("stretchy", "false")


def _rewrite_big(mo) -> None:
    r"""``\big/``, ``\bigl(``: a delimiter of a fixed size is an ordinary
    symbol or a delimiter for TeX, never spaced as a binary operator."""
    if mo.get("maxsize") is not None and mo.get("lspace") is None:
        mo.set("lspace", "0em")
        mo.set("rspace", "0em")


def _calligraphic(math) -> bool:
    r"""Whether the formula's script letters are ``\mathcal``'s (calligraphic)
    or ``\mathscr``'s (STIX's round-hand script): KaTeX's MathML writes both
    as ``mathvariant="script"``, so its TeX (the annotation) tells."""
    annotation = math.find(f".//{{{MATHML_NS}}}annotation")
    tex = annotation.text if annotation is not None and annotation.text else ""
    script = re.search(r"\\mathscr(?![a-zA-Z])", tex) is not None
    if script and re.search(r"\\mathcal(?![a-zA-Z])", tex):
        raise KatexError(
            "\\mathcal and \\mathscr in one formula: KaTeX's MathML cannot tell "
            "them apart (write them in separate formulas)"
        )
    return not script


#: KaTeX's symbol table: ``defineSymbol(math, main, rel, "\u2264", …)``.
SYMBOL = re.compile(
    r'^defineSymbol\(math, (?:main|ams), (\w+), "((?:[^"\\]|\\.)+)",', re.MULTILINE
)
#: The atom classes KaTeX's symbol table gives, by its names.
ATOM_CLASSES = {
    "bin": "bin",
    "rel": "rel",
    "open": "open",
    "close": "close",
    "punct": "punct",
    "op": "op",
}
#: TeX's bin cancellation (KaTeX's buildHTML): a binary operator after these
#: or before those is an ordinary symbol.
BIN_LEFT_CANCELLER = {None, "bin", "open", "rel", "op", "punct"}
BIN_RIGHT_CANCELLER = {None, "rel", "close", "punct"}
#: Large operators, and the function application after ``\log``, whose
#: class KaTeX's MathML no longer shows.
OPERATORS = set("\u2211\u220f\u2210\u222b\u222c\u222e\u22c3\u22c2\u2061")


@functools.cache
def atom_classes() -> dict[str, set[str]]:
    r"""Character -> its TeX atom classes (bin, rel, open, close, punct, op)
    in maths mode, from KaTeX's own symbol table (src/symbols.ts): ⋅ is
    ``\cdot`` (bin) and ``\cdotp`` (punct), ∣ ``\mid`` (rel) and
    ``\lvert`` (open)."""
    source = (KATEX_DIST.parent / "src" / "symbols.ts").read_text(encoding="utf-8")
    classes: dict[str, set[str]] = {}
    for group, literal in SYMBOL.findall(source):
        if group in ATOM_CLASSES:
            char = json.loads(f'"{literal}"')
            classes.setdefault(char, set()).add(ATOM_CLASSES[group])
    if not {"=", "+", "\u2212", "<"} <= set(classes):
        raise PluginError(f"no relations or binary operators found in {SYMBOL}")
    return classes


def _core(element):
    r"""The ``<mo>`` of an embellished operator (``\sum_i``, ``\xrightarrow``)."""
    while _tag(element) in SCRIPTED and len(element):
        element = element[0]
    return element if _tag(element) == "mo" else None


def _atom(element) -> str:
    """A top-level element's TeX class: "space", "bin", "rel", … or "ord".

    KaTeX's MathML writes an ordinary symbol as ``<mi>``, a delimiter as an
    ``<mo stretchy="false">`` and punctuation as an ``<mo separator="true">``;
    an ``<mo>`` left is a relation or a binary operator where KaTeX's table
    says that its character can be one."""
    if _is_space(element):
        return "space"
    mo = _core(element)
    text = "".join(mo.itertext()) if mo is not None else ""
    if not text:
        return "ord"
    if text in OPERATORS:
        return "op"
    if mo.get("maxsize") is not None:  # \big(: a delimiter of a fixed size
        return "ord"
    classes = atom_classes().get(text, set())
    if mo.get("separator") == "true":
        return "punct"
    if mo.get("stretchy") == "false" or mo.get("fence") == "true":
        return "close" if classes == {"close"} else "open"
    for atom in ("bin", "rel", "op"):
        if atom in classes:
            return atom
    return "ord"


def break_points(row) -> list[int]:
    """Where KaTeX's HTML may break the line in an inline formula's top-level
    row (buildHTML): after each relation and binary operator of the outer
    level (TeX's rule, The TeXbook p. 173) and the spaces that follow it;
    a binary operator that TeX sets as an ordinary symbol (a sign: first,
    or after a relation, an operator, an opening delimiter or punctuation;
    or before a relation, a closing delimiter or punctuation) is none. The
    indices are those of the last element before each break."""
    children = list(row)
    classes = [_atom(child) for child in children]
    previous = None  # the index of the last atom that is no space
    for i, atom in enumerate(classes):
        if atom == "space":
            continue
        before = classes[previous] if previous is not None else None
        if before == "bin" and atom in BIN_RIGHT_CANCELLER:
            classes[previous] = "ord"
        elif atom == "bin" and before in BIN_LEFT_CANCELLER:
            classes[i] = "ord"
        previous = i
    if previous is not None and classes[previous] == "bin":
        classes[previous] = "ord"  # rightmost
    points = []
    for i, atom in enumerate(classes):
        if atom not in ("bin", "rel"):
            continue
        following = [c for c in classes[i + 1 :] if c != "space"][:1]
        if atom == "rel" and following == ["rel"]:
            continue  # := (KaTeX's HTML joins the two into one box)
        end = i
        while end + 1 < len(children) and classes[end + 1] == "space":
            end += 1
        spaces = children[i + 1 : end + 1]
        if any("\u00a0" in (space.text or "") for space in spaces):
            continue  # ~ or \nobreakspace: no break
        if end + 1 < len(children):
            points.append(end)
    return points


def split_inline(root, math) -> None:
    """An inline formula as consecutive ``<math>`` elements, one per piece
    between KaTeX's break points (``break_points``), so that the browser can
    break the line between them as it does between KaTeX's HTML boxes:
    Chromium breaks no line inside a ``<math>``. The first piece keeps the
    TeX annotation; the pieces are hidden from assistive technology, and
    ``span.katex`` stands for the whole formula (role math, labelled with
    its TeX, as KaTeX's annotation holds it: the readable text of the
    search index loses the grouping, ``e^{m_i - c}`` -> ``e^m_i - c``).

    The joins need nothing more: an operator last in its piece is a
    postfix one for MathML Core, which finds no postfix entry for a
    relation or a binary operator in its dictionary and takes the infix
    one, as in the whole row; one first in a piece after a break is a sign
    (spaced by ``_rewrite_sign`` already), a delimiter or a large operator,
    whose prefix entry is the one it had. (An explicit ``form="infix"``
    would be worse: Chromium tries no other form then, and ``∑`` gets the
    default thick spaces.) The browser tests measure the joins.
    """
    semantics = math[0] if len(math) and _tag(math[0]) == "semantics" else None
    if semantics is None or len(semantics) < 2 or _tag(semantics[0]) != "mrow":
        return
    row = semantics[0]
    points = break_points(row)
    if not points:
        return
    children = list(row)
    starts = [0, *(point + 1 for point in points)]
    ends = [*(point + 1 for point in points), len(children)]
    for start, end in zip(starts[1:], ends[1:], strict=True):
        piece = etree.SubElement(root, f"{{{MATHML_NS}}}math", nsmap={None: MATHML_NS})
        piece.set("class", math.get("class"))
        piece.extend(children[start:end])
    for piece in root:
        piece.set("aria-hidden", "true")
    root.set("role", "math")
    root.set("aria-label", semantics[-1].text or "")


@functools.cache
def rewrite_mathml(fragment: str, display: bool) -> str:
    """KaTeX's ``output: "mathml"`` answer made to draw as KaTeX's HTML does
    in a browser that implements MathML Core (see above); a display formula
    gets a ``.katex-display`` box as KaTeX's HTML has."""
    root = etree.fromstring(fragment)
    math = root.find(f"{{{MATHML_NS}}}math")
    math.set("class", "book-math")
    calligraphic = _calligraphic(math)
    for element in math.iter():
        tag = _tag(element)
        if tag in ("mi", "mn", "mo", "mtext", "ms"):
            _rewrite_variant(element, calligraphic)
        if tag == "mtable":
            _add_struts(element)
            _rewrite_table(element)
        if tag in ("munder", "mover"):
            _rewrite_brace(element)
        if tag == "mover":
            _rewrite_accent(element)
        if tag == "mo":
            _rewrite_big(element)
            _rewrite_sign(element)
            _rewrite_function(element)
    _unspace_scripts(math)
    for msub in list(math.iter(f"{{{MATHML_NS}}}msub")):
        _kern_subscript(msub)
    for msup in list(math.iter(f"{{{MATHML_NS}}}msup")):
        _rewrite_prime(msup)
    for msubsup in list(math.iter(f"{{{MATHML_NS}}}msubsup")):
        _rewrite_subsup_prime(msubsup)
    if not display:
        split_inline(root, math)
    text = etree.tostring(root, encoding="unicode")
    # HTML has no empty-element syntax for <mrow/> outside foreign content
    # rules' reach: write every element out.
    text = EMPTY.sub(r"<\1\2></\1>", text)
    if display:
        text = f'<span class="katex-display">{text}</span>'
    return text


#: Characters the browser draws for MathML elements whose text does not hold
#: them (msqrt's radical), and the stretchy delimiters and accents, kept in
#: the cut font whatever the formulas hold.
MATHML_GLYPHS = set("\u221a()[]{}|\u2016\u27e8\u27e9\u23df\u23de\u2190\u2192\u203e")

#: The dotless i and j in mathematical italic, which an accent over i or j
#: may be drawn on.
DOTLESS_ITALIC = {"\U0001d6a4", "\U0001d6a5"}


def math_font_characters(characters: set[str]) -> set[str]:
    """What the cut STIX Two Math keeps for formulas holding ``characters``:
    those, printable ASCII, the glyphs MathML draws of its own, and the
    mathematical italic of each letter, which the browser draws a lone
    letter of an ``<mi>`` in (math-auto: x is drawn as 𝑥, U+1D465)."""
    kept = characters | ASCII | MATHML_GLYPHS | DOTLESS_ITALIC
    return kept | {
        italic for char in kept if (italic := styled(char, "italic")) is not None
    }


EMPTY = re.compile(r"<([\w:-]+)((?:\s[^<>]*?)?)/>")


KATEX = Katex()
#: Each page's typeset formulas, from on_page_content to on_page_context.
_TYPESET: dict[str, list[str]] = {}
#: Each page's KaTeX fonts, from on_page_context to on_post_page.
_FONTS: dict[str, list[str]] = {}
#: Every character of the edition's formulas, and the fonts its pages use.
_CHARACTERS: set[str] = set()
#: The letters the edition sets in ``\mathcal``.
_CALLIGRAPHIC_LETTERS: set[str] = set()
CALLIGRAPHIC_MI = re.compile(r'<mi [^>]*class="book-cal"[^>]*>([^<]*)</mi>')
_FONTS_USED: set[str] = set()
#: Mathematical letters in the text around the formulas (𝐪 in a sample
#: sentence, 𝒮 in a code comment), drawn in STIX Two Math too (book.css,
#: "Book Math Letters"): without it the browser takes them from whatever
#: maths font the system has (DejaVu Math TeX Gyre in the PDFs).
_TEXT_LETTERS: set[str] = set()
#: Unicode's Mathematical Alphanumeric Symbols, or a character reference.
MATH_LETTER = re.compile(r"[\U0001d400-\U0001d7ff]|&#[xX]?[0-9a-fA-F]+;")
MATH_LETTERS = range(0x1D400, 0x1D800)


def math_letters(page: str) -> set[str]:
    """The mathematical alphanumerics (U+1D400 to U+1D7FF) in a page's HTML."""
    found = (html.unescape(match) for match in MATH_LETTER.findall(page))
    return {char for char in found if len(char) == 1 and ord(char) in MATH_LETTERS}


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
    if math_output() == "mathml":
        calligraphic = f'class="{CALLIGRAPHIC_CLASS}"'
        if any(calligraphic in formula for formula in formulas):
            return [MATH_FONT, CALLIGRAPHIC_FONT]
        return [MATH_FONT]
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


def _readable(tex: str) -> str:
    """The formula as plain text for the search index, or "" if it has none
    (``Katex.readable`` keeps it: a book writes the same formula many times)."""
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
    for letters in CALLIGRAPHIC_MI.findall(rendered):
        _CALLIGRAPHIC_LETTERS.update(letters)
    text = html.escape(KATEX.readable(tex), quote=False)
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
            readable = [
                html.escape(KATEX.readable(tex), quote=False) for tex in formulas
            ]
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
    _TEXT_LETTERS.update(math_letters(output))
    fonts = _FONTS.pop(page.file.src_uri, [])
    if not fonts:
        return output
    links = "".join(
        '<link rel="preload" href="'
        + get_relative_url(
            font if font.startswith("assets/") else f"assets/katex/fonts/{font}",
            page.url,
        )
        + '" as="font" type="font/woff2" crossorigin>'
        for font in fonts
    )
    return HEAD_STYLES.sub(lambda match: links + match[0], output, count=1)


def cut_font(path: Path, characters: set[str], source: Path | None = None) -> None:
    """Keep only ``characters`` in the WOFF2 font at ``path``, in place, or
    write to ``path`` those of the font at ``source`` (any format)."""
    from fontTools import subset

    options = subset.Options()
    options.flavor = "woff2"
    options.hinting = False
    # From memory: the font is rewritten in place, and fontTools reads lazily.
    font = subset.load_font(io.BytesIO((source or path).read_bytes()), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(map(ord, characters)))
    subsetter.subset(font)
    subset.save_font(font, str(path), options)
    font.close()


@_timed
def _cut_fonts(config) -> None:
    site = Path(config.site_dir)
    fonts = site / "assets" / "katex" / "fonts"
    if MATH_FONT in _FONTS_USED or _TEXT_LETTERS:
        # STIX Two Math (OFL-1.1), shipped with its licence: for the MathML
        # output's formulas, and for the text's mathematical letters with
        # either output.
        characters = set(_TEXT_LETTERS)
        if MATH_FONT in _FONTS_USED:
            characters |= math_font_characters(_CHARACTERS)
        (site / MATH_FONT).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STIX / "LICENSE", site / MATH_LICENCE)
        cut_font(site / MATH_FONT, characters, source=STIX_SOURCE)
    for name in sorted(_FONTS_USED - {MATH_FONT}):
        if name == CALLIGRAPHIC_FONT:
            # KaTeX's calligraphic capitals (MIT), with KaTeX's licence.
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CALLIGRAPHIC_SOURCE, site / name)
            shutil.copyfile(KATEX_DIST.parent / "LICENSE", site / CALLIGRAPHIC_LICENCE)
            cut_font(site / name, _CALLIGRAPHIC_LETTERS)
        else:
            cut_font(fonts / name, _CHARACTERS | ASCII)


def reset() -> None:
    """Forget the pages' formulas and fonts and stop KaTeX, as a new build needs.

    At the end of every build (``mkdocs serve`` builds again with the same
    module), and after a test that used the hook's events.
    """
    _TYPESET.clear()
    _FONTS.clear()
    _CHARACTERS.clear()
    _CALLIGRAPHIC_LETTERS.clear()
    _FONTS_USED.clear()
    _TEXT_LETTERS.clear()
    KATEX.close()


def on_post_build(config) -> None:
    if _FONTS_USED or _TEXT_LETTERS:
        _cut_fonts(config)
    reset()


def on_build_error(error) -> None:
    reset()
