"""Every chapter's notebook: linked from its page, the same code, and it runs.

The notebooks are made from the pages while the book is built
(stages/notebooks.py). Each one holds, under its code cells, the outputs that
its page shows; those outputs come from the examples under docs_src/, which
the doctests check. Here the notebooks of one edition are executed in fresh
kernels (two chapters' in ``make test``, every chapter's in the exhaustive
tier), and every printed output is compared with the page's: a notebook
whose cells were split, ordered or copied wrongly fails, and so does one
whose code no longer runs. The code cells are the same in every edition, so
executing one edition is enough; that they are the same is checked too.
"""

from __future__ import annotations

import asyncio
import copy
import io
import re
import tokenize
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from attention_book import numbering

from ..docs.test_exercises import CHAPTERS
from .helpers import LANGUAGES, ROOT, sample, selected, tree

EXECUTED = "ja"  # the edition whose notebooks run; the others have the same code
RAW_MATH = re.compile(r"\\\(|\\\)|\\\[|\\\]")
FIGURE = re.compile(r"^figure\(\w+\)$", re.MULTILINE)


def stem(chapter: str) -> str:
    return chapter.removesuffix(".md")


def notebook_path(site: Path, language: str, chapter: str) -> Path:
    return site / language / stem(chapter) / f"{stem(chapter)}.ipynb"


def load(site: Path, language: str, chapter: str) -> nbformat.NotebookNode:
    return nbformat.read(notebook_path(site, language, chapter), as_version=4)


def code(notebook) -> list[str]:
    return [c.source for c in notebook.cells if c.cell_type == "code"]


def text_of(outputs) -> tuple[str, set[str]]:
    """What a cell's outputs say as text, and the kinds of output it has.

    Printed text and a shown value count alike: whether a call prints or
    returns what the page shows cannot be told from the page.
    """
    parts, kinds = [], set()
    for output in outputs:
        kind = output.output_type
        if kind == "stream":
            kinds.add(f"stream:{output.name}")
            parts.append(output.text)
        elif kind == "error":
            kinds.add(kind)
            parts.append(f"{output.ename}: {output.evalue}")
        else:  # execute_result, display_data
            kinds |= {f"data:{mime}" for mime in output.data}
            if "image/png" not in output.data and "text/plain" in output.data:
                parts.append(output.data["text/plain"])
    return " ".join(" ".join(parts).split()), kinds


async def _execute(notebooks: list, workers: int) -> list:
    limit = asyncio.Semaphore(workers)

    async def run(notebook):
        async with limit:
            client = NotebookClient(
                notebook, timeout=300, kernel_name="python3", allow_errors=False
            )
            await client.async_execute()
            return notebook

    return await asyncio.gather(*(run(nb) for nb in notebooks))


#: The notebooks ``make test`` runs: one with a language model and a tokenizer
#: library, one with figures and an error the page shows. The exhaustive tier
#: runs every chapter's.
RUN_IN_EVERY_TIER = ["tokens.md", "masks.md"]


@pytest.fixture(scope="session")
def executed(site: Path, request) -> dict[str, tuple]:
    """The notebooks this run's tests check, as built and after running them."""
    chapters = sorted(selected(request.session, "executed", "chapter"))
    built = [load(site, EXECUTED, chapter) for chapter in chapters]
    # In a thread of its own: the browser tests' Playwright (sync API) keeps
    # an event loop running in this one for the whole session.
    with ThreadPoolExecutor(max_workers=1) as thread:
        copies = [copy.deepcopy(nb) for nb in built]
        ran = thread.submit(asyncio.run, _execute(copies, workers=2)).result()
    return dict(zip(chapters, zip(built, ran, strict=True), strict=True))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_links_its_notebook(site: Path, language: str, chapter: str):
    path = notebook_path(site, language, chapter)
    assert path.is_file(), f"{language}/{chapter}: no notebook {path.name}"
    nbformat.validate(nbformat.read(path, as_version=4))
    page = tree(site / language / stem(chapter) / "index.html")
    links = page.cssselect("div.book-notebook a[download]")
    assert [a.get("href") for a in links] == [path.name]
    # Right under the chapter's title, and left out of the search index.
    (block, *_) = page.cssselect("div.book-notebook")
    assert next(block.itersiblings("*", preceding=True)).tag == "h1"
    assert "data-search-exclude" in block.attrib


@pytest.mark.parametrize("language", LANGUAGES)
def test_only_chapters_have_notebooks(site: Path, language: str):
    found = {p.parent.name for p in (site / language).rglob("*.ipynb")}
    assert found == {stem(c) for c in CHAPTERS}


EDITION_NAME = re.compile(r"(?<![\w])(ja|zh-Hant|zh-Hans)(?![\w])")


