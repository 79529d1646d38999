"""Fixtures shared by the tests of the pages' sources."""

from __future__ import annotations

import markdown
import pytest
from mkdocs.config import load_config

from attention_book import ROOT


@pytest.fixture(scope="session")
def book_markdown():
    """Make a Markdown converter configured as the book's MkDocs build."""
    config = load_config(str(ROOT / "mkdocs.yml"))
    extension_configs = dict(config.mdx_configs)
    snippets = dict(extension_configs.get("pymdownx.snippets", {}))
    snippets["base_path"] = [str(ROOT)]
    extension_configs["pymdownx.snippets"] = snippets
    return lambda: markdown.Markdown(
        extensions=config.markdown_extensions, extension_configs=extension_configs
    )
