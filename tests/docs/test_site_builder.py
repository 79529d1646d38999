"""Which program builds the book: MkDocs, or ProperDocs (``BOOK_BUILDER``)."""

from __future__ import annotations

import pytest

from attention_book import site


def test_mkdocs_builds_unless_told_otherwise(monkeypatch) -> None:
    monkeypatch.delenv("BOOK_BUILDER", raising=False)
    assert site.builder() == "mkdocs"
    monkeypatch.setenv("BOOK_BUILDER", "properdocs")
    assert site.builder() == "properdocs"


def test_an_unknown_builder_is_named_in_the_error(monkeypatch) -> None:
    monkeypatch.setenv("BOOK_BUILDER", "zensical")
    with pytest.raises(ValueError, match="BOOK_BUILDER='zensical'"):
        site.builder()


def test_properdocs_is_installed_with_the_book() -> None:
    """make setup installs the extra: the ProperDocs build needs no other step."""
    import importlib.metadata

    assert importlib.metadata.version("properdocs").startswith("1.6.")
