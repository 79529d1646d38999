"""The book's figures drawn at build time: plots and diagrams (never a stale image).

- **Two kinds, one machinery.** A plot (``docs_src/plots/<name>.py``) draws
  the package's numbers with ``attention_docs.plotting``, and the page shows
  the script after it; a diagram (``docs_src/diagrams/<name>.py``) draws
  shapes, boxes and arrows with ``attention_book.diagrams``, its sizes and
  numbers taken from the package and the running example, and the page does
  not show its code. Both define ``figure(labels)`` and return a matplotlib
  Figure. Each folder's ``labels.yml`` holds the words of its figures in every
  language: ``{name: {language: {alt: ..., caption: ..., <label>: ...}}}``;
  the hook adds ``"edition"``, the build's language, so that a diagram can
  draw the edition's own language model (``load_pretrained``).
- ``on_files``: for the build's language (``theme.language``) every script is
  drawn twice, inside ``theme("light")`` and ``theme("dark")``, and added to
  the site as ``assets/<kind>/<name>.svg`` and ``assets/<kind>/<name>-dark.svg``.
  The SVGs keep their text as text, so the browser draws the labels with the
  page's fonts (``_{...}`` and ``^{...}`` in a label become sub- and
  superscripts, ``attention_book.diagrams.markup``). A warning while drawing
  fails the build, as ``--strict`` does.
- ``on_page_markdown``: a page shows a figure with Material's light/dark
  switch, two lines ``![](assets/<kind>/<name>.svg#only-light)`` and
  ``![](assets/<kind>/<name>-dark.svg#only-dark)`` with an empty alt text.
  The hook fills the alt text in from ``labels.yml`` and makes the pair a
  numbered figure, ``<figure id="fig-<name>">`` with a ``<figcaption>``:
  "図 6.2" for the second figure of chapter 6 (``stages/numbering.py``
  gives the chapter; an unnumbered page's figures are 図 1, 図 2 …), then
  the caption of ``labels.yml``. The paper's Figure 2, drawn by hand
  (``docs_src/figures/``) in a ``<figure class="fig2">``, is numbered in the
  same sequence (the text calls the paper's own figure 論文の図 2). A link
  with no text to a figure of the page, ``[](#fig-<name>)``, gets its number
  as its text, so the prose refers to a figure by the number it has (a link
  to another page's figure: ``stages/numbering.py``).
- The Simplified Chinese book (zh-Hans) uses the Traditional labels converted
  by ``attention_book.zh_hans``, like the rest of its pages.
- **Drawn once per input.** A drawn SVG is kept in ``.cache/figures/``, named
  by a hash of everything that can change it: the script, its words, the
  theme, the language, every file of ``src/attention_docs`` and
  ``tools/attention_book`` (the numbers and the drawing helpers) and the
  trained models of ``src/attention_docs/data``, this hook,
  and matplotlib's version and fonts. A build whose figure inputs are
  unchanged takes the SVG from there (the site's editions, the PDFs' print
  builds and every rebuild of ``make serve`` draw each figure once); any
  change to an input draws it again, so no figure is ever stale.
  ``BOOK_FIGURE_CACHE=0`` draws everything.
"""

from __future__ import annotations

import functools
import hashlib
import html
import importlib
import importlib.util
import json
import os
import re
import sys
import traceback
import warnings
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from attention_book import ROOT, load_yaml, numbering
from attention_book.editions import DERIVED
from attention_book.zh_hans import edition_words, to_simplified_text

#: kind of figure -> the folder of its scripts and labels.yml
KINDS = {
    "plots": ROOT / "docs_src" / "plots",
    "diagrams": ROOT / "docs_src" / "diagrams",
}
PLOTS = KINDS["plots"]
LABELS = PLOTS / "labels.yml"
THEMES = {"light": "", "dark": "-dark"}  # theme -> suffix of the file name
#: "Figure" in each hand-written edition's language, before the figure's
#: number; the Simplified edition converts zh-Hant's (``figure_word``).
FIGURE_WORD = {"ja": "図", "zh-Hant": "圖"}
IMAGE = re.compile(
    r"!\[(?P<alt>[^\]]*)\]\((?P<src>(?:\.\./)*assets/(?P<kind>plots|diagrams)/"
    r"(?P<file>[^)#\s]+))(?P<fragment>#[^)\s]*)?\)"
)
#: A figure of the page (the numbering reads the same figures).
FIGURE = numbering.FIGURE
FIG2_CAPTION = re.compile(r"(<figcaption\b[^>]*>)")
REFERENCE = re.compile(r"\[\]\(#fig-(?P<name>[\w-]+)\)")
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]])")
CODE = re.compile(r"`([^`]+)`")
#: A caption's code span (`block_size`) or inline formula (\\(Q = XW_Q\\)).
CAPTION_PIECE = re.compile(r"`(?P<code>[^`]+)`|\\\((?P<tex>.+?)\\\)")
#: Drawn figures, by the hash of their inputs (``figure_key``).
CACHE = ROOT / ".cache" / "figures"


