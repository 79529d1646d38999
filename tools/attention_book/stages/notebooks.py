"""Every chapter page as a Jupyter notebook, in its edition's language.

A reader who wants to run a chapter's code in their own Jupyter or Colab
downloads the chapter's notebook from the top of its page. The notebook is
made from the page while the book is built, so it never drifts from it:

- **Prose** becomes Markdown cells, one per section. Maths keeps its LaTeX
  (``\\(…\\)`` and ``\\[…\\]`` become ``$…$`` and ``$$…$$``, which Jupyter,
  JupyterLab and Colab all typeset; a dollar sign of the text is escaped).
  Links to the book's pages and sections become absolute links to the online
  book (``site_url``), since the notebook does not sit next to the pages.
  Admonitions become block quotes, hints ``<details>``, the book's numbered
  figures images with their captions (the paper's Figure 2 and the diagrams
  in their light colours, as data URIs; a plot is drawn by its script's cell),
  a caption's formulas as ``$…$`` too.
- **Examples** (the ``docs_src/`` files a ``pycon`` block includes, the same
  files the page shows) become code cells: a cell ends at each statement
  that prints, and the printed output the page shows is stored as the cell's
  output, so the notebook reads like the page before it runs. An example that
  shows an exception gets Jupyter's ``raises-exception`` tag, so running the
  whole notebook goes on past it.
- **Plots**: the script that draws a plot (``docs_src/plots/<name>.py``)
  becomes a code cell that ends by drawing the figure with the labels its
  script draws when it runs alone, which are symbols (``"j"``,
  ``"head_1"``): the words of the page's figure are the edition's, but a
  code cell is the same in every edition, so it carries no words.
- **The package's source** that a page shows to be read (``src/…``) stays a
  code block of a Markdown cell: running it would only redefine the package.
  So does a chapter's version of it (``LISTINGS``: the package's functions
  without the options of later chapters, tested to compute the same).
- **Interactive figures** (``<div class="explorable" …>``) need the book's
  page and its script: the notebook shows the figure as the page draws it
  before any script runs (its default state: tables and numbers, each control
  as the value it holds), with a sentence that names it and links to it on
  the online page, where the reader can move it.
- **Exercises** stay where they are, and their solutions (``??? success``)
  move to a last section of their own, so the reader can try first.
- The first code cell imports the book's package, and installs it from the
  repository when the repository's address is known (``REPO_URL`` or, on
  GitHub Actions, the repository being built; see stages/book.py).

The notebook is made with nbformat's v4 builders (``nbformat.v4.new_*``)
and validated against nbformat's schema before it is written: an invalid
notebook fails the build, naming its page. Its cells' ids come from the cells
themselves, not from nbformat's random ones, and its keys are sorted, so a
build writes the same bytes as the build before.

The code cells are the same in every edition (tests/site/test_notebooks.py
checks that, and executes one edition's notebooks, comparing each printed
output with the page's). The notebook is written next to the page's
``index.html`` as ``<page>.ipynb``; the page links it (overrides/main.html),
and, when the repository is on GitHub, offers to open it in Colab.
"""

from __future__ import annotations

import ast
import base64
import doctest
import functools
import hashlib
import html
import json
import posixpath
import re
import textwrap
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
from mkdocs.exceptions import PluginError
from nbformat import NotebookNode, from_dict
from nbformat.v4 import nbformat as NBFORMAT
from nbformat.v4 import nbformat_minor as NBFORMAT_MINOR

from attention_book import ROOT, load_yaml, snippets
from attention_book.editions import DERIVED
from attention_book.zh_hans import edition_words, to_simplified_text

BOOK_CSS = ROOT / "overrides" / "assets" / "stylesheets" / "book.css"

#: A chapter's version of the package's source, shown to be read like
#: ``src/…``: the package's functions without the options of later chapters
#: (tests/docs/test_listings.py checks that they compute the same).
LISTINGS = frozenset(
    {"docs_src/language_model/assemble.py", "docs_src/language_model/training_loop.py"}
)
#: Pages of the nav that are not chapters (tests/docs/test_exercises.py).
NOT_CHAPTERS = {"index.md", "notation.md", "glossary.md", "references.md", "about.md"}

