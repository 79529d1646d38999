"""What a code block's copy button copies, and how the copy runs.

Shared by tests/site/test_copy_paste.py, which works out every copy of the
built pages with ``copied_text`` and runs it as a script and pasted into
Python's prompt, and tests/browser/test_copy.py, which checks ``copied_text``
against the real clipboard in Chromium.
"""

from __future__ import annotations

import code
import contextlib
import io
import re
import sys
import warnings
from dataclasses import dataclass

from bs4 import NavigableString, Tag

#: The prompt of a line of code in a ``>>>`` example.
PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")
#: The first line of a traceback, and the line that names its exception.
TRACEBACK = "Traceback (most recent call last):"
EXCEPTION_LINE = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)(:|$)")


# -- what the copy button copies ---------------------------------------------


def _classes(element: Tag) -> list[str]:
    return element.get("class") or []


def _hidden_while_copying(element: Tag, pycon: bool) -> bool:
    """Whether ``element`` is ``display: none`` under ``[data-md-copying]``.

    These are the rules of book.css ("The copy button copies ..."), which
    hide prompts and output; Material's own rule under that attribute hides
    code annotations (``.md-annotation``), which the book does not use.
    """
    if "gp" in _classes(element) or "md-annotation" in _classes(element):
        return True
    if not (element.get("id") or "").startswith("__span-"):
        return False
    children = [child for child in element.children if isinstance(child, Tag)]
    if any("go" in _classes(child) for child in children):
        return True
    return (
        pycon
        and not any("gp" in _classes(child) for child in children)
        and any(child.name != "a" for child in children)
    )


def _visible_text(element: Tag, pycon: bool) -> str:
    parts = []
    for child in element.children:
        if isinstance(child, NavigableString):
            parts.append(str(child))
        elif not _hidden_while_copying(child, pycon):
            parts.append(_visible_text(child, pycon))
    return "".join(parts)


def language_of(code_element: Tag) -> str:
    """``pycon``, ``python``, ``sh`` ... from pymdownx.highlight's class."""
    block = code_element.find_parent(class_="highlight")
    if block is None:  # not highlighted: no language to go by
        return ""
    names = [
        name.removeprefix("language-")
        for name in _classes(block)
        if name.startswith("language-")
    ]
    assert len(names) == 1, f"no single language class: {_classes(block)}"
    return names[0]


def copied_text(code_element: Tag) -> str:
    """What Material's copy button puts on the clipboard for ``code_element``.

    Material (integrations/clipboard/index.ts, ``extract``) sets
    ``[data-md-copying]`` on the ``<code>``, takes its ``innerText`` and
    trims the end. In a ``<pre>`` the innerText is the text of every element
    that is not hidden, whitespace and newlines kept.
    """
    pycon = language_of(code_element) == "pycon"
    return _visible_text(code_element, pycon).rstrip()


# -- what the page shows ---------------------------------------------------------


def shown_exceptions(displayed: str) -> list[str]:
    """The exception of each traceback a ``>>>`` example shows, in order."""
    lines = displayed.splitlines()
    names = []
    for start, line in enumerate(lines):
        if line == TRACEBACK:
            names.append(
                next(
                    match["name"]
                    for after in lines[start + 1 :]
                    if (match := EXCEPTION_LINE.match(after))
                )
            )
    return names


def shown_output(displayed: str) -> list[str]:
    """The output lines a ``>>>`` example shows, tracebacks and blanks left out."""
    output, in_traceback = [], False
    for line in displayed.splitlines():
        if line == TRACEBACK:
            in_traceback = True
        elif in_traceback:
            in_traceback = not EXCEPTION_LINE.match(line)
        elif not PROMPT.match(line) and line.strip() not in ("", "<BLANKLINE>"):
            output.append(line.rstrip())
    return output


# -- running a copy --------------------------------------------------------------


class Console(code.InteractiveConsole):
    """Python's interactive prompt, recording errors instead of printing them."""

    def __init__(self) -> None:
        # The namespace of `python`'s own prompt, where __name__ is __main__.
        super().__init__(locals={"__name__": "__main__"})
        self.errors: list[BaseException] = []

    def showsyntaxerror(self, *args, **kwargs) -> None:
        self.errors.append(sys.exc_info()[1])

    def showtraceback(self) -> None:
        self.errors.append(sys.exc_info()[1])


class ReadingConsole(Console):
    """The prompt reading what is pasted without running it: only how the
    lines group into statements (a blank line ends a compound one)."""

    def runcode(self, code) -> None:
        pass


@dataclass
class Run:
    errors: list[BaseException]
    stdout: str


def paste_into_prompt(copied: str, run: bool = True) -> Run:
    """Paste ``copied`` into the prompt line by line, then press Enter once
    (with ``run=False``, the prompt only reads the statements: see
    ``ReadingConsole``)."""
    console = Console() if run else ReadingConsole()
    stdout = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(stdout):
        warnings.simplefilter("error")  # a warning is an error, as in the tests
        for line in [*copied.split("\n"), ""]:
            console.push(line)
    if console.buffer:  # a statement still waiting for more lines
        console.errors.append(SyntaxError(f"unfinished input: {console.buffer}"))
    return Run(console.errors, stdout.getvalue())


def run_as_script(copied: str) -> Run:
    """Run ``copied`` as ``python script.py`` would, in a fresh namespace."""
    stdout = io.StringIO()
    errors: list[BaseException] = []
    with warnings.catch_warnings(), contextlib.redirect_stdout(stdout):
        warnings.simplefilter("error")
        try:
            exec(compile(copied, "<copied>", "exec"), {"__name__": "__main__"})
        except Exception as error:  # the script stops at its first exception
            errors.append(error)
    return Run(errors, stdout.getvalue())


def describe(errors: list[BaseException]) -> list[str]:
    return [f"{type(error).__name__}: {error}" for error in errors]