#: The package's source files and their modification times when
#: ``_plotting`` last imported it.
_IMPORTED_FROM: tuple | None = None


def _sources_state() -> tuple:
    files = sorted((ROOT / "src" / "attention_docs").rglob("*.py"))
    files.append(ROOT / "tools" / "attention_book" / "diagrams.py")
    return tuple((str(path), path.stat().st_mtime_ns) for path in files)


def _plotting():
    """Import ``attention_docs.plotting``, afresh if ``src/`` has changed.

    ``mkdocs serve`` rebuilds in one process: a module edited since the last
    build is imported again, so no figure is stale. Nothing is re-imported
    while the sources stay as they were: a process that already holds the
    package (the tests, which patch its modules) keeps the same objects.
    """
    global _IMPORTED_FROM
    state = _sources_state()
    if _IMPORTED_FROM is not None and state != _IMPORTED_FROM:
        for name in [
            n
            for n in sys.modules
            if n.partition(".")[0] == "attention_docs" or n == "attention_book.diagrams"
        ]:
            del sys.modules[name]  # re-read src/, so no figure is stale
    _IMPORTED_FROM = state
    try:
        plotting = importlib.import_module("attention_docs.plotting")
        importlib.import_module("attention_book.diagrams")
        return plotting
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in ("matplotlib", "attention_docs"):
            raise
        raise PluginError(
            f"the book's plots need {error.name}: run `make site`, or "
            "`pip install -e '.[plot]'` in the book's virtual environment"
        ) from error


def load_labels(kind: str = "plots") -> dict:
    """The kind's ``labels.yml``, checked against the scripts of its folder.

    Read once while the file and the folder's scripts stay as they are (every
    page asks for it: parsing it each time took 3.6 s of an edition's build);
    the dict is shared, so never change it.
    """
    folder = KINDS[kind]
    scripts = frozenset(script.stem for script in folder.glob("*.py"))
    return _labels(kind, (folder / "labels.yml").stat().st_mtime_ns, scripts)


@functools.cache
def _labels(kind: str, mtime_ns: int, scripts: frozenset[str]) -> dict:
    folder = KINDS[kind]
    path = folder / "labels.yml"
    labels = load_yaml(path.read_text(encoding="utf-8"))
    if not isinstance(labels, dict) or set(labels) != scripts:
        found = sorted(labels) if isinstance(labels, dict) else labels
        raise PluginError(
            f"{path.relative_to(ROOT)} must have one entry per script of "
            f"{folder.relative_to(ROOT)}/: scripts {sorted(scripts)}, entries {found}"
        )
    return labels


def _convert(value, convert):
    if isinstance(value, str):
        return convert(value)
    if isinstance(value, list):
        return [_convert(item, convert) for item in value]
    return value


def labels_for(labels: dict, name: str, language: str) -> dict:
    if language in DERIVED:
        entry = labels_for(labels, name, DERIVED[language])
        return {
            key: _convert(value, to_simplified_text) for key, value in entry.items()
        }
    entry = labels[name].get(language) if isinstance(labels[name], dict) else None
    if not isinstance(entry, dict) or not entry.get("alt") or not entry.get("caption"):
        raise PluginError(
            f"labels.yml: {name} needs a `{language}` entry with an `alt` text "
            "and a `caption`"
        )
    return entry


@functools.cache
def _figure_module(path: Path, mtime_ns: int):
    """The figure's script, run once while it stays unchanged: both colour
    schemes, and every edition, draw with the same module, so a script can
    keep what it computed for one scheme (``functools.cache``) for the other."""
    spec = importlib.util.spec_from_file_location(
        f"_book_{path.parent.name}_{path.stem}", path
    )
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec.loader.exec_module(module)
    return module