#: The words a notebook adds to its chapter, in each hand-written edition's
#: language; the Simplified edition converts zh-Hant's (``words``).
WORDS = {
    "ja": {
        "intro": (
            "このノートブックは『{book}』の章「[{title}]({url})」を、"
            "上から順に実行できる形にしたものです。本文とコード例はページと同じで、"
            "練習問題の解答は最後にまとめてあります。"
            "実行する前から、コードのセルの下にはページと同じ出力が表示されています。"
        ),
        "install": "最初のセルで、本書のパッケージ `attention_docs` を読み込みます。",
        "install_repo": (
            "最初のセルで、本書のパッケージ `attention_docs` を読み込みます。"
            "まだインストールされていなければ、先にインストールします。"
        ),
        "install_local": (
            "最初のセルで、本書のパッケージ `attention_docs` を読み込みます。"
            "読み込めないときは、本書のソースコードのフォルダで"
            ' `pip install ".[plot]"` を実行してください'
            "（[この本について]({about})）。"
        ),
        "download": "ノートブックをダウンロード",
        "colab": "Colab で開く",
        "solutions": "練習問題の解答",
        "solutions_intro": (
            "上の練習問題の解答です。まず自分で解いてから読んでください。"
        ),
        "explorable": "動かせる図「{title}」は、[本のページ]({url})にあります。",
    },
    "zh-Hant": {
        "intro": (
            "這份筆記本把《{book}》的「[{title}]({url})」一章，"
            "整理成可以由上而下依序執行的形式。正文與範例程式碼都和書中的頁面相同，"
            "練習題的解答則集中放在最後。還沒執行之前，"
            "每個程式碼儲存格下方就已經列出與頁面相同的輸出。"
        ),
        "install": "第一個儲存格會載入本書的套件 `attention_docs`。",
        "install_repo": (
            "第一個儲存格會載入本書的套件 `attention_docs`；"
            "如果還沒有安裝，會先安裝它。"
        ),
        "install_local": (
            "第一個儲存格會載入本書的套件 `attention_docs`。"
            '如果無法載入，請在本書原始碼的資料夾中執行 `pip install ".[plot]"`'
            "（[關於本書]({about})）。"
        ),
        "download": "下載筆記本",
        "colab": "在 Colab 中開啟",
        "solutions": "練習題解答",
        "solutions_intro": "以下是上面練習題的解答。請先自己試著做，再來看解答。",
        "explorable": "可以動手操作的圖「{title}」在[本書的網頁]({url})上。",
    },
}


@functools.cache
def words(language: str) -> dict[str, str]:
    """The notebook's words in ``language`` (zh-Hans: zh-Hant's, converted)."""
    return edition_words(WORDS, language)


FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
ADMONITION = re.compile(
    r"^(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)"
    r'(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$'
)
HEADING = re.compile(
    r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]*\{[^}]*\})?[ \t]*$"
)
#: A paragraph's attribute list on its own line (``{ #reading-differences }``
#: under a box's first paragraph): the anchor is the online page's, Jupyter
#: would show the braces.
ATTR_LINE = re.compile(r"^[ \t]*\{:?[ \t]*[#.][^}\n]*\}[ \t]*$")
#: The light image of a numbered figure (stages/plots.py writes the figure).
FIGURE_IMAGE = re.compile(
    r"!\[(?P<alt>(?:\\.|[^\]\\])*)\]\((?:\.\./)*"
    r"(?P<path>assets/(?P<kind>plots|diagrams)/[\w-]+\.svg)#only-light\)"
)
FIGURE_NUMBER = re.compile(r'<span class="book-figure-number">([^<]*)</span>')
#: An interactive figure's placeholder (stages/explorables.py draws it on the page).
EXPLORABLE = re.compile(
    r'^<div class="explorable" data-explorable="(?P<name>[a-z_]+)"></div>$'
)
EXPLORABLES = ROOT / "docs_src" / "explorables"
PLOT_IMAGE = re.compile(r"^!\[[^\]]*\]\((?:\.\./)*assets/plots/[^)]*\)[ \t]*$")
LINK = re.compile(r"(?<!!)\[(?P<text>(?:[^\[\]]|\[[^\]]*\])*)\]\((?P<url>[^)\s]+)\)")
HTML_HREF = re.compile(r'(\bhref=")([^"]*)(")')
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
INLINE_MATH = re.compile(r"\\\((.+?)\\\)", re.DOTALL)
DISPLAY_MATH = re.compile(r"\\\[(.+?)\\\]", re.DOTALL)
#: A figure caption's formula as stages/plots.py writes it (``caption_html``).
CAPTION_MATH = re.compile(r'<span class="arithmatex">\\\((.+?)\\\)</span>', re.DOTALL)
MAIN_BLOCK = re.compile(r'^if __name__ == "__main__":\n', re.MULTILINE)
SHOW_SVG = re.compile(r"^print\(to_svg\((?P<call>figure\(\w+\))\)\)$", re.MULTILINE)


