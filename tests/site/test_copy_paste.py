"""What a code block's copy button copies runs as a script and in a REPL.

Readers copy an example and either run it as a script or paste it into a
Python prompt, where it arrives line by line. The prompt is stricter: a blank
line must end every compound statement (``with``, ``for``, ``def``,
``class`` ...) before a dedented line, and a blank line inside one ends it too
early. So every distinct copy of every edition is run both ways here, in the
exhaustive tier: every copy the Japanese edition shows (the examples every
edition shares, and its own), and the copies only the Chinese editions show
(their own sentences and models). ``make test`` reads every Japanese copy's
statements as the prompt groups them, and runs the copies of a few pages
(``RUN_FROM``) pasted into the prompt.

What the button copies is worked out from the built HTML with Material's own
rule (``copied_text``, tests/copying.py); ``tests/browser/test_copy.py``
checks that rule against the real clipboard in Chromium.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from ..copying import (
    copied_text,
    describe,
    language_of,
    paste_into_prompt,
    run_as_script,
    shown_exceptions,
    shown_output,
)
from .helpers import selected, soups

#: Material gives every ``pre > code`` of a page's content a copy button
#: (components/content/_/index.ts: ``pre:not(.mermaid) > code``).
CODE = "pre:not(.mermaid) > code"
#: pymdownx.highlight's blocks ("language-sh highlight").
HIGHLIGHTED = "div.highlight"
PRE_CODE = re.compile(r"<pre\b[^>]*>(?:(?!</pre>).)*?<code\b", re.DOTALL)
#: Languages whose copies are Python, and those that are not and are skipped.
PYTHON = {"pycon", "python"}
NOT_PYTHON = {"sh"}  # shell commands (about.md, index.md): nothing to run


# -- running it ----------------------------------------------------------------


@dataclass
class Block:
    where: str  # the first page and block that shows this copy
    language: str
    displayed: str  # the text on the page, prompts and output included
    copied: str


def code_elements(page: Path) -> list[Tag]:
    """The ``<code>`` of every code block of ``page`` with a copy button.

    Reading only the highlighted blocks with BeautifulSoup (``soups``) keeps
    this fast on pages full of typeset math; the count of ``<pre>…<code`` in
    the raw HTML makes sure that no copyable block is left out that way.
    """
    html = page.read_text(encoding="utf-8")
    elements = [
        code for block in soups(page, HIGHLIGHTED) for code in block.select(CODE)
    ]
    assert len(elements) == len(PRE_CODE.findall(html)), (
        f"{page}: a code block outside a highlighted block"
    )
    return elements


def copyable_blocks(site: Path, pages: dict[str, list[Path]]) -> dict[str, Block]:
    """Every distinct copy of every edition (they show the same examples)."""
    blocks: dict[str, Block] = {}
    for language_pages in pages.values():
        for page in language_pages:
            for number, element in enumerate(code_elements(page), 1):
                copied = copied_text(element)
                where = f"{page.relative_to(site).as_posix()} block {number}"
                blocks.setdefault(
                    copied,
                    Block(where, language_of(element), element.get_text(), copied),
                )
    return blocks


@pytest.fixture(scope="module")
def blocks(site: Path, pages, request) -> dict[str, Block]:
    """The copies of every edition, or of the Japanese one (listed first, so
    its copies are the same) when no selected test asks for the others'."""
    if "zh" not in selected(request.session, "blocks", "group"):
        pages = {"ja": pages["ja"]}
    return copyable_blocks(site, pages)


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader's empty folder, and a matplotlib that draws without a screen."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")


def python_blocks(blocks: dict[str, Block]) -> list[Block]:
    unknown = {block.language for block in blocks.values()} - PYTHON - NOT_PYTHON
    assert not unknown, f"copyable blocks of an unchecked language: {unknown}"
    return [block for block in blocks.values() if block.language in PYTHON]


def test_every_edition_has_copyable_python_and_shell(blocks) -> None:
    languages = {block.language for block in blocks.values()}
    assert languages == PYTHON | NOT_PYTHON
    assert len(python_blocks(blocks)) >= 60


#: The copies each tier runs: those the Japanese edition shows (a copy is
#: counted where it is first shown, the editions in LANGUAGES' order), then
#: those only the Chinese editions show. make test runs the copies of a few
#: Japanese pages (``RUN_FROM``) and reads every other one's statements
#: (``test_every_copy_pastes_as_whole_statements``); the examples themselves
#: run as doctests.
SHOWN_FIRST_IN = [
    pytest.param("ja-sample", id="ja-sample"),
    pytest.param("ja", id="ja", marks=pytest.mark.exhaustive),
    pytest.param("zh", id="zh-only", marks=pytest.mark.exhaustive),
]
#: Pages whose copies hold continuation lines, blank lines inside blocks,
#: tracebacks, plots, a language model and its tokenizer.
RUN_FROM = (
    "ja/scaled-dot-product/",
    "ja/positional-encoding/",
    "ja/masks/",
    "ja/tokens/",
)


def shown_first_in(blocks: dict[str, Block], group: str) -> list[Block]:
    japanese = group in ("ja", "ja-sample")
    chosen = [
        block
        for block in python_blocks(blocks)
        if block.where.startswith("ja/") == japanese
        and (group != "ja-sample" or block.where.startswith(RUN_FROM))
    ]
    assert chosen, f"no copy first shown in {group}"
    if group == "ja-sample":
        shown_on = {block.where.split(" block")[0] for block in chosen}
        assert shown_on >= {page + "index.html" for page in RUN_FROM}, shown_on
    return chosen