def draw(plotting, kind: str, name: str, labels: dict, theme: str, language: str):
    """Run ``docs_src/<kind>/<name>.py`` and return its figure as SVG."""
    from attention_book.diagrams import markup

    path = KINDS[kind] / f"{name}.py"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            module = _figure_module(path, path.stat().st_mtime_ns)
            with plotting.theme(theme):
                # the edition too, for a figure of the edition's own language
                # model (attention_docs.load_pretrained(labels["edition"]))
                fig = module.figure({**labels, "edition": language})
                return markup(plotting.to_svg(fig, language=language))
    except Exception as error:
        raise PluginError(
            f"{path.relative_to(ROOT)} failed to draw its {theme} figure for "
            f"{language}:\n{traceback.format_exc()}"
        ) from error


def inputs_digest(root: Path = ROOT) -> str:
    """A hash of what every figure depends on besides its script and words:
    the package and the book's helpers, this hook, matplotlib and its fonts."""
    import matplotlib
    from matplotlib import font_manager

    digest = hashlib.sha256()
    sources = []  # this stage among them: tools/attention_book/stages/plots.py
    for folder in ("src/attention_docs", "tools/attention_book"):
        sources += sorted((root / folder).rglob("*.py"))
    # the language models and their logs, which some figures draw
    sources += sorted((root / "src" / "attention_docs" / "data").glob("*"))
    for path in sources:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    fonts = sorted(font.fname for font in font_manager.fontManager.ttflist)
    digest.update(json.dumps([matplotlib.__version__, fonts]).encode())
    return digest.hexdigest()


def figure_key(
    digest: str, kind: str, name: str, entry: dict, theme: str, language: str
) -> str:
    """The name of a drawn figure in the cache: a hash of all its inputs."""
    script = (KINDS[kind] / f"{name}.py").read_bytes()
    words = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    parts = [digest, kind, name, theme, language, words]
    return hashlib.sha256(script + "\0".join(parts).encode()).hexdigest()


class Drawer:
    """Draws figures, or takes them from the cache when their inputs match."""

    def __init__(self) -> None:
        self.use_cache = os.environ.get("BOOK_FIGURE_CACHE", "1") != "0"
        self.digest = inputs_digest() if self.use_cache else ""
        self._plotting = None

    def svg(self, kind: str, name: str, entry: dict, theme: str, language: str) -> str:
        if not self.use_cache:
            return self._draw(kind, name, entry, theme, language)
        path = (
            CACHE / f"{figure_key(self.digest, kind, name, entry, theme, language)}.svg"
        )
        if path.is_file():
            return path.read_text(encoding="utf-8")
        svg = self._draw(kind, name, entry, theme, language)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Builds run side by side: write whole, then rename into place.
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(svg, encoding="utf-8")
        partial.replace(path)
        return svg

    def _draw(self, kind, name, entry, theme, language) -> str:
        if self._plotting is None:
            self._plotting = _plotting()
        return draw(self._plotting, kind, name, entry, theme, language)


def on_files(files: Files, config) -> Files:
    language = config.theme["language"]
    drawer = Drawer()
    for kind in KINDS:
        labels = load_labels(kind)
        for name in sorted(labels):
            entry = labels_for(labels, name, language)
            for theme, suffix in THEMES.items():
                svg = drawer.svg(kind, name, entry, theme, language)
                uri = f"assets/{kind}/{name}{suffix}.svg"
                files.append(File.generated(config, uri, content=svg))
    return files


def _check_image(match: re.Match, labels: dict, page: str) -> None:
    kind, file, fragment = match["kind"], match["file"], match["fragment"] or ""
    name, dark, extension = re.fullmatch(r"(.+?)(-dark)?(\.svg)?", file).groups()
    expected = "#only-dark" if dark else "#only-light"
    if extension is None or name not in labels[kind] or fragment != expected:
        raise PluginError(
            f"{page}: {match[0]} must be assets/{kind}/<name>.svg#only-light or "
            f"assets/{kind}/<name>-dark.svg#only-dark, <name> one of "
            f"{sorted(labels[kind])}"
        )
    if match["alt"]:
        raise PluginError(
            f"{page}: {match[0]} must leave its alt text empty: it comes from "
            f"docs_src/{kind}/labels.yml"
        )