def is_chapter(page, config) -> bool:
    """Whether ``page`` is a chapter: a Markdown page of the nav, not a reference."""
    uri = page.file.src_uri
    return uri.endswith(".md") and uri not in NOT_CHAPTERS and page.is_page


# --- Reading the page's sources ------------------------------------------------


def expand(lines: list[str]) -> tuple[str, list[str]]:
    """The block's text with its includes in place, as ``pymdownx.snippets``
    puts them, but for its blank lines at the end, and the included paths."""
    text = "\n".join(lines)
    try:
        expanded = snippets.expand(text).rstrip("\n")
        return expanded, [include.path for include in snippets.includes(text)]
    except snippets.SnippetError as error:
        raise PluginError(str(error)) from error


# --- Cells ---------------------------------------------------------------------


# The cells are nbformat's own (``nbformat.v4``), which check each cell as
# they make it. nbformat gives a new cell a random id; the notebook replaces
# it with ``_cell_id`` once the cells are in order (``Converter.notebook``),
# so that a build writes the same bytes as the build before.


def _cell_id(kind: str, source: str, index: int) -> str:
    digest = hashlib.sha1(f"{kind}\0{index}\0{source}".encode()).hexdigest()
    return digest[:12]


# The cells, their outputs and the notebook are made as nbformat's v4
# constructors (new_markdown_cell, new_code_cell, new_output, new_notebook)
# make them, less the schema check each of those runs on its own object: the
# whole notebook is checked once, before it is written (``notebook_json``).
# The checks of every cell and output took 2.4 s of an edition's build.


def caption_markdown(caption: str) -> str:
    """A figure's caption with its formulas as Jupyter's ``$…$``."""
    return CAPTION_MATH.sub(lambda m: "$" + html.unescape(m[1]).strip() + "$", caption)


def markdown_cell(source: str) -> NotebookNode:
    return from_dict(
        {"id": "", "cell_type": "markdown", "source": source, "metadata": {}}
    )


def code_cell(
    source: str, outputs: list[NotebookNode], tags: list[str] = ()
) -> NotebookNode:
    metadata = {"tags": list(tags)} if tags else {}
    return from_dict(
        {
            "id": "",
            "cell_type": "code",
            "metadata": metadata,
            "execution_count": None,
            "source": source,
            "outputs": outputs,
        }
    )


def new_output(output_type: str, **fields) -> NotebookNode:
    """An output of a code cell: ``stream`` (``name``, ``text``),
    ``execute_result`` (``data``) or ``error`` (``ename``, ``evalue``,
    ``traceback``)."""
    if output_type == "execute_result":
        fields = {"metadata": {}, "execution_count": None, **fields}
    return from_dict({"output_type": output_type, **fields})


