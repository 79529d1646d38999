"""The book's build tooling: its MkDocs plugin, and code its scripts and tests share.

This is not part of the numpy package's API (that is ``attention_docs``): it
is the code that builds and checks the book, written once and imported by
the book's MkDocs plugin (``plugin``, which runs the ``stages`` of the
build), ``scripts/``, ``conftest.py`` and ``tests/``. It is a package of its
own (``tools/pyproject.toml``), installed editable from the repository's
checkout and never published, and reads the repository's files: ``ROOT`` is
that checkout.

- ``snippets``: the ``--8<--`` includes of the pages, read as
  ``pymdownx.snippets`` reads them.
- ``zh_hans``: the conversion of the Traditional Chinese book to Simplified.
- ``editions``: the editions and their MkDocs configurations.
- ``glossary``: the glossary's table, for its pages and for the search.
- ``site``: the build of every edition into one site (``make site``).
- ``browser``: the Chromium that prints the PDFs and runs the browser tests.
- ``diagrams``: the drawing helpers of the book's diagrams (``docs_src/diagrams/``).
"""

from __future__ import annotations

from pathlib import Path

#: The repository the book is built from (the folder of ``mkdocs.yml``).
ROOT = Path(__file__).resolve().parents[2]


def load_yaml(text: str):
    """``text`` read as ``yaml.safe_load`` reads it, by libyaml's C parser when
    PyYAML was built with it (several times faster than the pure-Python one:
    every build and test process reads the book's YAML tables)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