def test_every_copy_pastes_as_whole_statements(blocks) -> None:
    """Every Japanese copy, read by the prompt without running it: each line
    lands in the statement it belongs to, and every statement is complete."""
    failures = []
    for block in shown_first_in(blocks, "ja"):
        read = paste_into_prompt(block.copied, run=False)
        shown = [e for e in shown_exceptions(block.displayed) if e == "SyntaxError"]
        got = [type(error).__name__ for error in read.errors]
        if got != shown:
            failures.append(f"{block.where}: {describe(read.errors)}\n{block.copied}")
    assert not failures, "\n\n".join(failures)


#: As a script, a copy runs as it does pasted, but for stopping at its first
#: error: make test pastes copies, the exhaustive tier also runs each as a
#: script.
@pytest.mark.parametrize(
    "group",
    [
        pytest.param(*p.values, id=p.id, marks=pytest.mark.exhaustive)
        for p in SHOWN_FIRST_IN
        if p.id != "ja-sample"
    ],
)
def test_every_copy_runs_as_a_script(blocks, sandbox, group) -> None:
    """As a script, an example runs to its end or to the first error it shows."""
    failures = []
    for block in shown_first_in(blocks, group):
        run = run_as_script(block.copied)
        expected = shown_exceptions(block.displayed)[:1]
        got = [type(error).__name__ for error in run.errors]
        if got != expected:
            failures.append(
                f"{block.where}: expected {expected or 'no error'}, got "
                f"{describe(run.errors)}\n{block.copied}"
            )
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("group", SHOWN_FIRST_IN)
def test_every_copy_runs_pasted_into_the_prompt(blocks, sandbox, group) -> None:
    """Pasted line by line, an example raises just the errors it shows and
    prints (or echoes) just the output it shows."""
    failures = []
    for block in shown_first_in(blocks, group):
        run = paste_into_prompt(block.copied)
        expected = shown_exceptions(block.displayed)
        got = [type(error).__name__ for error in run.errors]
        if got != expected:
            failures.append(
                f"{block.where}: expected {expected or 'no error'}, got "
                f"{describe(run.errors)}\n{block.copied}"
            )
        elif block.language == "pycon":
            printed = [line.rstrip() for line in run.stdout.splitlines()]
            printed = [line for line in printed if line]
            if printed != shown_output(block.displayed):
                failures.append(
                    f"{block.where}: the prompt printed\n{run.stdout}\n"
                    f"but the page shows\n{block.displayed}"
                )
    assert not failures, "\n\n".join(failures)


# -- the checks themselves can fail --------------------------------------------

BLOCK_HTML = (
    '<div class="language-pycon highlight"><pre><span></span><code>'
    '<span id="__span-0-1"><a id="__codelineno-0-1"></a><span class="gp">&gt;&gt;&gt; '
    '</span><span class="k">for</span> i <span class="ow">in</span> (1, 2):\n</span>'
    '<span id="__span-0-2"><a id="__codelineno-0-2"></a><span class="gp">... </span>'
    "    print(i)\n</span>"
    '<span id="__span-0-3"><a id="__codelineno-0-3"></a><span class="go">1</span>\n'
    "</span>"
    '<span id="__span-0-4"><a id="__codelineno-0-4"></a><span class="go">2</span>\n'
    "</span>"
    '<span id="__span-0-5"><a id="__codelineno-0-5"></a><span class="gp">&gt;&gt;&gt; '
    '</span>print(<span class="s2">"done"</span>)\n</span>'
    "</code></pre></div>"
)


def test_copy_rule_drops_prompts_and_output() -> None:
    element = BeautifulSoup(BLOCK_HTML, "html.parser").select_one("pre > code")
    assert copied_text(element) == 'for i in (1, 2):\n    print(i)\nprint("done")'


@pytest.mark.parametrize("run", [True, False], ids=["run", "read"])
def test_prompt_rejects_a_block_without_its_closing_blank_line(run) -> None:
    copied = 'for i in (1, 2):\n    print(i)\nprint("done")'
    assert run_as_script(copied).errors == []
    errors = paste_into_prompt(copied, run).errors
    assert [type(error) for error in errors] == [SyntaxError]
    fixed = paste_into_prompt(copied.replace("\nprint", "\n\nprint"), run)
    assert fixed.errors == []
    assert fixed.stdout == ("1\n2\ndone\n" if run else "")


@pytest.mark.parametrize("run", [True, False], ids=["run", "read"])
def test_prompt_rejects_a_blank_line_inside_a_block(run) -> None:
    copied = "class A:\n    x = 1\n\n    y = 2\n"
    assert run_as_script(copied).errors == []
    errors = paste_into_prompt(copied, run).errors
    assert [type(error) for error in errors] == [IndentationError]


def test_reading_runs_nothing() -> None:
    read = paste_into_prompt('print("ran")\nraise ValueError("ran")', run=False)
    assert read.errors == [] and read.stdout == ""


def test_shown_errors_and_output_are_read_from_the_page() -> None:
    displayed = (
        ">>> f(1)\nTraceback (most recent call last):\n  ...\n"
        "ValueError: no\n\n>>> print(2)\n2\n<BLANKLINE>\n>>> g()\n"
        "Traceback (most recent call last):\nTypeError: no\n"
    )
    assert shown_exceptions(displayed) == ["ValueError", "TypeError"]
    assert shown_output(displayed) == ["2"]
