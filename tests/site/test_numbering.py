"""Numbers a reader can cite, in the built site and the notebooks.

The chapters are numbered in reading order (the home page, the glossary, the
references and the page about the book have no number; the package's page and
the object view are appendices A and B), their sections 6.1, 6.2 …, their
figures 図 6.1 … and their labelled equations (6.1) … (attention_book.numbering).
Every link that cites one of them by its number must lead to it: the target
exists on the page the link names, and the link says the number the target
shows. The PDF's are checked in tests/site/test_pdf.py
(``test_numbered_references_lead_to_their_targets``).

The numbers expected here are counted from the built pages themselves (the
reading order, the order of the headings, figures and equations), not taken
from the build's code.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from .helpers import LANGUAGES, sample, text_of, tree
from .test_plots import FIGURE_WORD, FIGURES

#: The editions checked in every tier: the Japanese one; the Chinese ones
#: (their numbers come from the same build code) in the exhaustive tier.
EDITIONS = sample(LANGUAGES, ["ja"])

#: The pages without a number, by their folder in the site ("" is the home).
UNNUMBERED = {"", "glossary", "references", "about"}
#: The appendices, lettered in reading order.
APPENDICES = ["package", "object-view", "loss-differences"]
#: "Appendix" in each edition.
APPENDIX_WORD = {"ja": "付録", "zh-Hant": "附錄", "zh-Hans": "附录"}
#: A citation of an equation: 式 (6.1) in Japanese, 式（6.1） in Chinese.
EQUATION_REFERENCE = re.compile(r"式 ?[(（](?P<number>[0-9A-Z.]+)[)）]")
NUMBERED = re.compile(r"#(?:fig|eq)-")


def reading_order(site: Path, language: str) -> list[Path]:
    """The edition's pages from its home page, following rel="next"."""
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


def folder(site: Path, language: str, page: Path) -> str:
    return page.parent.relative_to(site / language).as_posix().strip(".")


def expected_chapters(site: Path, language: str) -> dict[Path, str | None]:
    """Each page's chapter number, counted here in reading order."""
    chapters, count = {}, 0
    for page in reading_order(site, language):
        name = folder(site, language, page)
        if name in UNNUMBERED:
            chapters[page] = None
        elif name in APPENDICES:
            chapters[page] = chr(ord("A") + APPENDICES.index(name))
        else:
            count += 1
            chapters[page] = str(count)
    assert count >= 19, "the book has at least nineteen chapters"
    return chapters


def own_text(element) -> str:
    """A heading's text without its permalink (¶)."""
    return "".join(
        [element.text or "", *(child.tail or "" for child in element)]
    ).strip()


def targets(page: Path) -> dict[str, str]:
    """The numbered things of a built page: id -> the number it shows
    ("図 6.1" for a figure, "6.1" for an equation's tag)."""
    found = {}
    article = tree(page).cssselect("article")[0]
    for figure in article.cssselect("figure[id]"):
        (number,) = figure.cssselect("figcaption .book-figure-number")
        found[figure.get("id")] = text_of(number, sep="")
    for equation in article.cssselect(".book-equation[id]"):
        # KaTeX's MathML sets \tag{6.1} as "(6.1)" in the last cell of the
        # formula's outer table (the formula centred, the tag at the right).
        (row,) = equation.cssselect("math > semantics > mtable > mtr")
        found[equation.get("id")] = text_of(row[-1], sep="").strip("()")
    return found


@functools.cache
def _numbered(site: Path, language: str) -> dict[Path, dict]:
    return {
        page: {"chapter": chapter, "targets": targets(page)}
        for page, chapter in expected_chapters(site, language).items()
    }


@pytest.fixture(scope="module")
def numbered(site: Path):
    """An edition's pages, each with its chapter and the numbered things it
    shows (read once per edition)."""
    return lambda language: _numbered(site, language)


