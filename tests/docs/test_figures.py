"""Figure 2 of the paper, drawn for the book as SVG and shown inline in every language.

The two drawings live in ``docs_src/figures/`` and are included with
``pymdownx.snippets`` into a raw ``<figure>`` of each language's page, so the
book's stylesheet colours them (light and dark mode) and screen readers get
the English block name from the SVG's ``<title>`` and the description from
the page's own ``<figcaption>``, in the reader's language.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from attention_book import snippets

from .test_pages import ANCHOR, HEADING, prose_lines

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGUAGES = ("ja", "zh-Hant")
CSS = ROOT / "overrides" / "assets" / "stylesheets" / "book.css"
SVG_NS = "{http://www.w3.org/2000/svg}"
REFERENCE = "../references/#vaswani-2017"
CREDIT = {
    "ja": "の図 2 をもとに本書で作図",
    "zh-Hant": "的圖 2 重新繪製",
}

#: figure id (also the section's anchor) -> (SVG, page, block names, inputs)
FIGURES = {
    "figure-2-left": (
        "docs_src/figures/figure-2-scaled-dot-product.svg",
        "scaled-dot-product.md",
        ("Scaled Dot-Product Attention", "MatMul", "Scale", "Mask (opt.)", "SoftMax"),
    ),
    "figure-2-right": (
        "docs_src/figures/figure-2-multi-head.svg",
        "multi-head.md",
        (
            "Multi-Head Attention",
            "Linear",
            "Scaled Dot-Product Attention",
            "Concat",
        ),
    ),
}
#: one colour class per kind of block, as in the paper
BLOCK_KINDS = ("matmul", "scale", "mask", "softmax", "linear", "concat", "attention")
COLOUR_ATTRIBUTES = ("fill", "stroke", "color", "stop-color", "flood-color", "style")


def svg_path(figure: str) -> Path:
    return ROOT / FIGURES[figure][0]


def svg_root(figure: str) -> ET.Element:
    return ET.parse(svg_path(figure)).getroot()


def local(tag: str) -> str:
    return tag.removeprefix(SVG_NS)


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def section(page: Path, anchor: str) -> str:
    """The Markdown of the section whose heading carries ``{ #anchor }``."""
    lines, inside = [], False
    for _, line in prose_lines(page):
        if HEADING.match(line):
            match = ANCHOR.search(line)
            if inside:
                break
            inside = bool(match) and match["id"] == anchor
            continue
        if inside:
            lines.append(line)
    assert lines, f"{page}: no section {{ #{anchor} }}"
    return "\n".join(lines)


PAIRS = [(figure, language) for figure in FIGURES for language in LANGUAGES]


@pytest.mark.parametrize("figure", FIGURES)
def test_svg_parses_and_is_an_accessible_image(figure: str) -> None:
    root = svg_root(figure)
    assert local(root.tag) == "svg"
    assert root.get("role") == "img"
    title = root.find(f"{SVG_NS}title")
    assert title is not None, "the <title> is the svg's first child"
    assert next(iter(root)) is title
    assert title.get("id") == f"{figure}-title"
    assert root.get("aria-labelledby") == f"{figure}-title"
    assert root.get("aria-describedby") == f"{figure}-caption"
    # the title names the block in the paper's English
    assert title.text == FIGURES[figure][2][0]


@pytest.mark.parametrize("figure", FIGURES)
def test_svg_scales_to_the_column(figure: str) -> None:
    root = svg_root(figure)
    assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox", ""))
    assert root.get("width") is None and root.get("height") is None


@pytest.mark.parametrize("figure", FIGURES)
def test_svg_shows_the_papers_block_names(figure: str) -> None:
    labels = [t.text for t in svg_root(figure).iter(f"{SVG_NS}text")]
    for name in FIGURES[figure][2]:
        assert name in labels, name
    assert {"Q", "K", "V"} <= set(labels)


@pytest.mark.parametrize("figure", FIGURES)
def test_svg_is_self_contained(figure: str) -> None:
    """No other host, no script, no style sheet, no font: only the page's CSS."""
    text = svg_path(figure).read_text(encoding="utf-8")
    without_namespace = text.replace('xmlns="http://www.w3.org/2000/svg"', "", 1)
    assert not re.search(r"https?:|//[\w.-]+\.\w", without_namespace)
    assert "@import" not in text and "@font-face" not in text
    ids = set()
    for element in svg_root(figure).iter():
        assert local(element.tag) not in {
            "script",
            "style",
            "foreignObject",
            "image",
            "use",
            "a",
        }, local(element.tag)
        for name, value in element.attrib.items():
            assert not name.startswith("on"), f"event handler {name}"
            assert "href" not in name, f"{local(element.tag)} {name}={value}"
            if "url(" in value:
                assert re.fullmatch(r"url\(#[\w-]+\)", value), value
        if element.get("id"):
            assert element.get("id").startswith(figure + "-"), element.get("id")
            ids.add(element.get("id"))
    references = re.findall(r"url\(#([\w-]+)\)", text)
    assert references and set(references) <= ids


@pytest.mark.parametrize("figure", FIGURES)
def test_svg_colours_come_from_css_classes(figure: str) -> None:
    """Colours are set by book.css (light and dark), never inside the SVG."""
    blocks = texts = 0
    for element in svg_root(figure).iter():
        for name in COLOUR_ATTRIBUTES:
            assert element.get(name) is None, f"{local(element.tag)} has {name}"
        if local(element.tag) == "rect":
            blocks += 1
            assert "fig2-block" in classes(element)
            assert len({f"fig2-{k}" for k in BLOCK_KINDS} & classes(element)) == 1
        if local(element.tag) == "text":
            texts += 1
            assert "fig2-text" in classes(element)
        if local(element.tag) == "path":
            assert classes(element) & {"fig2-arrow", "fig2-arrowhead"}
    assert blocks and texts


@pytest.mark.parametrize("figure", FIGURES)
def test_every_class_of_the_svg_is_styled_by_the_book(figure: str) -> None:
    css = CSS.read_text(encoding="utf-8")
    used = set().union(*(classes(e) for e in svg_root(figure).iter()))
    assert used
    for name in used:
        assert re.search(rf"\.{re.escape(name)}\b", css), f"book.css lacks .{name}"


def test_every_block_colour_has_a_dark_mode_colour() -> None:
    css = CSS.read_text(encoding="utf-8")
    slate = re.search(
        r'\[data-md-color-scheme="slate"\][^{]*\.fig2\s*\{(?P<body>[^}]*)\}', css
    )
    assert slate, "book.css sets the figure's colours for the slate scheme"
    for kind in BLOCK_KINDS:
        assert len(re.findall(rf"--fig2-{kind}:", css)) == 2, kind
        assert f"--fig2-{kind}:" in slate["body"], kind
        assert re.search(rf"\.fig2-{kind}\s*\{{\s*fill:\s*var\(--fig2-{kind}\)", css)
    foreground = r"\s*\{[^}]*%s:\s*var\(--md-default-fg-color\)"
    assert re.search(r"\.fig2-text" + foreground % "fill", css)
    assert re.search(r"\.fig2-arrow" + foreground % "stroke", css)


@pytest.mark.parametrize(("figure", "language"), PAIRS)
def test_each_language_shows_the_figure_in_its_section(figure, language) -> None:
    svg, page, _ = FIGURES[figure]
    text = section(DOCS / language / page, figure)
    includes = [include.path for include in snippets.includes(text)]
    assert svg in includes, f"{language}/{page}#{figure} does not include {svg}"
    block = re.search(
        r'^<figure class="fig2">\n(?P<include>.+)\n'
        r'<figcaption id="(?P<id>[\w-]+)">(?P<caption>.+)</figcaption>\n</figure>$',
        text,
        re.MULTILINE,
    )
    assert block, f"{language}/{page}#{figure}: raw <figure> block"
    assert snippets.includes(block["include"]) == [snippets.Include(svg)]
    assert block["id"] == f"{figure}-caption"
    caption = BeautifulSoup(block["caption"], "html.parser")
    assert [a["href"] for a in caption.find_all("a")] == [REFERENCE]
    assert CREDIT[language] in caption.get_text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_credit_links_to_the_paper(language: str) -> None:
    references = (DOCS / language / "references.md").read_text(encoding="utf-8")
    assert "{ #vaswani-2017 }" in references


@pytest.mark.parametrize(("figure", "language"), PAIRS)
def test_the_page_renders_the_svg_inline(book_markdown, figure, language) -> None:
    """The snippet lands as raw SVG: not escaped, not wrapped in a paragraph."""
    _, page, _ = FIGURES[figure]
    source = (DOCS / language / page).read_text(encoding="utf-8")
    html = book_markdown().convert(source)
    assert "&lt;svg" not in html
    soup = BeautifulSoup(html, "html.parser")
    svgs = soup.find_all("svg", attrs={"aria-labelledby": f"{figure}-title"})
    assert len(svgs) == 1
    svg = svgs[0]
    assert svg.parent.name == "figure" and "fig2" in svg.parent.get("class", [])
    assert svg.find_parent("p") is None
    assert svg.find("title", id=f"{figure}-title") is not None
    caption = svg.parent.find("figcaption")
    assert caption is not None and caption.get("id") == f"{figure}-caption"
    # the ids the SVG points at exist once on the rendered page
    for target in (f"{figure}-title", f"{figure}-caption"):
        assert len(soup.find_all(id=target)) == 1, target
