"""Dark mode: the palette follows the reader, and figures and plots stay readable.

Material's first palette entry follows the system's preference; its toggle
cycles light, dark and automatic. Figure 2 is inline SVG whose colours come
from book.css (``fig2-*`` classes); each plot is a pair of SVG images,
``#only-light`` and ``#only-dark``, drawn at build time (stages/plots.py).
Contrast is WCAG's: at least 4.5:1 for text, 3:1 for arrows and outlines.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ..site.helpers import sample

SCHEMES = {"light": "default", "dark": "slate"}  # color_scheme -> Material's
TEXT_CONTRAST = 4.5
GRAPHICS_CONTRAST = 3.0
FIGURE_PAGES = [
    "ja/scaled-dot-product/",
    "zh-Hant/multi-head/",
    "zh-Hans/scaled-dot-product/",
]
PLOT_PAGES = {  # language -> pages with plots (each plot page in one language)
    "ja": ["ja/object-view/", "ja/self-attention/"],
    "zh-Hant": ["zh-Hant/self-attention/", "zh-Hant/multi-head/"],
    "zh-Hans": ["zh-Hans/object-view/", "zh-Hans/multi-head/"],
}
COLOUR = re.compile(r"rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)")
SVG = "{http://www.w3.org/2000/svg}"

# ---------------------------------------------------------------- colours


def rgba(css: str) -> tuple[float, float, float, float]:
    """``rgb(...)``/``rgba(...)`` (as getComputedStyle gives) or ``#rrggbb``."""
    if css.startswith("#") and len(css) == 7:
        return (*(int(css[i : i + 2], 16) for i in (1, 3, 5)), 1.0)
    match = COLOUR.fullmatch(css.strip())
    assert match, f"not a colour: {css!r}"
    r, g, b, a = match.groups()
    return float(r), float(g), float(b), float(a) if a is not None else 1.0