def caption_pieces(caption: str) -> list[tuple[str, str]]:
    """A caption of labels.yml as ("text" | "code" | "tex", its text) pieces."""
    pieces, position = [], 0
    caption = caption.strip()
    for match in CAPTION_PIECE.finditer(caption):
        pieces.append(("text", caption[position : match.start()]))
        kind = "code" if match["code"] is not None else "tex"
        pieces.append((kind, match[kind]))
        position = match.end()
    pieces.append(("text", caption[position:]))
    return [(kind, text) for kind, text in pieces if text]


def caption_html(caption: str) -> str:
    """A caption of labels.yml as HTML: its `code` spans as code and its
    formulas ``\\(…\\)`` as the text's are, for ``stages/katex.py`` to
    typeset (the arithmatex span that pymdownx.arithmatex makes of a
    formula in the text: the caption is raw HTML, which Markdown leaves)."""
    html_pieces = []
    for kind, text in caption_pieces(caption):
        escaped = html.escape(text, quote=False)
        if kind == "code":
            html_pieces.append(f"<code>{escaped}</code>")
        elif kind == "tex":
            html_pieces.append(f'<span class="arithmatex">\\({escaped}\\)</span>')
        else:
            html_pieces.append(escaped)
    return "".join(html_pieces)


def caption_text(caption: str) -> str:
    """A caption's text as the page shows it outside its formulas
    (``caption_html`` without tags, each formula left out)."""
    return "".join(text for kind, text in caption_pieces(caption) if kind != "tex")


def figure_html(match: re.Match, entry: dict, number: str) -> str:
    kind, name, prefix = match["kind"], match["name"], match["prefix"]
    alt = MARKDOWN_SPECIAL.sub(r"\\\1", entry["alt"].strip())
    return (
        f'<figure class="book-figure" id="fig-{name.replace("_", "-")}" '
        'markdown="span">\n'
        f"![{alt}]({prefix}assets/{kind}/{name}.svg#only-light)\n"
        f"![{alt}]({prefix}assets/{kind}/{name}-dark.svg#only-dark)\n"
        f'<figcaption><span class="book-figure-number">{number}</span> '
        f"{caption_html(entry['caption'])}</figcaption>\n"
        "</figure>"
    )


def figure_word(language: str) -> str:
    """ "Figure" in ``language`` (zh-Hans: zh-Hant's, converted)."""
    return edition_words(FIGURE_WORD, language)


def number_figures(
    markdown: str, labels: dict, language: str, page: str, chapter: str | None = None
):
    """The page with its figures numbered and captioned, and their links' text:
    図 6.1, 図 6.2 … in chapter 6 (``chapter``), 図 1, 図 2 … on a page
    without a number."""
    for match in IMAGE.finditer(markdown):
        _check_image(match, labels, page)
    word = figure_word(language)
    numbers: dict[str, str] = {}
    pieces, position = [], 0
    for count, match in enumerate(FIGURE.finditer(markdown), 1):
        number = f"{word} {chapter}.{count}" if chapter else f"{word} {count}"
        pieces.append(markdown[position : match.start()])
        if match["name"] is None:  # the paper's Figure 2: number its caption
            caption = FIG2_CAPTION.search(markdown, match.end())
            if (
                caption is None
                or "</figure>" in markdown[match.end() : caption.start()]
            ):
                raise PluginError(f"{page}: a <figure> needs a <figcaption>")
            pieces.append(markdown[match.start() : caption.end()])
            pieces.append(f'<span class="book-figure-number">{number}</span> ')
            position = caption.end()
            continue
        entry = labels_for(labels[match["kind"]], match["name"], language)
        pieces.append(figure_html(match, entry, number))
        numbers[match["name"].replace("_", "-")] = number
        position = match.end()
    pieces.append(markdown[position:])
    markdown = "".join(pieces)
    alone = [m[0] for m in IMAGE.finditer(markdown) if not m["alt"]]
    if alone:
        raise PluginError(
            f"{page}: {alone[0]} must be shown as a pair of lines, the light "
            "image and then the dark one"
        )

    def reference(match: re.Match) -> str:
        if match["name"] not in numbers:
            raise PluginError(
                f"{page}: {match[0]} links to no figure of the page: {sorted(numbers)}"
            )
        return f"[{numbers[match['name']]}](#fig-{match['name']})"

    return REFERENCE.sub(reference, markdown)


def on_page_markdown(markdown, page, config, files):
    labels = {kind: load_labels(kind) for kind in KINDS}
    language = config.theme["language"]
    chapter = numbering.chapter_of(page, config)
    return number_figures(markdown, labels, language, page.file.src_path, chapter)
