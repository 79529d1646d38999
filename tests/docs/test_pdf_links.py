"""The links to the PDFs (stages/book.py) without a build: the home and about
pages speak of an edition's PDF only in a build whose site gets the PDFs
(``make pdf``: ``BOOK_PDF=1``), so that no build links a file it lacks
(tests/site/test_site.py checks every link of the built site)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from attention_book.stages import book

from ..site.helpers import DERIVED, LANGUAGES, ROOT

PAGES = ("index.md", "about.md")


def markdown_of(language: str, name: str, monkeypatch, with_pdf: bool) -> str:
    """The page's Markdown as the book hook hands it on to the next hook."""
    if with_pdf:
        monkeypatch.setenv("BOOK_PDF", "1")
    else:
        monkeypatch.delenv("BOOK_PDF", raising=False)
    docs_dir = ROOT / "docs" / DERIVED.get(language, language)
    config = SimpleNamespace(docs_dir=str(docs_dir), theme={"language": language})
    source = (docs_dir / name).read_text(encoding="utf-8")
    return book.on_page_markdown(source, None, config, None)


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_build_without_the_pdfs_does_not_speak_of_them(
    monkeypatch, language, name
) -> None:
    page = markdown_of(language, name, monkeypatch, with_pdf=False)
    assert ".pdf)" not in page and "book-pdf" not in page
    # Only the paragraph about the PDF is gone.
    full = markdown_of(language, name, monkeypatch, with_pdf=True)
    [paragraph] = [p for p in full.split("\n\n") if "book-pdf" in p]
    assert page.replace("\n", "") == full.replace(paragraph, "").replace("\n", "")


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_build_with_the_pdfs_links_the_editions_own(
    monkeypatch, language, name
) -> None:
    page = markdown_of(language, name, monkeypatch, with_pdf=True)
    links = [
        word
        for word in page.split("(")
        if word.startswith("attention-") and word.split(")")[0].endswith(".pdf")
    ]
    assert [link.split(")")[0] for link in links] == [f"attention-{language}.pdf"]
