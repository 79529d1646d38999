"""The print view of an edition, from which ``make pdf`` makes its PDF.

This stage is never part of the online book: ``scripts/build_pdf.py`` turns
it on (the book plugin's ``print_view``), with ``mkdocs-print-site-plugin``,
in a build of its own for the PDF (in a temporary folder), so the print page
and its stylesheet never reach the site.

- **The pages as they are shown.** The plugin combines each page's
  ``page.html``, which it keeps when its ``on_page_content`` event sees the
  page: before ``stages/katex.py`` has put the typeset formulas back (in
  ``on_page_context``, once Material's search has indexed the page). This
  stage, the plugin's last in that event, sets ``page.html`` to the page's
  final content in ``on_page_context``.
- **Formulas set aside while the plugin works.** The plugin rewrites ids and
  links with regular expressions that scan each line to its end from every
  ``<``; a paragraph of typeset maths is one line of thousands of tags, and
  the plugin then takes a quarter of an hour per edition. So each typeset
  formula is replaced by a short token in what the plugin gets, and put
  back into the print page once the plugin has written it (``on_post_build``,
  which the book plugin runs after every plugin's). The formulas hold no link or id the
  plugin would have to rewrite. They go back without their MathML, which
  paper does not show and the browser would lay out all the same (a quarter
  of the time it takes to print).
- **A page to print, not to run.** The PDF is printed with JavaScript off
  (``scripts/build_pdf.py``): the book's pages need none, and Material's
  scripts would spend seconds on a page of the whole book. So the table of
  contents, which the plugin's script copies from the sidebar, is written
  here from the plugin's own, and the page's title is the book's. The same
  parts and chapters go to ``outline.json`` beside the print page, from
  which ``scripts/build_pdf.py`` makes the PDF's bookmarks.
- **No anchors on code lines.** Each line of a code block carries a link
  to itself (pymdownx.highlight's ``anchor_linenums``), for sharing a line on
  the web. On paper they are of no use, the plugin leaves their ids alone
  while it renames their links, and Chromium spends most of its printing
  time looking for the five thousand targets that no longer exist: they are
  left out.
- **Figures and equations keep their links.** The plugin gives each page's
  headings ids of the print page's own (``page-anchor``) and rewrites every
  link to them, but leaves other elements' ids alone, so a link that cites
  図 6.1 or 式 (6.1) would lead nowhere and Chromium would drop it: the ids
  of the numbered figures and equations are given the same prefix here.
- **No permalinks.** A heading's permalink (the ``¶`` shown on hover) has
  no use on paper either.
- **Links that lead out of the book** are kept, but a link to a file of the
  site (the PDF itself, from the home and about pages) would lead nowhere
  from a PDF: its text stays, without the link.
- **Nothing folded away.** Every ``<details>`` (an exercise's solution, the
  code that drew a plot) is opened, since paper cannot be clicked.
- **The print stylesheet** (``scripts/pdf/print.css``: A4, page numbers,
  page breaks, nothing hidden in a scrolling box) joins the build's files
  and the pages' stylesheets.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs_print_site_plugin.urls import get_page_key

from attention_book import ROOT

PRINT_CSS = ROOT / "scripts" / "pdf" / "print.css"
PRINT_CSS_URI = "assets/stylesheets/print.css"
PLUGIN = "print-site"

#: A <details> element's opening tag that is not open yet.
CLOSED_DETAILS = re.compile(r"<details(?![^>]*\bopen\b)")
#: The link a code line has to itself (pymdownx.highlight, anchor_linenums).
LINE_ANCHOR = re.compile(r'<a id="__codelineno-[\w-]+" name="[^"]*" href="[^"]*"></a>')
#: The id of a numbered figure or equation (attention_book.numbering).
NUMBERED_ID = re.compile(r'(<(?:figure|div)\b[^>]*?\bid=")((?:fig|eq)-[\w-]+")')
#: A heading's permalink (the toc extension's ``permalink: true``).
PERMALINK = re.compile(r'<a class="headerlink" [^>]*>[^<]*</a>')
#: A typeset formula's wrapper (stages/katex.py keeps pymdownx.arithmatex's).
FORMULA = re.compile(r'<(?P<tag>span|div) class="arithmatex">')
SPAN_TAG = re.compile(r"<(/?)span\b")
#: KaTeX's MathML copy of a formula (it holds no <span>).
MATHML = re.compile(r'<span class="katex-mathml">.*?</span>', re.DOTALL)
TOKEN = '<print-formula data-n="{}"></print-formula>'
TOKENS = re.compile(r'<print-formula data-n="(\d+)"></print-formula>')
#: The plugin's table of contents: its title, before which its list goes.
TOC_TITLE = re.compile(r"<h1 class='print-page-toc-title'>.*?</h1>", re.DOTALL)
TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)
#: A link's address that is neither a place in the print page nor a URL.
LOCAL_HREF = re.compile(r'(<a\b[^>]*?) href="(?!#|[a-z][a-z0-9+.-]*:)[^"]*"')

#: The typeset formulas of the edition, by token number.
_FORMULAS: list[str] = []


def _formula_end(page_html: str, match: re.Match) -> int:
    """Where the formula whose wrapper opens at ``match`` ends."""
    if match["tag"] == "div":  # KaTeX's HTML holds no <div>
        return page_html.index("</div>", match.end()) + len("</div>")
    depth = 1
    for tag in SPAN_TAG.finditer(page_html, match.end()):
        depth += -1 if tag[1] else 1
        if depth == 0:
            return page_html.index(">", tag.end()) + 1
    start = match.start()
    raise PluginError(f"an unclosed formula: {page_html[start : start + 80]!r}")


def set_formulas_aside(page_html: str) -> str:
    """``page_html`` with each typeset formula replaced by a token (see above)."""
    pieces, position = [], 0
    for match in FORMULA.finditer(page_html):
        if match.start() < position:  # inside a formula already set aside
            continue
        end = _formula_end(page_html, match)
        pieces += [page_html[position : match.start()], TOKEN.format(len(_FORMULAS))]
        _FORMULAS.append(MATHML.sub("", page_html[match.start() : end]))
        position = end
    pieces.append(page_html[position:])
    return "".join(pieces)


def toc_list(links) -> str:
    """The table of contents as nested lists: parts, and their chapters."""
    items = "".join(
        f'<li><a href="{html.escape(link.url)}">{html.escape(link.title)}</a>'
        + (toc_list(link.children) if link.children else "")
        + "</li>"
        for link in links
    )
    return f"<ul>{items}</ul>"


def outline(links) -> list[dict]:
    """The table of contents as data: title, id and children of each entry."""
    return [
        {
            "title": link.title,
            "id": link.id,
            "children": outline(link.children),
        }
        for link in links
    ]


def on_config(config):
    _FORMULAS.clear()
    if PLUGIN not in config.plugins:
        raise PluginError(f"stages/print_page.py needs the {PLUGIN} plugin")
    config.extra_css.append(PRINT_CSS_URI)
    return config


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, PRINT_CSS_URI, abs_src_path=str(PRINT_CSS)))
    return files


def on_page_context(context, page, config, nav):
    page_html = CLOSED_DETAILS.sub("<details open", page.content or "")
    page_html = LINE_ANCHOR.sub("", page_html)
    page_html = PERMALINK.sub("", page_html)
    key = get_page_key(page.url)  # the plugin's prefix for the page's ids
    page_html = NUMBERED_ID.sub(lambda m: f"{m[1]}{key}-{m[2]}", page_html)
    page.html = set_formulas_aside(page_html)
    return context


def on_post_build(config) -> None:
    print_page = config.plugins[PLUGIN].print_page
    path = Path(print_page.file.abs_dest_path)
    page_html = path.read_text(encoding="utf-8")
    page_html = TOKENS.sub(lambda match: _FORMULAS[int(match[1])], page_html)
    _FORMULAS.clear()
    toc = toc_list(print_page.toc.items)
    page_html, found = TOC_TITLE.subn(lambda match: match[0] + toc, page_html)
    if found != 1:
        raise PluginError(f"{path}: no place for the table of contents")
    title = f"<title>{html.escape(config.site_name)}</title>"
    page_html = TITLE.sub(lambda match: title, page_html, count=1)
    page_html = LOCAL_HREF.sub(r"\1", page_html)
    path.write_text(page_html, encoding="utf-8")
    path.with_name("outline.json").write_text(
        json.dumps(outline(print_page.toc.items), ensure_ascii=False, indent=1),
        encoding="utf-8",
    )
