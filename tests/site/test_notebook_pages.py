"""The notebook pages of the built site: executed, downloadable, self-contained."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import numpy as np
import pytest

from ..unit.test_self_attention import FROM_SCRATCH_VALUES
from .helpers import DERIVED, LANGUAGES, LOCAL_HOST, ROOT, parse, traditional_characters
from .test_site import other_host, resource_urls

NOTEBOOK = "hands-on"
DOWNLOAD_LABELS = {
    "ja": "ノートブックをダウンロード",
    "zh-Hant": "下載筆記本",
    "zh-Hans": "下载笔记本",
}
# The two results, computed independently of the package (the loops of the
# object view and numpy's legacy generator, np.random.seed(42)), at full
# precision; the notebook prints them to 3 decimals.
OUTPUT_VECTOR = [0.25588256, 0.4930077, 0.31917147]
SELF_ATTENTION_ROWS = FROM_SCRATCH_VALUES


def printed(rows) -> str:
    """How numpy prints ``rows`` to 3 decimals, as the notebook does."""
    with np.printoptions(precision=3, suppress=True):
        return str(np.round(np.array(rows), 3))


def page_path(site: Path, language: str) -> Path:
    return site / language / NOTEBOOK / "index.html"


def page_url(language: str) -> str:
    return f"http://{LOCAL_HOST}/{language}/{NOTEBOOK}/"


def local_file(site: Path, url: str) -> Path | None:
    """The built file that ``url`` (absolute, on the local host) names."""
    parts = urlsplit(url)
    if parts.netloc != LOCAL_HOST:
        return None
    path = site / parts.path.lstrip("/")
    return path / "index.html" if path.is_dir() else path


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_page_shows_executed_outputs(site: Path, language: str) -> None:
    soup = parse(page_path(site, language))
    assert soup.find("html").get("lang") == language
    article = soup.select_one("article")
    text = article.get_text()
    assert f"Output vector: {printed(OUTPUT_VECTOR)}" in text
    assert printed(SELF_ATTENTION_ROWS) in text
    charts = [
        img
        for img in article.select(".jp-OutputArea-output img")
        if img.get("src", "").startswith("data:image/png;base64,")
    ]
    assert len(charts) == 2, "the bar chart and the heat map"
    stderr = article.select('[data-mime-type="application/vnd.jupyter.stderr"]')
    assert not stderr, f"{language}: a cell wrote to stderr: {stderr[0].get_text()}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_page_offers_its_notebook_for_download(
    site: Path, language: str
) -> None:
    soup = parse(page_path(site, language))
    links = soup.select("article a[download]")
    assert len(links) == 1, f"{language}: one download link"
    link = links[0]
    assert DOWNLOAD_LABELS[language] in link.get_text()
    target = local_file(site, urljoin(page_url(language), link["href"]))
    assert target is not None and target.suffix == ".ipynb", link["href"]
    assert target.is_file(), f"{language}: {link['href']} is not in the built site"
    if language in DERIVED:
        check_converted_notebook(target, language)
    else:
        source = ROOT / "docs" / language / f"{NOTEBOOK}.ipynb"
        assert target.read_bytes() == source.read_bytes()
    # The link comes before the notebook's content, at the top of the page.
    assert link.find_next("h1") is not None


def check_converted_notebook(target: Path, language: str) -> None:
    """The zh-Hans notebook is the zh-Hant one with Simplified Markdown cells."""
    source = ROOT / "docs" / DERIVED[language] / f"{NOTEBOOK}.ipynb"
    original = json.loads(source.read_text(encoding="utf-8"))
    converted = json.loads(target.read_text(encoding="utf-8"))
    assert converted["metadata"] == original["metadata"]
    assert len(converted["cells"]) == len(original["cells"])
    for before, after in zip(original["cells"], converted["cells"], strict=True):
        assert after["cell_type"] == before["cell_type"]
        assert after.get("id") == before.get("id")
        text = "".join(after["source"])
        if before["cell_type"] == "code":
            assert after == before
        else:
            assert traditional_characters(text) == [], text
            assert text.count("\n") == "".join(before["source"]).count("\n")
    assert converted != original


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_page_loads_nothing_from_another_host(
    site: Path, language: str
) -> None:
    path = page_path(site, language)
    soup = parse(path)
    offenders = [url for url in resource_urls(soup) if other_host(url)]
    assert not offenders, offenders
    scripts = soup.find_all("script")
    assert not [s for s in scripts if s.has_attr("src") and not s["src"].strip()]
    inline = "\n".join(s.get_text() for s in scripts if not s.has_attr("src"))
    for marker in ("cdnjs", "mathjax", "MathJax", "mermaid", "require.js"):
        assert marker not in inline, f"{language}: {marker} in an inline script"


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_links_resolve_to_pages_and_anchors(site: Path, language: str) -> None:
    soup = parse(page_path(site, language))
    links = [
        a["href"]
        for a in soup.select("article .jp-RenderedMarkdown a[href]")
        if "headerlink" not in a.get("class", [])
    ]
    assert links, f"{language}: the notebook links to the book's pages"
    problems = []
    for href in links:
        url = urljoin(page_url(language), href)
        target = local_file(site, url)
        if target is None:
            continue
        if href.endswith((".md", ".ipynb")) or ".md#" in href:
            problems.append(f"{href}: a link to a source file")
        elif not target.is_file():
            problems.append(f"{href}: no such page")
        elif (anchor := urlsplit(url).fragment) and parse(target).find(
            id=anchor
        ) is None:
            problems.append(f"{href}: no such anchor")
    assert not problems, f"{language}:\n" + "\n".join(problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_table_of_contents_links_to_its_headings(
    site: Path, language: str
) -> None:
    soup = parse(page_path(site, language))
    toc = [a["href"] for a in soup.select("nav.md-nav--secondary a[href^='#']")]
    assert len(toc) >= 5, f"{language}: the notebook's sections are in the toc"
    missing = [href for href in toc if soup.find(id=href[1:]) is None]
    assert not missing, f"{language}: toc entries without a heading: {missing}"


def test_notebook_pages_share_their_anchors(site: Path) -> None:
    """Like the book's pages, both languages' notebook pages use the same ids."""
    ids = {
        language: [
            h.get("id")
            for h in parse(page_path(site, language)).select("article h2[id]")
        ]
        for language in LANGUAGES
    }
    reference = ids[next(iter(LANGUAGES))]
    assert reference
    assert all(other == reference for other in ids.values()), ids