def addresses(site: Path, entries: dict) -> dict[str, dict]:
    """The pages' entries by their path on the server (/ja/masks/)."""
    return {
        "/" + page.relative_to(site).as_posix().removesuffix("index.html"): entry
        for page, entry in entries.items()
    }


def target_of(by_path: dict[str, dict], url: str) -> str | None:
    """What the target of ``url`` (on the site, or the online book's address
    that a notebook links) shows, or None if there is no such target."""
    parts = urlsplit(url)
    path = parts.path.removesuffix("index.html")
    return by_path.get(path, {}).get("targets", {}).get(parts.fragment)


def cites(text: str, shown: str, language: str) -> bool:
    """Whether a link's ``text`` cites what its target shows (``shown``)."""
    if shown.startswith(FIGURE_WORD[language]):
        return text == shown
    match = EQUATION_REFERENCE.fullmatch(text)
    return match is not None and match["number"] == shown


@pytest.mark.parametrize("language", EDITIONS)
def test_chapters_sections_figures_and_equations_are_numbered_in_order(
    site: Path, numbered, language
) -> None:
    """Chapter n's title starts with n, its sections are n.1, n.2 …, its
    figures 図 n.1 …, its equations (n.1) …; a page without a number has
    none on its title and sections, and its figures are 図 1, 図 2 …"""
    word = FIGURE_WORD[language]
    for page, entry in numbered(language).items():
        chapter = entry["chapter"]
        article = tree(page).cssselect("article")[0]
        title = own_text(article.cssselect("h1")[0])
        sections = [own_text(h2) for h2 in article.cssselect("h2")]
        prefix = f"{chapter}." if chapter else ""
        figures = [t for i, t in entry["targets"].items() if i.startswith("fig-")]
        shown = [
            text_of(span, sep="")
            for span in article.cssselect("figure figcaption .book-figure-number")
        ]
        assert shown == [f"{word} {prefix}{n}" for n in range(1, len(shown) + 1)]
        assert set(figures) <= set(shown), page
        tags = [t for i, t in entry["targets"].items() if i.startswith("eq-")]
        assert tags == [f"{prefix}{n}" for n in range(1, len(tags) + 1)], page
        if chapter is None:
            assert not re.match(r"[0-9A-Z]+(\.\d+)? ", title), page
            assert not [s for s in sections if re.match(r"\d+\.\d+ ", s)], page
            continue
        if chapter.isalpha():
            assert title.startswith(f"{APPENDIX_WORD[language]} {chapter} "), title
        else:
            assert title.startswith(f"{chapter} "), title
        numbers = [s.partition(" ")[0] for s in sections]
        assert numbers == [f"{chapter}.{n}" for n in range(1, len(numbers) + 1)]
        browser_title = tree(page).findtext(".//title")
        assert browser_title.startswith(title), (browser_title, title)


@pytest.mark.parametrize("language", EDITIONS)
def test_every_numbered_reference_leads_to_its_target(
    site: Path, numbered, language
) -> None:
    """A link that cites a figure or an equation by its number leads to a
    target of that id on the page it names, and says the number shown there."""
    by_path = addresses(site, numbered(language))
    checked, wrong, cited = 0, [], set()
    for page in numbered(language):
        url = urljoin("http://book/", page.relative_to(site).as_posix())
        for link in tree(page).cssselect("article a[href]"):
            href = urljoin(url, link.get("href"))
            if not NUMBERED.search(href):
                continue
            shown = target_of(by_path, href)
            text = text_of(link, sep="")
            checked += 1
            parts = urlsplit(href)
            cited.add(f"{parts.path.removesuffix('index.html')}#{parts.fragment}")
            if shown is None or not cites(text, shown, language):
                wrong.append((page.parent.name, text, href, shown))
    assert not wrong, wrong
    assert checked >= 40, "the book cites its figures and equations by number"
    # Every figure of the book's is cited on its page, every labelled
    # equation somewhere; each drawn figure is shown once, and Figure 2's halves.
    uncited, figures = [], 0
    for path, entry in by_path.items():
        for anchor in entry["targets"]:
            figures += anchor.startswith("fig-")
            if f"{path}#{anchor}" not in cited:
                uncited.append(f"{path}#{anchor}")
    assert not uncited
    fig2 = sum(
        len(tree(page).cssselect("article figure.fig2")) for page in numbered(language)
    )
    assert (figures, fig2) == (len(FIGURES), 2)


