"""The book's build tooling: code shared by its MkDocs hooks, scripts and tests.

This is not part of the numpy package's API (that is ``attention_docs``): it
is the code that builds and checks the book, written once and imported by
``hooks/``, ``scripts/``, ``conftest.py`` and ``tests/``. It is used from the
repository's checkout (``src/`` on the path, as the editable install puts it),
and reads the repository's files: ``ROOT`` is that checkout.

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
