"""How a page becomes a notebook (stages/notebooks.py), on small inputs.

The built notebooks themselves are checked, and executed, in
tests/site/test_notebooks.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import nbformat
import pytest
from mkdocs.exceptions import PluginError

from attention_book.stages import notebooks

SITE = "https://example.org/book/ja/"


class FakeFiles:
    """The book's pages, as MkDocs' Files answers for them."""

    def get_file_from_path(self, path: str):
        if path in ("softmax.md", "masks.md"):
            return SimpleNamespace(url=path.removesuffix(".md") + "/")
        return None


def converter(src_uri: str = "masks.md") -> notebooks.Converter:
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri=src_uri), url=src_uri.removesuffix(".md") + "/"
    )
    config = SimpleNamespace(theme={"language": "ja"}, site_url=SITE, site_name="Book")
    return notebooks.Converter(page, config, FakeFiles())


def test_a_cell_ends_at_each_statement_that_prints():
    cells = notebooks.pycon_cells(
        ">>> import numpy as np\n"
        ">>> x = np.arange(3)\n"
        ">>> print(x)\n"
        "[0 1 2]\n"
        ">>> x.sum()\n"
        "np.int64(3)\n"
        ">>> y = x + 1\n",
        "example",
    )
    assert [c["source"] for c in cells] == [
        "import numpy as np\nx = np.arange(3)\nprint(x)",
        "x.sum()",
        "y = x + 1",
    ]
    assert cells[0]["outputs"] == [
        {"output_type": "stream", "name": "stdout", "text": "[0 1 2]\n"}
    ]
    assert cells[1]["outputs"][0]["output_type"] == "execute_result"
    assert cells[1]["outputs"][0]["data"] == {"text/plain": "np.int64(3)"}
    assert cells[2]["outputs"] == []


def test_a_compound_statement_and_a_blank_line_of_output():
    cells = notebooks.pycon_cells(
        ">>> for i in range(2):\n...     print(i)\n...     print()\n0\n<BLANKLINE>\n1\n"
        "<BLANKLINE>\n",
        "example",
    )
    assert cells[0]["source"] == "for i in range(2):\n    print(i)\n    print()"
    assert cells[0]["outputs"][0]["text"] == "0\n\n1\n\n"


def test_an_example_that_raises_is_tagged_to_go_on():
    cells = notebooks.pycon_cells(
        ">>> int('x')\n"
        "Traceback (most recent call last):\n"
        "    ...\n"
        "ValueError: invalid literal for int() with base 10: 'x'\n",
        "example",
    )
    (cell,) = cells
    assert cell["metadata"] == {"tags": ["raises-exception"]}
    (error,) = cell["outputs"]
    assert error["ename"] == "ValueError"
    assert error["evalue"] == "invalid literal for int() with base 10: 'x'"


def test_maths_links_and_dollars_in_prose():
    text = converter().prose(
        "## Weights { #weights }\n\n"
        r"A row of \(A\) costs $3, see [softmax](softmax.md#stability), "
        "[below](#padding) and `\\(code\\)`:\n\n\\[\nA = QK^\\top\n\\]"
    )
    assert text == (
        "## Weights\n\n"
        r"A row of $A$ costs \$3, see "
        f"[softmax]({SITE}softmax/#stability), [below]({SITE}masks/#padding) "
        "and `\\(code\\)`:\n\n$$\nA = QK^\\top\n$$"
    )


def test_a_link_whose_text_holds_code_leads_to_the_online_book():
    text = converter().prose("see [the note on `scaled=True`](#note), not `[x](y.md)`")
    assert text == (
        f"see [the note on `scaled=True`]({SITE}masks/#note), not `[x](y.md)`"
    )


def test_a_link_to_a_missing_page_fails():
    with pytest.raises(PluginError, match="not a page"):
        converter().prose("[gone](gone.md)")


def test_admonitions_hints_and_solutions():
    c = converter()
    cells = c.convert(
        [
            "### 1. Sum { #exercise-sum }",
            "",
            "Show it.",
            "",
            '??? tip "ヒント"',
            "",
            r"    Use \(x\).",
            "",
            '??? success "解答"',
            "",
            "    It is.",
            "",
            "    ```pycon",
            "    >>> print(1 + 1)",
            "    2",
            "    ```",
            "",
            '!!! warning "Careful"',
            "    Not a norm.",
        ],
        "example",
    )
    sources = [cell["source"] for cell in cells]
    assert sources == [
        "### 1. Sum\n\nShow it.",
        "<details>\n<summary>ヒント</summary>\n\nUse $x$.\n\n</details>",
        "> **Careful**\n>\n> Not a norm.",
    ]
    ((exercise, solution),) = c.solutions
    assert exercise == "### 1. Sum { #exercise-sum }"
    assert [cell["cell_type"] for cell in solution] == ["markdown", "code"]
    assert solution[1]["source"] == "print(1 + 1)"


def test_a_paragraph_anchor_in_a_box_is_left_to_the_online_page():
    cells = converter().convert(
        [
            '!!! note "Rules"',
            "",
            "    First paragraph.",
            "    { #reading-differences }",
            "",
            "    Second.",
        ],
        "example",
    )
    assert [cell["source"] for cell in cells] == [
        "> **Rules**\n>\n> First paragraph.\n>\n> Second."
    ]


def test_a_plot_script_draws_its_figure_in_the_cell():
    script = (
        "def figure(labels):\n    return labels\n\n\n"
        'if __name__ == "__main__":\n'
        '    english = {"title": "T"}\n'
        "    print(to_svg(figure(english)))\n"
    )
    cell = notebooks.plot_cell(script, "plot")
    assert cell["source"] == (
        "def figure(labels):\n    return labels\n\n"
        'english = {"title": "T"}\nfigure(english)'
    )
    with pytest.raises(PluginError):
        notebooks.plot_cell("def figure(labels):\n    pass\n", "plot")


def test_a_figure_carries_its_colours():
    svg = notebooks.standalone_svg(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 445">'
        '<rect class="fig2-block fig2-matmul"/></svg>'
    )
    assert 'width="240" height="445"' in svg
    assert "--fig2-matmul: #fbfbfb" in svg
    assert ".fig2-matmul { fill: var(--fig2-matmul); }" in svg


CHAPTER = (
    "# Masks\n\n"
    "Some keys must be hidden.\n\n"
    "```pycon\n>>> print(1 + 1)\n2\n>>> 3 * 3\n9\n>>> int('x')\n"
    "Traceback (most recent call last):\n    ...\n"
    "ValueError: invalid literal for int() with base 10: 'x'\n```\n\n"
    "## Exercises\n\n### 1. Sum\n\nShow it.\n\n"
    '??? success "Solution"\n\n    It is.\n'
)


def built_notebook(tmp_path, markdown: str = CHAPTER) -> str:
    """The file a build writes for a chapter, as text (on_page_markdown, then
    on_post_page, as MkDocs calls them)."""
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri="masks.md", dest_uri="masks/index.html"),
        url="masks/",
        is_page=True,
    )
    config = SimpleNamespace(
        theme={"language": "ja"},
        site_url=SITE,
        site_name="Book",
        repo_url="",
        site_dir=str(tmp_path),
    )
    notebooks.on_page_markdown(markdown, page, config, FakeFiles())
    notebooks.on_post_page("<html></html>", page, config)
    return (tmp_path / "masks" / "masks.ipynb").read_text(encoding="utf-8")


def test_the_notebook_is_made_by_nbformat_and_valid(tmp_path):
    c = converter()
    notebook = c.notebook(CHAPTER, None)
    assert isinstance(notebook, nbformat.NotebookNode)
    assert all(isinstance(cell, nbformat.NotebookNode) for cell in notebook.cells)
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5)
    nbformat.validate(notebook)
    outputs = [cell.outputs for cell in notebook.cells if cell.cell_type == "code"]
    kinds = [[output.output_type for output in cell] for cell in outputs]
    assert kinds == [[], ["stream"], ["execute_result"], ["error"]]
    # What the file holds reads back as the same notebook.
    assert nbformat.reads(built_notebook(tmp_path), as_version=4) == notebook


def test_the_notebook_is_the_same_bytes_at_every_build(tmp_path):
    """nbformat gives every new cell a random id; the notebook's ids come
    from the cells themselves, so two builds write the same file."""
    first = built_notebook(tmp_path / "first")
    second = built_notebook(tmp_path / "second")
    assert first == second
    cells = nbformat.reads(first, as_version=4).cells
    ids = [cell.id for cell in cells]
    assert ids == [
        notebooks._cell_id(cell.cell_type, cell.source, i)
        for i, cell in enumerate(cells)
    ]
    assert len(set(ids)) == len(ids)


def test_an_invalid_notebook_fails_the_build_naming_its_page(tmp_path):
    notebook = converter().notebook(CHAPTER, None)
    notebook["cells"][1]["outputs"] = []  # a Markdown cell has no outputs
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri="masks.md", dest_uri="masks/index.html"),
        url="masks/",
        notebook={"name": "masks.ipynb", "notebook": notebook},
    )
    config = SimpleNamespace(site_dir=str(tmp_path), site_url="https://example.org/ja/")
    with pytest.raises(PluginError, match=r"^masks\.md: the notebook is invalid"):
        notebooks.on_post_page("<html></html>", page, config)
    assert not (tmp_path / "masks" / "masks.ipynb").exists()
