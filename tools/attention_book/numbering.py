"""Numbers a reader can cite: chapters, sections, figures and equations.

The book is numbered as a textbook is (d2l's scheme, without its trailing
periods, as Japanese and Chinese textbooks write them): chapter 6, its
sections 6.1, 6.2 …, its figures 図 6.1, 図 6.2 … and its displayed
equations 式 (6.1), 式 (6.2) …, each sequence per chapter. The numbers are
given here, once, while the book is built; the pages' Markdown carries none,
so that moving a page or a figure renumbers the whole book.

- **Chapters in the navigation's order** (``nav:`` of the edition's
  configuration file, even when a build shows fewer pages: the PDF of one
  chapter keeps the chapter's number). Every page of the parts is a chapter,
  numbered from 1, except the front and back matter:

  - the home page is unnumbered front matter: its title is the book's, and it
    says what the book is and how to read it (d2l's preface); its two
    figures are 図 1 and 図 2, its sections unnumbered;
  - the package's reference (``package.md``) is appendix A (付録 A / 附錄 A):
    a chapter the reader consults rather than reads in turn, with sections
    A.1 … and exercises of its own;
  - the glossary, the references and the page about the book are unnumbered
    back matter: lists to look things up in, which no one cites by number.

- **Headings.** The title (``#``) of a numbered chapter becomes
  "6 スケール化内積アテンション" (an appendix's "付録 A パッケージ …"), so the
  navigation, the browser's title, the search, the notebook and the PDF's
  contents and bookmarks all show it; each ``##`` section gets "6.1". The
  ``###`` headings keep what the page gives them (an exercise's own "1."). An
  anchor (``{ #id }``) never changes: links and the language switcher keep
  working.
- **Figures**: ``stages/plots.py`` numbers them with the chapter's number
  (``chapter_of``); a link with no text to a figure of the page,
  ``[](#fig-NAME)``, gets its number as its text there.
- **Equations.** A displayed equation that the text cites carries a label,
  ``\\label{eq-NAME}`` at the top level of its ``\\[ … \\]``. The label
  becomes ``\\tag{6.1}`` (KaTeX sets the number at the right, the notebook's
  MathJax too) and the equation a block with the id ``eq-NAME``; a link with
  no text, ``[](#eq-NAME)``, reads 式 (6.1).
- **Across pages**: ``[](page.md#fig-NAME)`` and ``[](page.md#eq-NAME)``
  read the number that the other page shows: every page's figures and labels
  are read first (``on_files``), so a link may point forward.
- **Sections cited by number**: a link with no text to a numbered section,
  ``[](page.md#id)`` or ``[](#id)``, reads "14.4 節" (converted in the
  Simplified edition), where a sentence needs the section only as a place
  ("（14.4 節）", "14.4 節で見たとおり"); a section without a number (an
  exercise, a page without a chapter) cannot be cited so, and fails the build.
- **Sections and chapters cited by title** read as their headings do: a
  link whose text is a section's title becomes 「6.2 内積とスコア」
  (``quote_section_titles``); a link to a whole page whose text is the
  chapter's title becomes 第 6 章「スケール化内積アテンション」 where the sentence
  calls it a chapter or a page (の章, のページ, 一章, 一頁: the word goes),
  and "6 スケール化内積アテンション" in a list of chapters. The Markdown
  keeps the bare title, so that moving a section renumbers every citation.
- The paper's own figures, tables and equations are the paper's: the text
  names them "論文の図 2", "論文の式 (1)", and nothing here touches them.

A label that two equations of a page share, a link to a number that does not
exist, or a label outside display maths fails the build, naming the page.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load

from attention_book.zh_hans import edition_words, to_simplified_text

#: The pages of the navigation that have no number (front and back matter).
UNNUMBERED = frozenset({"index.md", "glossary.md", "references.md", "about.md"})
#: The appendices, lettered A, B … in the navigation's order.
APPENDICES = ("package.md", "object-view.md", "loss-differences.md")
#: The words of each hand-written edition; the Simplified one converts zh-Hant's.
WORDS = {
    "ja": {
        "appendix": "付録 {}",
        "figure": "図 {}",
        "equation": "式 ({})",
        "chapter": "第 {} 章",
        "section": "{} 節",
    },
    # Chinese writes the parentheses of an equation's number full-width, as
    # the edition cites the paper's (式（1）).
    "zh-Hant": {
        "appendix": "附錄 {}",
        "figure": "圖 {}",
        "equation": "式（{}）",
        "chapter": "第 {} 章",
        "section": "{} 節",
    },
}
FENCE = re.compile(r"^(`{3,}|~{3,})")
#: A title or a section heading of the page (at the start of a line).
HEADING = re.compile(r"^(?P<hashes>#{1,2})[ \t]+(?P<text>\S.*)$")
#: A figure of the page (``stages/plots.py`` draws and numbers it): a
#: light/dark pair of images, or the paper's Figure 2.
FIGURE = re.compile(
    r"^!\[\]\((?P<prefix>(?:\.\./)*)assets/(?P<kind>plots|diagrams)/(?P<name>[\w-]+)"
    r"\.svg#only-light\)[ \t]*\n"
    r"!\[\]\((?P=prefix)assets/(?P=kind)/(?P=name)-dark\.svg#only-dark\)[ \t]*$"
    r"|^<figure class=\"fig2\">$",
    re.MULTILINE,
)
#: An equation's label, as the page writes it inside ``\[ … \]``.
LABEL = re.compile(r"\\label\{(?P<id>eq-[a-z0-9-]+)\}")
DISPLAY = re.compile(r"\\\[(?P<tex>.*?)\\\]", re.DOTALL)
#: A link with no text to a numbered thing, of this page or of another one.
REFERENCE = re.compile(r"\[\]\((?P<page>[\w-]+\.md)?#(?P<id>(?:fig|eq)-[a-z0-9-]+)\)")
#: A link with no text to a section (an id that is not a figure's or an
#: equation's), of this page or of another one: "（14.4 節）".
SECTION_REFERENCE = re.compile(
    r"\[\]\((?P<page>[\w-]+\.md)?#(?P<id>(?!fig-|eq-)[a-z0-9-]+)\)"
)
#: A displayed equation on lines of its own (indented in an admonition).
DISPLAY_BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)\\\[\n(?:.*\n)*?(?P=indent)\\\][ \t]*$", re.MULTILINE
)
TAG = re.compile(r"\\tag\{(?P<number>[^{}]+)\}")

#: language -> page (``nav:``'s name) -> its chapter (or None) and its numbers
#: (an id -> the number that the page shows: "図 6.1", "式 (6.1)").
CATALOGUE: dict[str, dict[str, dict]] = {}


def words(language: str) -> dict[str, str]:
    return edition_words(WORDS, language)


def nav_pages(nav) -> list[str]:
    """The pages of ``nav:`` (mkdocs.yml's list), in reading order."""
    found = []
    for entry in nav or []:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            ((_, value),) = entry.items()
            found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def chapter_numbers(pages: list[str]) -> dict[str, str | None]:
    """Each page's number ("6", "A") or None, from the navigation's pages."""
    numbers, chapter, appendix = {}, 0, 0
    for page in pages:
        if page in UNNUMBERED:
            numbers[page] = None
        elif page in APPENDICES:
            numbers[page] = chr(ord("A") + appendix)
            appendix += 1
        else:
            chapter += 1
            numbers[page] = str(chapter)
    return numbers


def full_nav(config) -> list:
    """The edition's whole navigation: its configuration file's ``nav:``, not
    the build's (the one-chapter PDF builds with fewer pages)."""
    path = getattr(config, "config_file_path", None)
    if path and Path(path).is_file():
        with open(path, "rb") as source:
            nav = yaml_load(source).get("nav")
        if nav:
            return nav
    return config["nav"]


def outside_code(markdown: str):
    """(index, line, in a code fence) of each of the page's lines."""
    fence = None
    for index, line in enumerate(markdown.split("\n")):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match[1]
            yield index, line, True
        elif fence is not None:
            if line.startswith(fence) and not line[len(fence) :].strip():
                fence = None
            yield index, line, True
        else:
            yield index, line, False


#: An inline code span (its backticks, then the same number to close it).
CODE_SPAN = re.compile(r"(`+).*?(?<!`)\1(?!`)")


def sub_outside_code(pattern: re.Pattern, replace, markdown: str) -> str:
    """``pattern.sub(replace, …)`` on the page's text outside code: neither
    in a fence nor in an inline code span, which show a link as written."""
    lines = markdown.split("\n")
    for index, line, code in outside_code(markdown):
        if code:
            continue
        pieces, last = [], 0
        for span in CODE_SPAN.finditer(line):
            pieces += [pattern.sub(replace, line[last : span.start()]), span[0]]
            last = span.end()
        lines[index] = "".join([*pieces, pattern.sub(replace, line[last:])])
    return "\n".join(lines)


#: A heading with its id: ``## Title { #id }`` (any level).
SECTION = re.compile(
    r"^#{1,6}[ \t]+(?P<text>\S.*?)[ \t]*\{[ \t]*#(?P<id>[\w-]+)[^}]*\}[ \t]*$"
)
#: A link with text to a heading of this page or of another one (not an
#: image, not already between quotation marks).
SECTION_LINK = re.compile(
    r"(?<![!\[「“『])\[(?P<text>[^\[\]]+)\]\((?P<page>[\w-]+\.md)?#(?P<id>[\w-]+)\)"
    r"(?![」”』])"
)
#: A link with text to another page as a whole (a chapter).
PAGE_LINK = re.compile(
    r"(?<![!\[「“『])\[(?P<text>[^\[\]]+)\]\((?P<page>[\w-]+\.md)\)(?![」”』])"
)
#: What a sentence says after a chapter it cites, which the chapter's number
#: makes redundant: [ソフトマックス](softmax.md)の章で -> 第 4 章「ソフトマックス」で.
CHAPTER_WORDS = ("の章", "のページ", "一章", "一頁")
#: ... and the Simplified edition's words, converted from the Traditional ones.
CHAPTER_AFTER = re.compile(
    "^(?:"
    + "|".join(dict.fromkeys((*CHAPTER_WORDS, *map(to_simplified_text, CHAPTER_WORDS))))
    + ")"
)
MARKER, OPENS = "\x00", "\x01"
#: What comes before a link that is a bulleted list item's text: the item's
#: marker, and bold or not (an ordered list numbers its items itself).
#: The text before the link is stripped of its trailing spaces, so a plain
#: item ("- [B](b.md)") leaves the marker alone.
LIST_ITEM = re.compile(r"^[ \t>]*[-*+](?:[ \t]+\*\*)?$")
#: The quotation marks a title is cited in, as each edition's textbooks do.
TITLE_QUOTES = {"ja": ("「", "」"), "zh-Hant": ("「", "」"), "zh-Hans": ("“", "”")}
#: The marks of a quotation inside a quoted title, by the outer opening mark.
INNER_QUOTES = {"「": ("『", "』"), "“": ("‘", "’")}


def section_titles(markdown: str) -> dict[str, str]:
    """The titles of a page's headings that have an id: id -> title."""
    titles = {}
    for _, line, code in outside_code(markdown):
        match = None if code else SECTION.match(line)
        if match:
            titles[match["id"]] = match["text"]
    return titles


def page_title(markdown: str) -> str | None:
    """The title of a page (its ``#`` heading), without its id."""
    for _, line, code in outside_code(markdown):
        match = None if code else HEADING.match(line)
        if match and match["hashes"] == "#":
            return re.sub(r"[ \t]*\{[^}]*\}[ \t]*$", "", match["text"])
    return None


def section_numbers(markdown: str, chapter: str | None) -> dict[str, str]:
    """The numbers of a page's ``##`` sections that have an id, as
    ``number_headings`` gives them: id -> "6.2". None for an unnumbered page."""
    if not chapter:
        return {}
    numbers, section = {}, 0
    for _, line, code in outside_code(markdown):
        match = None if code else HEADING.match(line)
        if match is None or match["hashes"] == "#":
            continue
        section += 1
        heading = SECTION.match(line)
        if heading:
            numbers[heading["id"]] = f"{chapter}.{section}"
    return numbers


#: What may follow a link that cites a section (の節, 一節, 節), or enclose it
#: alone (（[スケーリング](#scaling)）): there a title that is also a
#: glossary term names the section, not the thing.
CITES_WORDS = ("の節", "一節", "一章", "節", "）", ")")
CITES_AFTER = re.compile(
    "^(?:"
    + "|".join(
        re.escape(word)
        for word in dict.fromkeys((*CITES_WORDS, *map(to_simplified_text, CITES_WORDS)))
    )
    + ")"
)
CITES_BEFORE = re.compile(r"[（(]$")


def quote_section_titles(markdown: str, sections, language: str) -> str:
    """Each link whose text is the title of the heading it leads to, cited as
    the heading reads: with the section's number, "6.2 内積とスコア", and
    between the edition's quotation marks where a sentence runs on around it
    (「18.3 ヘッドを消す」の節の表, not ヘッドを消すの節の表).

    ``sections(page, id)`` gives ``(title, number, term)`` for a heading (its
    number None for a heading without one: a chapter's title, an exercise),
    or None. A title that is a glossary term (``term``) is a word where a
    sentence uses it (因果マスクを使うと) and stays as it is; it is a citation
    only alone in parentheses or before の節/一節. A link that is a list
    item's whole text is numbered, not quoted, and so is a table cell's link
    to a section or a chapter (the package page's "explained in" column);
    code stays as it is."""
    marks = TITLE_QUOTES.get(language)
    if marks is None:
        return markdown
    opening, closing = marks
    lines = markdown.split("\n")
    for index, line, code in outside_code(markdown):
        if code:
            continue
        if line.lstrip().startswith("|"):

            def cell(match: re.Match) -> str:
                found = sections(match["page"], match["id"])
                if found is None or found[0] != match["text"].strip() or not found[1]:
                    return match[0]
                return f"[{found[1]} {found[0]}]({match['page'] or ''}#{match['id']})"

            def whole(match: re.Match) -> str:
                found = sections(match["page"], None)
                if found is None or found[0] != match["text"].strip() or not found[1]:
                    return match[0]
                return f"[{found[1]} {found[0]}]({match['page']})"

            lines[index] = PAGE_LINK.sub(whole, SECTION_LINK.sub(cell, line))
            continue

        def quote(match: re.Match, line: str = line) -> str:
            found = sections(match["page"], match["id"])
            text = match["text"].strip()
            if found is None or found[0] != text:
                return match[0]
            title, number, term = found
            before = line[: match.start()].rstrip()
            after = line[match.end() :].lstrip()
            if term and not (
                CITES_AFTER.match(after)
                and (not after.startswith(("）", ")")) or CITES_BEFORE.search(before))
            ):
                return match[0]
            link = match[0]
            if number:
                link = f"[{number} {title}]({match['page'] or ''}#{match['id']})"
            alone = before.lstrip(" \t>").lstrip("-*+0123456789.").strip() == ""
            if alone and (after == "" or after[0] in ",，、。:："):
                return link
            # Quotation marks inside the title become the inner ones:
            # 「アテンション重みは『説明』か」, not 「…「説明」か」.
            inner = INNER_QUOTES[opening]
            text = link[1 : link.index("](")]
            text = text.replace(opening, inner[0]).replace(closing, inner[1])
            link = f"[{text}{link[link.index('](') :]}"
            return f"{OPENS}{opening}{link}{closing}{MARKER}"

        line = SECTION_LINK.sub(quote, line)
        # 見 [Transformer 的層](…) had spaces for its Latin title; between Han
        # characters and the quotation marks there are none.
        line = re.sub(r"(?<=[^\x00-\x7f]) " + re.escape(OPENS), "", line)
        line = re.sub(re.escape(MARKER) + r" (?=[^\x00-\x7f])", "", line)
        line = line.replace(OPENS, "").replace(MARKER, "")

        def chapter(match: re.Match, line: str = line) -> str:
            found = sections(match["page"], None)
            text = match["text"].strip()
            if found is None or found[0] != text or not found[1]:
                return match[0]
            title, number, _ = found
            before = line[: match.start()].rstrip()
            after = line[match.end() :]
            if LIST_ITEM.match(before):  # a list of chapters, as the contents list them
                return f"[{number} {title}]({match['page']})"
            cited = CHAPTER_AFTER.match(after)
            if cited is None:
                return match[0]
            name = words(language)["chapter"].format(number)
            if not number.isdigit():
                name = words(language)["appendix"].format(number)
            return f"{OPENS}[{name}{opening}{title}{closing}]({match['page']})" + MARKER

        line = PAGE_LINK.sub(chapter, line)
        line = re.sub(re.escape(MARKER) + CHAPTER_AFTER.pattern.lstrip("^"), "", line)
        # 論文と [Transformer の層](…) had a space before its Latin title;
        # 第 13 章 begins with a Han character, which takes none.
        line = re.sub(r"(?<=[^\x00-\x7f]) " + re.escape(OPENS), "", line)
        lines[index] = line.replace(MARKER, "").replace(OPENS, "")
    return "\n".join(lines)


def page_numbers(markdown: str, chapter: str | None, language: str, page: str):
    """The numbers of a page's figures and labelled equations, id -> the
    number as the text cites it ("図 6.1", "式 (6.1)"), and the equations'
    tags, id -> "6.1"."""
    word = words(language)
    prefix = f"{chapter}." if chapter else ""
    numbers: dict[str, str] = {}
    tags: dict[str, str] = {}
    for count, match in enumerate(FIGURE.finditer(markdown), 1):
        if match["name"]:
            numbers["fig-" + match["name"].replace("_", "-")] = word["figure"].format(
                f"{prefix}{count}"
            )
    labels = [m["id"] for m in LABEL.finditer(markdown)]
    in_display = [
        m["id"] for d in DISPLAY.finditer(markdown) for m in LABEL.finditer(d["tex"])
    ]
    if labels != in_display:
        outside = sorted(set(labels) - set(in_display))
        raise PluginError(f"{page}: \\label{{{outside[0]}}} must be inside \\[ … \\]")
    for count, label in enumerate(labels, 1):
        if label in numbers:
            raise PluginError(f"{page}: two equations are labelled {label}")
        numbers[label] = word["equation"].format(f"{prefix}{count}")
        tags[label] = f"{prefix}{count}"
    return numbers, tags


def chapter_of(page, config) -> str | None:
    """The page's chapter number ("6", "A"), or None (unnumbered, or a build
    that did not read the catalogue, as the hooks' unit tests)."""
    language = config.theme["language"]
    entry = CATALOGUE.get(language, {}).get(getattr(page.file, "src_uri", None))
    return entry["chapter"] if entry else None


def number_headings(markdown: str, chapter: str, language: str) -> str:
    lines = markdown.split("\n")
    section = 0
    appendix = words(language)["appendix"]
    title = appendix.format(chapter) if chapter.isalpha() else chapter
    for index, line, code in outside_code(markdown):
        match = None if code else HEADING.match(line)
        if match is None:
            continue
        if match["hashes"] == "#":
            lines[index] = f"# {title} {match['text']}"
        else:
            section += 1
            lines[index] = f"## {chapter}.{section} {match['text']}"
    return "\n".join(lines)
