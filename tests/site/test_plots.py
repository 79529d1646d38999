"""The built site's figures: drawn at build time, per language and per colour scheme.

stages/plots.py draws every script of docs_src/plots/ and docs_src/diagrams/
into each language's build as assets/<kind>/<name>.svg (light) and
<name>-dark.svg (dark); nothing of the kind is committed. The SVGs keep their
labels as text in the page's language. Each page shows its figures as
numbered <figure>s whose caption and alt text are in the edition's language.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from attention_book import load_yaml
from attention_book.diagrams import MIN_PX, plain, smallest_text_px
from attention_book.stages.notebooks import NOT_CHAPTERS, caption_markdown
from attention_book.stages.plots import caption_html, caption_pieces, caption_text
from attention_book.zh_hans import to_simplified_text
from attention_docs.plotting import THEMES

from .helpers import (
    DERIVED,
    LANGUAGES,
    ROOT,
    text_of,
    traditional_characters,
    tree,
)

KINDS = ("plots", "diagrams")
LABELS = {
    kind: load_yaml(
        (ROOT / "docs_src" / kind / "labels.yml").read_text(encoding="utf-8")
    )
    for kind in KINDS
}
FIGURES = [
    (kind, path.stem)
    for kind in KINDS
    for path in sorted((ROOT / "docs_src" / kind).glob("*.py"))
]
VARIANTS = {"": "#only-light", "-dark": "#only-dark"}
SVG = "{http://www.w3.org/2000/svg}"
FIGURE_WORD = {"ja": "図", "zh-Hant": "圖", "zh-Hans": "图"}
KANA = re.compile(r"[\u3041-\u30ff]")


@functools.cache
def labels(kind: str, name: str, language: str) -> dict:
    """labels.yml's entry; for zh-Hans, the zh-Hant one converted (shared:
    never change it)."""
    if language not in DERIVED:
        return LABELS[kind][name][language]
    convert = to_simplified_text
    return {
        key: [convert(v) for v in value] if isinstance(value, list) else convert(value)
        for key, value in LABELS[kind][name][DERIVED[language]].items()
    }


@functools.cache
def drawn_labels(kind: str, name: str, language: str) -> frozenset[str]:
    strings = set()
    for key, value in labels(kind, name, language).items():
        if key not in ("alt", "caption"):
            strings |= set(value) if isinstance(value, list) else {value}
    # a label of several lines: each line, which the SVG writes as a text
    return frozenset(plain(line) for s in strings for line in s.split("\n"))


def svg_texts(path: Path) -> set[str]:
    root = ET.parse(path).getroot()
    return {"".join(element.itertext()) for element in root.iter(f"{SVG}text")}


def text_fills(path: Path) -> set[str]:
    return set(
        re.findall(r"<text style=\"[^\"]*fill: (#[0-9a-f]{6})", path.read_text())
    )


def check_language(text: str, language: str, what: str) -> None:
    """``text`` is written in ``language``: kana for ja, the right script for zh."""
    assert re.search(r"[\u4e00-\u9fff]", text), what
    assert bool(KANA.search(text)) == (language == "ja"), what
    if language == "zh-Hant":
        assert traditional_characters(text), f"{what}: no Traditional character"
    if language == "zh-Hans":
        assert traditional_characters(text) == [], what


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_both_variants_are_built_with_the_language_labels(
    site, kind, name, language
) -> None:
    light = site / language / "assets" / kind / f"{name}.svg"
    dark = site / language / "assets" / kind / f"{name}-dark.svg"
    for path in (light, dark):
        assert path.is_file(), path
        texts = svg_texts(path)
        missing = {
            label
            for label in drawn_labels(kind, name, language)
            # it begins a text or that text's bracketed part ("BPE（語彙数 2000）")
            if not any(text.startswith(label) or f"（{label}" in text for text in texts)
        }
        assert not missing, f"{path}: {missing}"
        for other in LANGUAGES:
            if other == language:
                continue
            foreign = {
                label
                for label in drawn_labels(kind, name, other)
                - drawn_labels(kind, name, language)
                if any(label in text for text in texts)
            }
            assert not foreign, f"{path} draws {other} labels {foreign}"
        if language == "zh-Hans":
            assert traditional_characters(" ".join(texts)) == [], path
        assert f'xml:lang="{language}"' in path.read_text(encoding="utf-8")
        assert smallest_text_px(path.read_text(encoding="utf-8")) >= MIN_PX - 0.05
    # labels in each theme's text colour (numbers inside heat-map cells excepted)
    assert THEMES["light"]["text"] in text_fills(light) - text_fills(dark)
    assert THEMES["dark"]["text"] in text_fills(dark) - text_fills(light)


@functools.cache
def page_images(site: Path, pages: tuple[Path, ...], language: str) -> list:
    """Each page with its article's images, by (path, fragment) of their source
    (read once per edition, for the 40 figures' tests)."""
    found = []
    for path in pages:
        base = f"http://host/{path.relative_to(site / language).as_posix()}"
        images = {}
        for img in tree(path).cssselect("article img[src]"):
            target = urlsplit(urljoin(base, img.get("src")))
            images[(target.path, target.fragment)] = img
        found.append((path, images))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_a_page_shows_the_numbered_figure_with_caption_and_alt_text(
    site, pages, kind, name, language
) -> None:
    showing = []
    for path, images in page_images(site, tuple(pages[language]), language):
        found = {
            suffix: images.get((f"/assets/{kind}/{name}{suffix}.svg", fragment[1:]))
            for suffix, fragment in VARIANTS.items()
        }
        if any(img is not None for img in found.values()):
            showing.append(path)
            entry = labels(kind, name, language)
            assert {img.get("alt") for img in found.values()} == {entry["alt"]}, path
            check_language(entry["alt"], language, f"{path}: alt of {name}")
            figure = next(found[""].iterancestors("figure"), None)
            assert figure is not None and figure.get("id") == "fig-" + name.replace(
                "_", "-"
            ), path
            assert next(found["-dark"].iterancestors("figure"), None) is figure, path
            caption = next(figure.iterdescendants("figcaption"))
            (number_span, *_) = caption.cssselect(".book-figure-number")
            number = text_of(number_span, sep="")
            words = text_of(caption, ".arithmatex", sep="")[len(number) :].strip()
            assert words == caption_text(entry["caption"]).strip(), path
            # its formulas typeset as the text's (F4 of the round-29 review)
            formulas = [
                tex for kind, tex in caption_pieces(entry["caption"]) if kind == "tex"
            ]
            typeset = caption.cssselect(".arithmatex math annotation")
            assert [a.text for a in typeset] == formulas, path
            check_language(words, language, f"{path}: caption of {name}")
            # 図 6.2 in chapter 6, 図 B.2 in appendix B, 図 2 on the home page
            # (tests/site/test_numbering.py)
            assert re.fullmatch(
                rf"{FIGURE_WORD[language]} ((\d+|[A-Z])\.)?\d+", number
            ), number
    assert len(showing) == 1, f"{name} shown on {showing}"
    if kind == "plots":  # a plot is followed by the code that drew it
        summaries = [
            text_of(s, sep="") for s in tree(showing[0]).cssselect("details > summary")
        ]
        code = "".join(
            text_of(c, sep="") for c in tree(showing[0]).cssselect("details code")
        )
        assert summaries and "def figure(labels: dict) -> Figure:" in code


def page_showing(kind: str, name: str) -> str:
    """The page (``masks.md``) that shows a figure, read from the sources."""
    (page,) = [
        path.name
        for path in sorted((ROOT / "docs" / "ja").glob("*.md"))
        if f"assets/{kind}/{name}.svg" in path.read_text(encoding="utf-8")
    ]
    return page


@functools.cache
def notebook_markdown(edition: Path) -> list[tuple[Path, list[str]]]:
    """Each notebook of an edition's build with the sources of its Markdown
    cells, read once for the figures' tests (the notebooks carry every
    diagram inline: some 0.1 s an edition to read)."""
    notebooks = []
    for path in sorted(edition.rglob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        notebooks.append(
            (
                path,
                [
                    "".join(cell["source"])
                    for cell in cells
                    if cell["cell_type"] == "markdown"
                ],
            )
        )
    return notebooks


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_the_chapter_notebook_carries_the_figure(site, kind, name, language) -> None:
    """A diagram is an image of its chapter's notebook, a plot the cell of its
    script; both with their numbered caption. Pages without a notebook (the
    home and notation pages) have none to carry it."""
    page = page_showing(kind, name)
    caption = caption_markdown(caption_html(labels(kind, name, language)["caption"]))
    found = []
    for path, markdown_cells in notebook_markdown(site / language):
        for source in markdown_cells:
            if source.endswith(caption):
                found.append(path)
                assert re.search(rf"\*\*{FIGURE_WORD[language]} [\dA-Z.]+\*\* ", source)
                if kind == "diagrams":
                    assert "](data:image/svg+xml;base64," in source
    if page in NOT_CHAPTERS:
        assert found == [], (name, found)
    else:
        assert [path.parent.name for path in found] == [page.removesuffix(".md")]


def test_figures_are_generated_not_committed(site) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "*.svg"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    generated = [path for path in tracked if "/plots/" in path or "/diagrams/" in path]
    assert not generated, tracked
    assert not list((ROOT / "docs").rglob("assets/plots"))
    assert not list((ROOT / "docs").rglob("assets/diagrams"))
    for kind, name in FIGURES:
        svgs = {
            (site / language / "assets" / kind / f"{name}.svg").read_text()
            for language in LANGUAGES
        }
        assert len(svgs) == len(LANGUAGES), name