def _language_neutral(source: str) -> str:
    """``source`` with its strings of an edition's language (or an edition's
    name) as ``"…"``: the examples of an edition's own folder differ there."""
    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string
        if token.type == tokenize.STRING and (
            not text.isascii() or EDITION_NAME.search(text)
        ):
            text = '"…"'  # "ja", "lm-zh-Hant.json", f"lm-ja-{scaling}.json", a sentence
        out.append((token.type, text))
    return tokenize.untokenize(out)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_cells_are_the_same_in_every_edition(site: Path, chapter: str):
    cells = {
        lang: [_language_neutral(c) for c in code(load(site, lang, chapter))]
        for lang in LANGUAGES
    }
    reference = cells[EXECUTED]
    assert len(reference) >= 3
    for language, sources in cells.items():
        assert sources == reference, f"{language}/{chapter}: other code cells"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_markdown_cells_are_jupyter_markdown(site: Path, language: str, chapter: str):
    notebook = load(site, language, chapter)
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    text = "\n".join(markdown)
    # Jupyter typesets $…$ and $$…$$; \( and \[ would show as brackets.
    assert not RAW_MATH.search(re.sub(r"`[^`]*`", "", text))
    assert "--8<--" not in text and "{ #" not in text
    assert not re.search(r"^(?:!!!|\?\?\?)", text, re.MULTILINE)
    # Links go to the online book, not to Markdown files beside the notebook.
    assert not re.search(r"\]\((?!https?://)[^)]*\)", text.replace("](data:", ""))
    assert markdown[0].startswith("# ")


@pytest.mark.parametrize("language", LANGUAGES)
def test_exercises_come_with_their_solutions_at_the_end(site: Path, language: str):
    for chapter in CHAPTERS:
        notebook = load(site, language, chapter)
        headings = [
            line
            for cell in notebook.cells
            if cell.cell_type == "markdown"
            for line in cell.source.split("\n")
            if line.startswith("## ")
        ]
        exercises = [
            line
            for cell in notebook.cells
            if cell.cell_type == "markdown"
            for line in cell.source.split("\n")
            if re.match(r"### \d+\. ", line)
        ]
        # Each exercise's heading: once in the exercises, once in the solutions
        # (at least three exercises; an appendix, at least one).
        least = 2 if chapter in numbering.APPENDICES else 6
        assert len(exercises) >= least and len(exercises) % 2 == 0, chapter
        half = len(exercises) // 2
        assert exercises[:half] == exercises[half:], chapter
        assert len(headings) >= 3, chapter


@pytest.mark.notebooks
@pytest.mark.parametrize("chapter", sample(CHAPTERS, RUN_IN_EVERY_TIER))
def test_notebook_runs_and_prints_what_the_page_prints(executed, chapter: str):
    built, ran = executed[chapter]
    first = next(c for c in built.cells if c.cell_type == "code")
    assert "import attention_docs" in first.source
    checked = 0
    for before, after in zip(built.cells, ran.cells, strict=True):
        if before.cell_type != "code":
            continue
        expected, expected_kinds = text_of(before.outputs)
        actual, kinds = text_of(after.outputs)
        where = f"{chapter}, cell:\n{before.source}"
        assert "stream:stderr" not in kinds, f"{where}\nwrote to stderr: {actual}"
        if FIGURE.search(before.source.rsplit("\n", 1)[-1]):
            assert "data:image/png" in kinds, f"{where}\ndrew no figure"
            continue
        assert actual == expected, where
        assert ("error" in kinds) == ("error" in expected_kinds), where
        checked += bool(expected)
    assert checked >= 3, f"{chapter}: too few outputs to compare"


#: Each interactive figure and the chapter that shows it (read from the pages).
EXPLORABLES = {
    match[1]: path.stem
    for path in sorted((ROOT / "docs" / "ja").glob("*.md"))
    for match in re.finditer(
        r'<div class="explorable" data-explorable="([a-z_]+)"></div>',
        path.read_text(encoding="utf-8"),
    )
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_interactive_figure_is_a_link_to_its_page(site, language) -> None:
    """A notebook cannot run the page's figure: it names it and links to it."""
    assert len(EXPLORABLES) >= 6
    for name, chapter in EXPLORABLES.items():
        cells = load(site, language, f"{chapter}.md").cells
        prose = "\n".join(c.source for c in cells if c.cell_type == "markdown")
        assert '<div class="explorable"' not in prose, (name, "placeholder left")
        # The figure's default state, its controls as the values they hold.
        figure = re.search(
            rf'<section [^>]*id="explorable-{name}".*?</section>', prose, re.S
        )
        assert figure and re.search(r"<(table|dl)\b", figure[0]), name
        assert not re.search(r"<(input|select|button|script)\b", figure[0]), name
        # a link of the figure (softmax: to the temperature) leads to the site
        for href in re.findall(r'<a\b[^>]*\bhref="([^"]*)"', figure[0]):
            assert href.startswith("http"), (name, href)
        links = re.findall(rf"\[[^\]]+\]\((\S+)#explorable-{name}\)", prose)
        assert len(links) == 1, (name, links)
        assert links[0].startswith("http") and links[0].endswith(
            f"/{language}/{chapter}/"
        ), (name, links)
        # and the page has the figure there
        page = tree(site / language / chapter / "index.html")
        assert page.cssselect(f"#explorable-{name}"), name