def over(colour: str, background: str) -> tuple[float, float, float]:
    """``colour`` painted over the opaque ``background``."""
    *fg, alpha = rgba(colour)
    bg = rgba(background)[:3]
    return tuple(alpha * f + (1 - alpha) * b for f, b in zip(fg, bg, strict=True))


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0-255 channels)."""

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(colour: str, background: str) -> float:
    """WCAG contrast ratio of ``colour`` (maybe translucent) on ``background``."""
    lighter, darker = sorted(
        (luminance(over(colour, background)), luminance(rgba(background)[:3])),
        reverse=True,
    )
    return (lighter + 0.05) / (darker + 0.05)


# ---------------------------------------------------------------- the page

SCHEME = "document.body.getAttribute('data-md-color-scheme')"

# Colours of Figure 2 as drawn: each text with what lies behind it (the
# topmost block under its centre, or the page), arrows, outlines, fills.
# The colour behind an element: the first opaque background of it or its
# ancestors (Material paints the page's on the body).
PAGE_BACKGROUND = """
const pageBackground = (element) => {
  for (; element; element = element.parentElement) {
    const colour = getComputedStyle(element).backgroundColor;
    if (colour !== "rgba(0, 0, 0, 0)" && colour !== "transparent") return colour;
  }
  return "rgb(255, 255, 255)";
};
"""

FIGURE_COLOURS = r"""
() => {
  PAGE_BACKGROUND
  const contains = (box, x, y) =>
    x >= box.x && x <= box.x + box.width && y >= box.y && y <= box.y + box.height;
  return [...document.querySelectorAll("svg.fig2-svg")].map((svg) => {
    const background = pageBackground(svg);
    const all = (selector) => [...svg.querySelectorAll(selector)];
    const blocks = all(".fig2-block");
    return {
      title: svg.querySelector("title")?.textContent,
      background,
      texts: [...svg.querySelectorAll(".fig2-text")].map((text) => {
        const box = text.getBBox();
        const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
        const block = blocks.filter((b) => contains(b.getBBox(), x, y)).pop();
        const outer = block && block.getBBox();
        if (outer) outer.right = outer.x + outer.width;
        return {
          text: text.textContent,
          fill: getComputedStyle(text).fill,
          behind: block ? getComputedStyle(block).fill : background,
          fits: !block || (box.x >= outer.x && box.x + box.width <= outer.right),
        };
      }),
      lines: [
        ...all(".fig2-arrow").map((e) => getComputedStyle(e).stroke),
        ...all(".fig2-arrowhead").map((e) => getComputedStyle(e).fill),
        ...blocks.map((e) => getComputedStyle(e).stroke),
      ],
      fills: blocks.map((b) => getComputedStyle(b).fill),
    };
  });
}
""".replace("PAGE_BACKGROUND", PAGE_BACKGROUND)

# The plots of the page: every image of assets/plots/, shown or not.
PLOT_IMAGES = r"""
() => {
  PAGE_BACKGROUND
  const images = document.querySelectorAll("article img[src*='assets/plots/']");
  return [...images].map((img) => {
    const style = getComputedStyle(img);
    const box = img.getBoundingClientRect();
    return {
      src: img.getAttribute("src"),
      url: img.src,
      shown: style.display !== "none" && style.visibility !== "hidden" && box.width > 0,
      loaded: img.complete && img.naturalWidth > 0,
      background: pageBackground(img.parentElement),
    };
  });
}
""".replace("PAGE_BACKGROUND", PAGE_BACKGROUND)


def figure_colours(page) -> list[dict]:
    figures = page.evaluate(FIGURE_COLOURS)
    assert figures, f"{page.url}: no Figure 2 SVG"
    return figures


def check_figure_readable(figures: list[dict], where: str) -> None:
    problems = []
    for figure in figures:
        name = f"{where} {figure['title']}"
        for text in figure["texts"]:
            ratio = contrast(text["fill"], text["behind"])
            if ratio < TEXT_CONTRAST:
                problems.append(
                    f"{name}: text {text['text']!r} {text['fill']} on "
                    f"{text['behind']}: {ratio:.2f}:1"
                )
            if not text["fits"]:
                problems.append(f"{name}: text {text['text']!r} overflows its block")
        for line in set(figure["lines"]):
            ratio = contrast(line, figure["background"])
            if ratio < GRAPHICS_CONTRAST:
                problems.append(
                    f"{name}: arrow or outline {line} on {figure['background']}: "
                    f"{ratio:.2f}:1"
                )
        assert figure["texts"] and figure["lines"], f"{name}: nothing drawn"
    assert not problems, "Figure 2 is hard to read:\n" + "\n".join(problems)


# ---------------------------------------------------------------- tests


def test_palette_toggle_switches_schemes(open_page):
    """Automatic (dark here) -> light -> dark -> automatic, figures following."""
    page, _ = open_page("ja/scaled-dot-product/", color_scheme="dark")
    toggle = page.locator("form[data-md-component='palette'] label:not([hidden])")
    seen = [(page.evaluate(SCHEME), figure_colours(page)[0]["fills"])]
    for _ in range(3):
        toggle.click()
        seen.append((page.evaluate(SCHEME), figure_colours(page)[0]["fills"]))
    assert [scheme for scheme, _ in seen] == ["slate", "default", "slate", "slate"]
    assert page.locator("#__palette_0").is_checked(), "not back to automatic"
    assert seen[0][1] != seen[1][1], "the figure's blocks kept their colours"
    assert seen[0][1] == seen[2][1]


@pytest.mark.parametrize("path", sample(FIGURE_PAGES, FIGURE_PAGES[:2]))
def test_figure_2_readable_in_both_schemes(open_page, path):
    fills = {}
    for scheme in SCHEMES:
        page, _ = open_page(path, color_scheme=scheme)
        assert page.evaluate(SCHEME) == SCHEMES[scheme]
        figures = figure_colours(page)
        check_figure_readable(figures, f"{path} ({scheme})")
        fills[scheme] = [figure["fills"] for figure in figures]
    for light, dark in zip(fills["light"], fills["dark"], strict=True):
        same = [f for f in set(dark) if f in set(light)]
        assert not same, f"{path}: blocks keep the light fill in dark mode: {same}"


#: In each book figure, the images a printer would print: their ``src``.
PRINTED_IMAGES = """() => [...document.querySelectorAll("article figure.book-figure")]
    .map(figure => [...figure.querySelectorAll("img")]
        .filter(img => getComputedStyle(img).display !== "none"
            && img.getClientRects().length > 0)
        .map(img => img.getAttribute("src")))"""

#: The copy buttons of the page's code blocks: how many, how many show.
PRINTED_COPY_BUTTONS = """() => {
    const all = [...document.querySelectorAll("article .md-code__button")];
    const shown = all.filter(e => e.getClientRects().length > 0);
    return {found: all.length, shown: shown.length};
}"""

#: Figure 2's fills and text colours as drawn now.
FIGURE_2_COLOURS = """() => [...document.querySelectorAll(
    ".fig2 .fig2-block, .fig2 .fig2-text, .fig2 .fig2-arrow")]
    .map(e => getComputedStyle(e).fill + " " + getComputedStyle(e).stroke)"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_printing_shows_each_figure_once_in_light_colours(open_page, scheme):
    """Printed from the browser, in either scheme, every figure is there once,
    as the light image (Material prints the light palette: its dark one is
    a screen's), and Figure 2 has its light colours; no code block's copy
    button, which paper has no use for."""
    page, _ = open_page("zh-Hans/multi-head/", color_scheme=scheme)
    assert page.evaluate(SCHEME) == SCHEMES[scheme]
    page.emulate_media(media="print")
    printed = page.evaluate(PRINTED_IMAGES)
    assert len(printed) >= 3, "the page has figures"
    wrong = [srcs for srcs in printed if len(srcs) != 1]
    wrong += [srcs for srcs in printed if not srcs[0].endswith(".svg#only-light")]
    assert not wrong, f"printed ({scheme}): {wrong}"
    buttons = page.evaluate(PRINTED_COPY_BUTTONS)
    assert buttons["found"] >= 2, "the page has code blocks"
    assert not buttons["shown"], f"printed ({scheme}) with copy buttons: {buttons}"
    figure_2 = page.evaluate(FIGURE_2_COLOURS)
    assert figure_2, "the page has Figure 2"
    # The same figure on screen in the light scheme.
    page.emulate_media(media="screen")
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")
    assert figure_2 == page.evaluate(FIGURE_2_COLOURS), (
        f"Figure 2 printed ({scheme}) in other colours than the light ones"
    )