def _prints_or_shows(source: str) -> str:
    """``"result"`` if the last statement's value is shown, else ``"stream"``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "stream"
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        call = last.value
        printing = (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "print"
        )
        if not printing:
            return "result"
    return "stream"


def pycon_cells(text: str, where: str) -> list[dict]:
    """An example (a doctest session) as code cells with the outputs it prints.

    A cell holds the statements up to one whose output the example shows, so
    each output stays under the code that prints it; the statements after
    the last output make one more cell.
    """
    try:
        examples = doctest.DocTestParser().get_examples(text, where)
    except ValueError as error:
        raise PluginError(f"{where}: {error}") from error
    cells, sources = [], []
    for example in examples:
        sources.append(example.source.rstrip("\n"))
        if not example.want:
            continue
        source = "\n".join(sources)
        sources = []
        want = example.want.replace("<BLANKLINE>", "")
        if example.exc_msg is not None:
            ename, _, evalue = example.exc_msg.strip().partition(": ")
            ename = ename.rsplit(".", 1)[-1]
            output = new_output(
                "error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"]
            )
            cells.append(code_cell(source, [output], tags=["raises-exception"]))
        elif _prints_or_shows(example.source) == "result":
            output = new_output(
                "execute_result", data={"text/plain": want.rstrip("\n")}
            )
            cells.append(code_cell(source, [output]))
        else:
            output = new_output("stream", name="stdout", text=want)
            cells.append(code_cell(source, [output]))
    if sources:
        cells.append(code_cell("\n".join(sources), []))
    return cells


def plot_cell(script: str, where: str) -> dict:
    """A plot's script as a cell that draws the figure with its own labels.

    The script ends with ``if __name__ == "__main__":``, a block that prints
    the figure as SVG with symbol labels; the cell runs that block's body
    and shows the figure instead of printing it.
    """
    head, found, main = script.partition('if __name__ == "__main__":\n')
    body = textwrap.dedent(main)
    shown, count = SHOW_SVG.subn(r"\g<call>", body)
    if not found or count != 1:
        raise PluginError(
            f"{where}: a plot's script must end with an `if __name__ == "
            '"__main__":` block that prints `to_svg(figure(labels))`'
        )
    return code_cell(head.rstrip("\n") + "\n\n" + shown.rstrip("\n"), [])


# --- Markdown ------------------------------------------------------------------


def _protect_code(text: str, convert) -> str:
    """Apply ``convert`` to the text outside code spans."""
    out, last = [], 0
    for match in CODE_SPAN.finditer(text):
        out.append(convert(text[last : match.start()]))
        out.append(match[0])
        last = match.end()
    out.append(convert(text[last:]))
    return "".join(out)


class Converter:
    """Turns one page's Markdown into notebook cells."""

    def __init__(self, page, config, files) -> None:
        self.page = page
        self.config = config
        self.files = files
        self.language = config.theme["language"]
        self.words = words(self.language)
        self.page_url = urljoin(config.site_url, page.url)
        self.solutions: list[tuple[str, list[dict]]] = []
        self.exercise = ""  # the heading of the exercise being read
        self.plots = False

    # Links and maths.

    def absolute(self, url: str) -> str:
        """A link of the page as an absolute link to the online book."""
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or url.startswith("mailto:"):
            return url
        if not parts.path:  # a section of this page
            return self.page_url + url
        path = parts.path
        if path.endswith(".md"):
            src = posixpath.normpath(
                posixpath.join(posixpath.dirname(self.page.file.src_uri), path)
            )
            target = self.files.get_file_from_path(src)
            if target is None:
                raise PluginError(
                    f"{self.page.file.src_uri}: the link '{url}' is not a page"
                )
            new = urljoin(self.config.site_url, target.url)
            return new + ("#" + parts.fragment if parts.fragment else "")
        return urljoin(self.page_url, url)  # an address relative to the page

    def prose(self, text: str) -> str:
        def convert(part: str) -> str:
            part = part.replace("$", r"\$")
            part = DISPLAY_MATH.sub(lambda m: "$$" + m[1] + "$$", part)
            part = INLINE_MATH.sub(lambda m: "$" + m[1].strip() + "$", part)
            part = HTML_HREF.sub(lambda m: m[1] + self.absolute(m[2]) + m[3], part)
            return part

        def link(match: re.Match) -> str:
            # A link's text may hold code (``[`scaled=True`](#note)``), which
            # _protect_code would cut the link at: links are made absolute on
            # the whole text first, except those that begin inside code.
            if any(s.start() <= match.start() < s.end() for s in spans):
                return match[0]
            return f"[{match['text']}]({self.absolute(match['url'])})"

        spans = list(CODE_SPAN.finditer(text))
        text = LINK.sub(link, text)

        lines = []
        for line in text.split("\n"):
            if ATTR_LINE.match(line):
                continue
            heading = HEADING.match(line)
            if heading:
                line = f"{heading['hashes']} {heading['text']}"
            lines.append(line)
        return _protect_code("\n".join(lines), convert)

    # Blocks.

    def convert(self, lines: list[str], where: str) -> list[dict]:
        """Cells of a run of Markdown lines (a page, or an admonition's body)."""
        cells: list[dict] = []
        prose: list[str] = []

        def flush() -> None:
            text = "\n".join(prose).strip("\n")
            prose.clear()
            if text.strip():
                cells.append(markdown_cell(self.prose(text)))

        i = 0
        while i < len(lines):
            line = lines[i]
            fence = FENCE.match(line)
            admonition = ADMONITION.match(line)
            if fence:
                end = i + 1
                while end < len(lines) and lines[end].strip() != fence["fence"]:
                    end += 1
                block = lines[i + 1 : end]
                i = end + 1
                code = self.code_block(fence["info"], block, where)
                if code is None:  # shown as text: a shell command, the package's source
                    text, _ = expand(block)
                    prose += [fence["fence"] + fence["info"], text, fence["fence"]]
                else:
                    flush()
                    cells += code
                continue
            if admonition:
                end = i + 1
                while end < len(lines) and (
                    not lines[end].strip() or lines[end].startswith("    ")
                ):
                    end += 1
                while end > i + 1 and not lines[end - 1].strip():
                    end -= 1
                body = [s[4:] for s in lines[i + 1 : end]]
                i = end
                flush()
                cells += self.admonition(admonition, body, where)
                continue
            if line.startswith("<figure"):
                end = i
                while end < len(lines) and "</figure>" not in lines[end]:
                    end += 1
                flush()
                cells.append(self.figure(lines[i : end + 1], where))
                i = end + 1
                continue
            explorable = EXPLORABLE.match(line.strip())
            if explorable:
                prose.append(self.explorable(explorable["name"]))
                i += 1
                continue
            if PLOT_IMAGE.match(line):  # the plot's cell draws it
                i += 1
                continue
            heading = HEADING.match(line)
            if heading and line.startswith("#"):
                flush()  # one Markdown cell per section
                if len(heading["hashes"]) == 3:
                    self.exercise = line
            prose.append(line)
            i += 1
        flush()
        return cells

    def explorable(self, name: str) -> str:
        """Where the reader finds an interactive figure: its page, online."""
        source = DERIVED.get(self.language, self.language)
        words = load_yaml((EXPLORABLES / f"{name}.yml").read_text("utf-8"))
        title = words[source]["title"]
        if source != self.language:
            title = to_simplified_text(title)
        url = f"{self.page_url}#explorable-{name}"
        sentence = self.words["explorable"].format(title=title, url=url)
        # The figure itself comes from the built page (``on_post_page``).
        return f"{sentence}\n\n<!-- explorable:{name} -->"

    def code_block(self, info: str, block: list[str], where: str) -> list[dict] | None:
        language = info.split()[0] if info.split() else ""
        text, paths = expand(block)
        if language == "pycon":
            return pycon_cells(text, where)
        if language in ("python", "py"):
            if paths and all(p.startswith("docs_src/plots/") for p in paths):
                self.plots = True
                return [plot_cell(text, where)]
            if text.lstrip().startswith(">>>"):
                return pycon_cells(text, where)
            if paths and all(p.startswith("src/") or p in LISTINGS for p in paths):
                return None  # the package's own source, shown to be read
            raise PluginError(f"{where}: a python block the notebook cannot place")
        return None

    def admonition(self, match: re.Match, body: list[str], where: str) -> list[dict]:
        kind, title = match["kind"], match["title"] or ""
        inner = self.convert(body, where)
        if kind == "success":  # a solution: to the last section
            self.solutions.append((self.exercise, inner))
            return []
        only_prose = all(c["cell_type"] == "markdown" for c in inner)
        text = "\n\n".join(c["source"] for c in inner)
        if kind == "tip" and only_prose:
            return [
                markdown_cell(
                    f"<details>\n<summary>{title}</summary>\n\n{text}\n\n</details>"
                )
            ]
        if only_prose:
            quoted = "\n".join(("> " + s).rstrip() for s in text.split("\n"))
            head = f"> **{title}**\n>\n" if title else ""
            return [markdown_cell(head + quoted)]
        head = [markdown_cell(f"**{title}**")] if title else []
        return head + inner

    def figure(self, lines: list[str], where: str) -> dict:
        """A numbered figure of the book as an image and its caption.

        The paper's Figure 2 is an inline SVG; a diagram is the light image
        that stages/plots.py drew for the build, put into the notebook; a
        plot leaves its image to the cell of its script, which follows.
        """
        text, _ = expand(lines)
        caption = re.search(r"<figcaption\b[^>]*>(.*?)</figcaption>", text, re.DOTALL)
        if caption is None:
            raise PluginError(f"{where}: a figure needs a caption")
        caption_text = FIGURE_NUMBER.sub(r"**\1**", caption[1].strip())
        caption_text = caption_markdown(caption_text)
        caption_text = HTML_HREF.sub(
            lambda m: m[1] + self.absolute(m[2]) + m[3], caption_text
        )
        svg = re.search(r"<svg\b.*</svg>", text, re.DOTALL)
        if svg is not None:
            data = base64.b64encode(standalone_svg(svg[0]).encode()).decode()
            title = re.search(r"<title[^>]*>(.*?)</title>", svg[0], re.DOTALL)
            alt = title[1] if title else ""
            return markdown_cell(
                f"![{alt}](data:image/svg+xml;base64,{data})\n\n{caption_text}"
            )
        image = FIGURE_IMAGE.search(text)
        if image is None:
            raise PluginError(f"{where}: a figure needs an SVG or a figure's images")
        if image["kind"] == "plots":
            return markdown_cell(caption_text)
        drawn = self.files.get_file_from_path(image["path"])
        if drawn is None:
            raise PluginError(f"{where}: {image['path']} was not drawn")
        data = base64.b64encode(drawn.content_bytes).decode()
        return markdown_cell(
            f"![{image['alt']}](data:image/svg+xml;base64,{data})\n\n{caption_text}"
        )

    # The whole notebook.

    def notebook(self, markdown: str, repo_url: str | None) -> nbformat.NotebookNode:
        where = self.page.file.src_uri
        cells = self.convert(markdown.split("\n"), where)
        if not cells or not cells[0]["source"].startswith("# "):
            raise PluginError(f"{where}: a chapter begins with its title")
        title_cell, rest = cells[0], cells[1:]
        about = urljoin(self.config.site_url, "about/#source-code")
        title = title_cell["source"].split("\n")[0][2:].strip()
        intro = self.words["intro"].format(
            book=self.config.site_name, title=title, url=self.page_url
        )
        if repo_url:
            install = self.words["install_repo"]
        else:
            install = self.words["install_local"].format(about=about)
        # The markdown cell above says, in the edition's language, what the
        # first code cell does; the cell itself holds code only.
        lines = []
        if self.plots:
            lines.append("%matplotlib inline")
        if repo_url:
            lines += [
                "try:",
                "    import attention_docs",
                "except ModuleNotFoundError:",
                f'    %pip install --quiet "attention_docs[plot] @ git+{repo_url}"',
                "    import attention_docs",
            ]
        else:
            lines.append("import attention_docs")
        # The title, then what the notebook is, before the chapter's prose.
        title_lines = title_cell["source"].split("\n")
        head = [
            markdown_cell(title_lines[0]),
            markdown_cell(intro + "\n\n" + install),
            code_cell("\n".join(lines), []),
        ]
        if len(title_lines) > 1 and "\n".join(title_lines[1:]).strip():
            head.append(markdown_cell("\n".join(title_lines[1:]).strip("\n")))
        cells = head + rest
        if self.solutions:
            cells.append(
                markdown_cell(
                    f"## {self.words['solutions']}\n\n{self.words['solutions_intro']}"
                )
            )
            for exercise, inner in self.solutions:
                cells.append(markdown_cell(self.prose(exercise)))
                cells += inner
        for index, cell in enumerate(cells):
            cell["id"] = _cell_id(cell["cell_type"], cell["source"], index)
        return from_dict(
            {
                "nbformat": NBFORMAT,
                "nbformat_minor": NBFORMAT_MINOR,
                "cells": cells,
                "metadata": {
                    "kernelspec": {
                        "display_name": "Python 3",
                        "language": "python",
                        "name": "python3",
                    },
                    "language_info": {"name": "python"},
                },
            }
        )


