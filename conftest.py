"""Sybil: the book's examples are tests.

- Every ``docs_src/**/*.pycon`` example runs as a doctest, its printed output
  checked.
- Every fenced ``pycon`` or ``python`` block of every page ``docs/**/*.md``
  runs too, with its ``--8<--`` includes (of ``docs_src/`` or ``src/``)
  expanded as ``pymdownx.snippets`` expands them (``attention_book.snippets``),
  exactly as readers see the block. Each block runs in a
  fresh namespace: a reader who copies one block gets code that runs alone.
  A failure names the page and the line of the block. A block that is
  nothing but whole ``docs_src/*.pycon`` files is the same code as those
  files, which run on their own: it is not run again for each edition.
"""

from __future__ import annotations

import doctest
import io
from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer
from sybil.parsers.rest import DocTestParser

from attention_book import snippets
from attention_book.threads import one_blas_thread

# One BLAS thread per test process. The suite runs a worker per core
# (pytest-xdist) beside the browsers; OpenBLAS's default of a thread per core
# in every worker oversubscribes the cores, and its threads spin while they
# wait: the language model's examples took three times as long (measured:
# docs_src/attention_maps, generation, language_model, tokens and
# tests/unit/test_language_model.py on two workers, 57-79 s against 21-25 s).
# Set here, before anything imports numpy (the imports above do not), so
# that the workers and the site build they start inherit it; a value given
# by the caller is kept.
one_blas_thread()


def only_example_files(source: str) -> bool:
    """Whether a block only includes whole ``docs_src/*.pycon`` files."""
    lines = [line for line in source.splitlines() if line.strip()]
    found = snippets.includes(source)
    return (
        bool(lines)
        and len(found) == len(lines)
        and all(
            include.section is None
            and include.path.startswith("docs_src/")
            and include.path.endswith(".pycon")
            for include in found
        )
    )


def run_doctest(source: str, name: str) -> str | None:
    test = doctest.DocTestParser().get_doctest(source, {}, name, name, 0)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.REPORT_NDIFF)
    runner.run(test, out=report.write, clear_globs=True)
    return report.getvalue() or None


class BookCodeBlockParser:
    """Evaluates the ``pycon`` and ``python`` fenced blocks of a page."""

    languages = ("pycon", "python", "py")

    def __init__(self) -> None:
        self.lexer = FencedCodeBlockLexer(
            language=r".+", mapping={"language": "info", "source": "source"}
        )

    def __call__(self, document):
        for region in self.lexer(document):
            info = region.lexemes["info"].split()
            if info and info[0] in self.languages:
                if only_example_files(str(region.lexemes["source"])):
                    continue
                region.parsed = (info[0], str(region.lexemes["source"]))
                region.evaluator = self.evaluate
                yield region

    @staticmethod
    def evaluate(example: Example) -> str | None:
        language, source = example.parsed
        code = snippets.expand(source)
        name = f"{example.path}:{example.line}"
        if language == "pycon" or code.lstrip().startswith(">>>"):
            return run_doctest(code, name)
        exec(compile(code, name, "exec"), {"__name__": "__book__"})
        return None


pytest_collect_file = (
    Sybil(parsers=[DocTestParser()], patterns=["*.pycon"], path="docs_src")
    + Sybil(parsers=[BookCodeBlockParser()], patterns=["*.md"], path="docs")
).pytest()

#: The folders of a chapter's per-edition examples
#: (``docs_src/<chapter>/<edition>/``): the sentences, corpus and language
#: model of the edition's own language. The Chinese copies have the code of
#: the Japanese one (tests/site/test_notebooks.py), with the edition's words.
EDITION_COPIES = ("ja", "zh-Hant", "zh-Hans")


def pytest_itemcollected(item) -> None:
    """The per-edition examples are marked ``slow``, the Chinese copies also
    ``exhaustive``: ``make quick`` runs the package's own examples and leaves
    these (which run a trained language model over its corpus) to the other
    tiers; ``make test`` runs the Japanese copy of each, ``make
    test-exhaustive`` (and so ``.ci/run``) the copies of both Chinese
    editions."""
    path = Path(item.path)
    if path.suffix == ".pycon" and path.parent.name in EDITION_COPIES:
        item.add_marker("slow")
        if path.parent.name != "ja":
            item.add_marker("exhaustive")