def svg_colours(svg: Path) -> dict[str, list[str]]:
    """The text and line colours of a matplotlib SVG.

    ``ticks``: the fills of the tick labels; ``texts``: of the other texts,
    without the cell annotations of heat maps, pure black or white by design
    (chosen per cell, drawn on the cell); ``lines``: every stroke (axes,
    ticks, outlines).
    """
    tree = ElementTree.parse(svg)
    ticks = set()
    for group in tree.iter(f"{SVG}g"):
        if re.fullmatch(r"[xy]tick_\d+", group.get("id", "")):
            ticks.update(group.iter(f"{SVG}text"))
    colours: dict[str, list[str]] = {"ticks": [], "texts": [], "lines": []}
    for element in tree.iter():
        declarations = (d.split(":", 1) for d in element.get("style", "").split(";"))
        style = {d[0].strip(): d[1].strip() for d in declarations if len(d) == 2}
        if style.get("stroke", "none") != "none":
            colours["lines"].append(style["stroke"])
        if element.tag != f"{SVG}text":
            continue
        fill = style.get("fill", element.get("fill", "#000000"))
        if element in ticks:
            colours["ticks"].append(fill)
        elif fill not in ("#000000", "#ffffff"):
            colours["texts"].append(fill)
    return colours


@pytest.mark.parametrize("language", sample(list(PLOT_PAGES), ["ja"]))
def test_plots_follow_the_scheme(open_page, base_url, site, language):
    """Exactly one image of each plot shows, loaded; its text reads on the page."""
    problems = []
    for scheme, suffix in (("light", "#only-light"), ("dark", "#only-dark")):
        page = None
        for path in PLOT_PAGES[language]:
            if page is None:
                page, _ = open_page(path, color_scheme=scheme)
            else:
                page.goto(base_url + path)
            page.wait_for_function("[...document.images].every(img => img.complete)")
            images = page.evaluate(PLOT_IMAGES)
            assert len(images) >= 2, f"{path}: no plot"
            shown = [image for image in images if image["shown"]]
            hidden = [image for image in images if not image["shown"]]
            assert shown and all(i["src"].endswith(suffix) for i in shown), (
                f"{path} ({scheme}): shown {[i['src'] for i in shown]}"
            )
            assert len(shown) == len(hidden) and all(
                not i["src"].endswith(suffix) for i in hidden
            ), f"{path} ({scheme}): hidden {[i['src'] for i in hidden]}"
            for image in shown:
                if not image["loaded"]:
                    problems.append(f"{path} ({scheme}): {image['src']} not loaded")
                svg = site / urlsplit(image["url"]).path.lstrip("/")
                colours = svg_colours(svg)
                assert colours["ticks"], f"{svg.name}: no tick labels"
                background = image["background"]
                for kind, minimum in (
                    ("ticks", TEXT_CONTRAST),
                    ("texts", TEXT_CONTRAST),
                    ("lines", GRAPHICS_CONTRAST),
                ):
                    for colour in sorted(set(colours[kind])):
                        ratio = contrast(colour, background)
                        if ratio < minimum:
                            problems.append(
                                f"{path} ({scheme}): {svg.name} {kind} {colour} "
                                f"on {background}: {ratio:.2f}:1"
                            )
                if scheme == "dark":  # light text on the dark page
                    dark = {c for c in colours["ticks"] if luminance(rgba(c)[:3]) < 0.5}
                    if dark:
                        problems.append(f"{svg.name}: dark tick labels {dark}")
    assert not problems, "plots hard to read:\n" + "\n".join(problems)