def standalone_svg(svg: str) -> str:
    """A figure's SVG that draws alone, in the page's light colours.

    On the page, the figure's colours come from the ``fig2-*`` rules of the
    book's stylesheet; an image outside the page needs them inside it.
    """
    css = BOOK_CSS.read_text(encoding="utf-8")
    rules = re.findall(r"^\.md-typeset (\.fig2-[\w-]+ \{[^}]*\})", css, re.MULTILINE)
    colours = re.search(r"^\.md-typeset \.fig2 \{([^}]*)\}", css, re.MULTILINE)
    if not rules or colours is None:
        raise PluginError(f"{BOOK_CSS}: the fig2 rules are missing")
    variables = "\n".join(
        s for s in colours[1].splitlines() if s.strip().startswith("--")
    )
    style = (
        "svg {\n" + variables + "\n  --md-default-fg-color: rgba(0, 0, 0, 0.87);\n"
        "  font-family: sans-serif;\n  background: #fff;\n}\n"
        + "\n".join(r for r in rules if not r.startswith((".fig2-svg ", ".fig2-svg-")))
    )
    view_box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    size = f' width="{view_box[1]}" height="{view_box[2]}"' if view_box else ""
    return re.sub(
        r"<svg\b([^>]*)>",
        lambda m: f"<svg{m[1]}{size}><style>{style}</style>",
        svg,
        count=1,
    )


