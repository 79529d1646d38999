"""The book's notebooks: the same notebooks, the same code, in every language.

A notebook is written once per language: its Markdown cells are translated,
its code cells are the same text in every language (comments in English), so a
reader gets the same results whichever language they download. The notebooks
are executed twice elsewhere: by nbmake (``--nbmake``, every ``.ipynb`` under
``docs/``) and by mkdocs-jupyter when the site is built; they are committed
without outputs, which the build makes fresh from the package.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import nbformat
import pytest
from markdown.extensions.toc import slugify

from .test_pages import ANCHOR, HEADING, prose_lines

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGUAGES = ("ja", "zh-Hant")
REFERENCE = LANGUAGES[0]
KANA = re.compile(r"[\u3040-\u30ff]")
HAN = re.compile(r"[\u4e00-\u9fff]")
# Math is rendered by KaTeX on the book's pages only: a notebook cell links there.
#: Delimiters Jupyter does not typeset in Markdown (\( reads as an escaped "(").
BOOK_MATH = re.compile(r"\\\(|\\\[")
#: Bare TeX that should have been a formula: a subscript or a square root.
BARE_TEX = re.compile(r"(?<![$\w{])d_[a-z]|√")
MD_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
MD_HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<text>.+?)\s*$", re.MULTILINE)


def notebooks(language: str) -> set[str]:
    """The notebooks of a language (not Jupyter's .ipynb_checkpoints copies)."""
    folder = DOCS / language
    paths = [p.relative_to(folder) for p in folder.rglob("*.ipynb")]
    return {p.as_posix() for p in paths if not any(s.startswith(".") for s in p.parts)}


def read(language: str, name: str) -> nbformat.NotebookNode:
    return nbformat.read(DOCS / language / name, as_version=4)


def cells(language: str, name: str, cell_type: str) -> list[tuple[int, str]]:
    """(index in the notebook, source) of every cell of ``cell_type``."""
    return [
        (index, cell.source)
        for index, cell in enumerate(read(language, name).cells)
        if cell.cell_type == cell_type
    ]


NOTEBOOKS = sorted(notebooks(REFERENCE))
ALL = [(language, name) for language in LANGUAGES for name in notebooks(language)]
PAIRS = [
    (name, language)
    for name in NOTEBOOKS
    for language in LANGUAGES[1:]
    if (DOCS / language / name).exists()
]


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, f"no notebook in docs/{REFERENCE}/"


def test_every_language_has_the_same_notebooks() -> None:
    reference = notebooks(REFERENCE)
    for language in LANGUAGES[1:]:
        other = notebooks(language)
        assert other == reference, (
            f"only in {REFERENCE}: {sorted(reference - other)}; "
            f"only in {language}: {sorted(other - reference)}"
        )


@pytest.mark.parametrize(("name", "language"), PAIRS)
def test_code_cells_are_identical_across_languages(name, language) -> None:
    expected = cells(REFERENCE, name, "code")
    actual = cells(language, name, "code")
    problems = []
    for number, (left, right) in enumerate(zip(expected, actual, strict=False), 1):
        if left[1] != right[1]:
            diff = difflib.unified_diff(
                left[1].splitlines(),
                right[1].splitlines(),
                f"{REFERENCE}/{name} cell {left[0]}",
                f"{language}/{name} cell {right[0]}",
                lineterm="",
            )
            problems.append(
                f"code cell {number} (cell index {left[0]} in {REFERENCE}, "
                f"{right[0]} in {language}) differs:\n" + "\n".join(diff)
            )
    if len(expected) != len(actual):
        problems.append(
            f"{REFERENCE} has {len(expected)} code cells, {language} has {len(actual)}"
        )
    assert not problems, f"{name}:\n" + "\n\n".join(problems)


@pytest.mark.parametrize(("name", "language"), PAIRS)
def test_headings_give_the_same_anchors_across_languages(name, language) -> None:
    """Heading ids come from the ASCII part of a heading (mkdocs-jupyter's slug).

    Both languages' headings must give the same, non-empty, unique ids, as the
    explicit anchors of the pages do.
    """

    def anchors(lang: str) -> list[tuple[int, str]]:
        return [
            (len(m["level"]), slugify(m["text"], "-"))
            for _, source in cells(lang, name, "markdown")
            for m in MD_HEADING.finditer(source)
        ]

    expected, actual = anchors(REFERENCE), anchors(language)
    assert actual == expected, (
        f"{name}\n  {REFERENCE}: {expected}\n  {language}: {actual}"
    )
    ids = [anchor for _, anchor in expected]
    assert all(ids), f"{name}: a heading without ASCII text has no id: {expected}"
    assert len(set(ids)) == len(ids), f"{name}: duplicate heading ids {ids}"
    assert not [i for i in ids if i[0].isdigit()], f"{name}: ids start with a digit"


@pytest.mark.parametrize(("language", "name"), ALL)
def test_notebook_is_valid_and_starts_with_its_title(language, name) -> None:
    notebook = read(language, name)
    nbformat.validate(notebook)
    first = notebook.cells[0]
    assert first.cell_type == "markdown", "the first cell is the page's title"
    assert first.source.startswith("# "), "the first cell starts with the H1 title"
    assert notebook.metadata.kernelspec.name == "python3"
    assert notebook.metadata.kernelspec.language == "python"


@pytest.mark.parametrize(("language", "name"), ALL)
def test_notebook_is_committed_without_outputs(language, name) -> None:
    offenders = [
        f"cell {index}: outputs={len(cell.outputs)}, "
        f"execution_count={cell.execution_count}"
        for index, cell in enumerate(read(language, name).cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count)
    ]
    assert not offenders, (
        f"{language}/{name} holds outputs (clear them: the build makes them):\n"
        + "\n".join(offenders)
    )


@pytest.mark.parametrize(("language", "name"), ALL)
def test_markdown_cells_are_in_the_notebooks_language(language, name) -> None:
    offenders = []
    for index, source in cells(language, name, "markdown"):
        prose = re.sub(r"`[^`]*`", "", source)
        if not HAN.search(prose) and not KANA.search(prose):
            offenders.append(f"cell {index}: no Japanese or Chinese text")
        elif language == "ja" and not KANA.search(prose):
            offenders.append(f"cell {index}: no kana in a Japanese cell")
        elif language != "ja" and KANA.search(prose):
            offenders.append(
                f"cell {index}: kana in a Chinese cell: {KANA.search(prose)[0]}"
            )
    assert not offenders, f"{language}/{name}:\n" + "\n".join(offenders)


@pytest.mark.parametrize(("language", "name"), ALL)
def test_markdown_cells_write_math_for_jupyter(language, name) -> None:
    """Formulas use Jupyter's $ … $, which Jupyter and the book both typeset."""
    offenders = []
    for index, source in cells(language, name, "markdown"):
        prose = re.sub(r"`[^`]*`", "", source)
        outside_math = re.sub(r"\$\$.+?\$\$|\$[^$\n]+?\$", "", prose, flags=re.DOTALL)
        for pattern in (BOOK_MATH, BARE_TEX):
            offenders += [
                f"cell {index}: {m[0]!r}" for m in pattern.finditer(outside_math)
            ]
    assert not offenders, (
        f"{language}/{name}: write formulas as $ … $ in a Markdown cell:\n"
        + "\n".join(offenders)
    )


def page_anchors(path: Path) -> set[str]:
    return {
        ANCHOR.search(line)["id"]
        for _, line in prose_lines(path)
        if HEADING.match(line) and ANCHOR.search(line)
    }


@pytest.mark.parametrize(("language", "name"), ALL)
def test_links_to_pages_resolve(language, name) -> None:
    """Relative links name a page of the same language and one of its anchors."""
    offenders, links = [], 0
    folder = (DOCS / language / name).parent
    for index, source in cells(language, name, "markdown"):
        for match in MD_LINK.finditer(source):
            target = match["target"]
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            links += 1
            path, _, anchor = target.partition("#")
            page = (folder / path).resolve()
            if not page.is_file() or page.suffix not in (".md", ".ipynb"):
                offenders.append(f"cell {index}: {target}: no such page")
            elif anchor and page.suffix == ".md" and anchor not in page_anchors(page):
                offenders.append(f"cell {index}: {target}: no such anchor")
    assert links, f"{language}/{name} links to no page of the book"
    assert not offenders, f"{language}/{name}:\n" + "\n".join(offenders)