@pytest.mark.parametrize("language", EDITIONS)
def test_the_notebooks_carry_the_pages_numbers(site: Path, numbered, language):
    """A chapter's notebook has the page's numbered title and sections, its
    figures' numbers and its equations' tags, in order, and each link citing
    a number says the number its target shows on the online page."""
    by_path = addresses(site, numbered(language))
    link = re.compile(r"\[(?P<text>[^\[\]]*)\]\((?P<url>[^)\s]*#(?:fig|eq)-[^)\s]*)\)")
    notebooks, checked, wrong = 0, 0, []
    for page, entry in numbered(language).items():
        path = page.parent / f"{page.parent.name}.ipynb"
        if not path.exists():
            continue
        notebooks += 1
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        prose = "\n".join(
            "".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"
        )
        article = tree(page).cssselect("article")[0]
        # The notebook's headings, by their numbers: the page's, then the
        # solutions' section (a heading's code and maths are the notebook's).
        headings = [f"# {own_text(article.cssselect('h1')[0])}"] + [
            f"## {own_text(h2)}" for h2 in article.cssselect("h2")
        ]
        in_notebook = [line for line in prose.split("\n") if re.match(r"#{1,2} ", line)]
        assert [h.split(" ")[:2] for h in in_notebook[: len(headings)]] == [
            h.split(" ")[:2] for h in headings
        ], path
        figures = re.findall(r"\*\*((?:図|圖|图) [0-9A-Z.]+)\*\*", prose)
        shown = [t for i, t in entry["targets"].items() if i.startswith("fig-")]
        assert set(shown) <= set(figures), path
        tags = re.findall(r"\\tag\{([^{}]*)\}", prose)
        assert tags == [t for i, t in entry["targets"].items() if i.startswith("eq-")]
        for match in link.finditer(prose):
            target = target_of(by_path, match["url"])
            checked += 1
            if target is None or not cites(match["text"], target, language):
                wrong.append((path.name, match["text"], match["url"], target))
    assert notebooks >= 15
    assert not wrong, wrong
    assert checked >= 30


#: The number a link's text cites, if any: 5.1 and 「5.1 …」 (a section),
#: 第 5 章「…」 and "5 …" (a chapter), 5.1 節 (a number-only citation).
CITED_NUMBER = re.compile(r"[「“]?(?:第 ?)?(?P<number>\d+(?:\.\d+)*)[ 章節节]")


def citations(page: Path) -> list[tuple[str, str | None]]:
    """Each link of the page's article: its target and the number it cites."""
    found = []
    for link in tree(page).cssselect("article a[href]"):
        if link.get("href").startswith("#__codelineno"):
            continue  # a code line's anchor (zh-Hans prints its own model's outputs)
        cited = CITED_NUMBER.match(text_of(link, sep=""))
        found.append((link.get("href"), cited and cited["number"]))
    return found


def test_the_simplified_edition_cites_what_the_traditional_one_cites(site: Path):
    """zh-Hans is zh-Hant converted: each link cites the same number in both
    (a title converted on its own must read as the page's heading does, or
    the link to it keeps a bare title: 整理在…的查询、键与值的角色)."""
    differ, pages = [], reading_order(site, "zh-Hant")
    for page in pages:
        simplified = site / "zh-Hans" / page.relative_to(site / "zh-Hant")
        ours, theirs = citations(page), citations(simplified)
        assert len(ours) == len(theirs), page
        differ += [
            (page.parent.name, href, a, b)
            for (href, a), (_, b) in zip(ours, theirs, strict=True)
            if a != b
        ]
    assert not differ, differ
    assert len(pages) > 30