# --- Hooks ---------------------------------------------------------------------


def colab_url(repo_url: str | None, language: str, name: str) -> str | None:
    """Colab's address for a notebook of the GitHub repository's notebook branch.

    The Pages workflow publishes the built notebooks to the repository's
    ``notebooks`` branch, ``<language>/<page>.ipynb``, where Colab opens them.
    """
    if not repo_url:
        return None
    parts = urlsplit(repo_url)
    if parts.netloc != "github.com":
        return None
    repo = parts.path.strip("/").removesuffix(".git")
    return (
        f"https://colab.research.google.com/github/{repo}/blob/notebooks/"
        f"{language}/{name}"
    )


def on_page_markdown(markdown, page, config, files):
    if not is_chapter(page, config):
        return markdown
    stem = posixpath.splitext(posixpath.basename(page.file.src_uri))[0]
    name = f"{stem}.ipynb"
    repo_url = config.repo_url or None
    try:
        notebook = Converter(page, config, files).notebook(markdown, repo_url)
    except nbformat.ValidationError as error:  # a cell nbformat refused
        raise PluginError(
            f"{page.file.src_uri}: the notebook is invalid: {error.message}"
        ) from None
    page.notebook = {
        "name": name,
        "notebook": notebook,
        "colab": colab_url(repo_url, config.theme["language"], name),
    }
    return markdown


