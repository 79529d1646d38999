"""Write the outputs of example files anew (``python -m attention_book.refresh FILE``).

An example file (``docs_src/**/*.pycon``) is a doctest: its outputs are what
the code printed when it was written, and the tests compare them with what it
prints now. After a change that is meant to change them (the language models
retrained, say), this runs each file's statements in order, in one fresh
namespace as the tests do, and writes what each prints in place of the old
output, the statements themselves unchanged. Read the diff before you commit
it: a refreshed output is a claim the book makes.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import sys
import traceback
from pathlib import Path

from .threads import one_blas_thread

# One BLAS thread, as the tests run the examples: with two, a trained
# model's losses differ in their third decimal from what the tests print.
one_blas_thread()

TRACEBACK = "Traceback (most recent call last):"


def _run(source: str, namespace: dict) -> str:
    """What ``source`` prints at Python's prompt (doctest's "single" mode)."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(source, "<example>", "single"), namespace)
    except Exception as error:  # an example that shows an error
        lines = traceback.format_exception_only(type(error), error)
        return (
            out.getvalue()
            + "Traceback (most recent call last):\n    ...\n"
            + "".join(lines)
        )
    return out.getvalue()


def refresh(text: str) -> str:
    """``text`` with every example's output replaced by what it prints now."""
    lines = text.splitlines(keepends=True)
    examples = doctest.DocTestParser().get_examples(text)
    namespace: dict = {"__name__": "__book__"}
    result: list[str] = []
    position = 0
    for example in examples:
        start = example.lineno
        result.extend(lines[position:start])  # text before the example
        count = 1  # the ">>>" line and its "..." lines, bare ones included
        prompt = " " * example.indent + "..."
        while start + count < len(lines) and lines[start + count].rstrip(
            "\n"
        ).startswith(prompt):
            count += 1
        result.extend(lines[start : start + count])  # its statements
        old = example.want.count("\n")
        printed = _run(example.source, namespace).splitlines()
        was = example.want.splitlines()
        if printed[:1] == was[:1] == [TRACEBACK]:
            printed[:2] = was[:2]  # the traceback's header as it was written
        indent = " " * example.indent
        for line in printed:  # doctest's mark for an empty line of output
            result.append(indent + (line or doctest.BLANKLINE_MARKER) + "\n")
        position = start + count + old
    result.extend(lines[position:])
    return "".join(result)


def main(paths: list[str]) -> int:
    for name in paths:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        new = refresh(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"refreshed {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