def _icon(name: str) -> str:
    import material

    path = Path(material.__file__).parent / "templates" / ".icons" / name
    return f'<span class="twemoji">{path.read_text(encoding="utf-8").strip()}</span>'


def on_page_content(html: str, page, config, files) -> str:
    """The links to the notebook, under the chapter's title."""
    notebook = getattr(page, "notebook", None)
    if not notebook:
        return html
    said = words(config.theme["language"])
    name = notebook["name"]
    links = [
        f'<a href="{name}" download="{name}" class="md-button" '
        f'type="application/x-ipynb+json">{_icon("simple/jupyter.svg")}'
        f"{said['download']}</a>"
    ]
    if notebook["colab"]:
        links.append(
            f'<a href="{notebook["colab"]}" class="md-button">'
            f"{_icon('simple/googlecolab.svg')}{said['colab']}</a>"
        )
    # Left out of the search index, which would otherwise hold the same
    # words at the top of every chapter.
    # A <div>, not a paragraph: the chapter's first paragraph stays its prose.
    block = (
        '<div class="book-notebook" data-search-exclude>' + " ".join(links) + "</div>"
    )
    head, found, tail = html.partition("</h1>")
    if not found:
        raise PluginError(f"{page.file.src_uri}: a chapter begins with its title")
    return head + found + "\n" + block + tail


#: Where a notebook's cell takes an interactive figure from the built page.
EXPLORABLE_MARK = re.compile(r"<!-- explorable:(?P<name>[a-z_]+) -->")
#: What a figure's default state becomes in a notebook, which runs no script:
#: controls become the values they hold.
STATIC = [
    (re.compile(r"<(script|style)\b.*?</\1>", re.DOTALL), ""),
    # What the default state hides (rows of a larger matrix, later steps):
    # `hidden` as render() writes it, or `hidden=""` as the DOM writes it back.
    (
        re.compile(
            r'<(table|tr|th|td|div|span|p|small)\b[^>]*\shidden(?:="")?(?=[\s>])[^>]*>.*?</\1>',
            re.DOTALL,
        ),
        "",
    ),
    # The words a screen reader says beside a formula (core.js, speak()):
    # a notebook shows the formula.
    (re.compile(r'<span class="explorable-said">[^<]*</span>'), ""),
    (re.compile(r"</?noscript>"), ""),
    (re.compile(r'<input\b[^>]*type="checkbox"[^>]*\bchecked\b[^>]*>'), "\u2611"),
    (re.compile(r'<input\b[^>]*type="checkbox"[^>]*>'), "\u2610"),
    (re.compile(r'<input\b[^>]*\bvalue="([^"]*)"[^>]*>'), r" \1"),
    (re.compile(r"<input\b[^>]*>"), ""),
    (
        re.compile(r"<select\b[^>]*>.*?</select>", re.DOTALL),
        lambda m: (
            re.search(r"<option\b[^>]*\bselected\b[^>]*>(.*?)</option>", m[0])
            or re.search(r"<option\b[^>]*>(.*?)</option>", m[0])
        )[1],
    ),
    (re.compile(r"</?(button|label|span)\b[^>]*>"), " "),
    (re.compile(r"\sdisabled(?=[\s>])"), ""),
]


def static_figure(output: str, name: str, page_url: str = "") -> str:
    """The explorable ``name`` of a built page, as a notebook can show it.

    Its links relative to the page (the softmax figure's to the temperature)
    become addresses on the site ``page_url`` is on, as the prose's links do.
    """
    found = re.search(
        rf'<section class="explorable"[^>]*\bid="explorable-{name}".*?</section>',
        output,
        re.DOTALL,
    )
    if found is None:
        raise PluginError(f"no explorable {name!r} on the built page")
    html = found[0]
    for pattern, replacement in STATIC:
        html = pattern.sub(replacement, html)
    html = re.sub(
        r'(<a\b[^>]*\bhref=")([^"#][^"]*)"',
        lambda m: f'{m[1]}{urljoin(page_url, m[2])}"',
        html,
    )
    # One line per tag: Markdown ends an HTML block at a blank line.
    return re.sub(r"\n\s*\n", "\n", html)


def on_post_page(output: str, page, config) -> str:
    notebook = getattr(page, "notebook", None)
    if notebook:
        url = urljoin(config.site_url, page.url)
        for cell in notebook["notebook"]["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown" and EXPLORABLE_MARK.search(source):
                source = EXPLORABLE_MARK.sub(
                    lambda m: static_figure(output, m["name"], url), source
                )
                cell["source"] = source
        folder = Path(config.site_dir) / Path(page.file.dest_uri).parent
        folder.mkdir(parents=True, exist_ok=True)
        text = notebook_json(notebook["notebook"], page.file.src_uri)
        (folder / notebook["name"]).write_text(text, encoding="utf-8")
    return output


def notebook_json(notebook: nbformat.NotebookNode, where: str) -> str:
    """The notebook as its file holds it, once nbformat has validated it.

    An invalid notebook fails the build, naming the page. The keys are
    sorted, as nbformat writes them, and the cells' ids are the notebook's
    own (``_cell_id``), so the same page gives the same bytes at every build.
    """
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as error:
        message = f"{where}: the notebook is invalid: {error.message}"
        raise PluginError(message) from None
    return json.dumps(notebook, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
