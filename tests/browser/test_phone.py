"""Sizes on a phone (390 px, touch): text a reader can read, controls a
finger can hit, fields that do not zoom the page.

- **No text under 11 px** outside maths, the book's floor (figures keep it
  too: tests/docs/test_plots.py). Material sets tables, admonitions and
  solutions in 0.64rem and code in 0.85em of that: 10.9 px.
- **The interactive figures' controls**: every field (number, select) has a
  font of at least 16 px, below which a phone's browser zooms the page in
  when the field gets the focus (and leaves it zoomed), and every control
  (fields, buttons, checkboxes, the slider) is at least 44 px high and,
  but for the cells of a grid of controls (at least 24 px wide, WCAG
  2.5.8: ten of them share a phone's column), 44 px wide: a finger's width.

Accessibility on a phone is test_accessibility.py's, fitting the column
test_every_page.py's.
"""

from __future__ import annotations

import pytest

from .checks import PHONE
from .navigation import book_pages

#: A phone as the page meets it: 390 px, touch, no hover.
PHONE_DEVICE = {"viewport": PHONE, "is_mobile": True, "has_touch": True}

#: The floor of the book's text on a phone (CONTRIBUTING.md, figures).
SMALLEST_TEXT = 11
#: Below this, a phone's browser zooms the page in when a field gets focus.
SMALLEST_FIELD_FONT = 16
#: A target a finger hits (WCAG 2.5.5, Apple's and Google's guidelines).
SMALLEST_TARGET = 44

#: Every element of the article that holds text of its own, under 11 px:
#: its font size, tag and where it is. Maths (KaTeX's second-level scripts,
#: inherent to TeX) and drawings are not text of the page's.
SMALL_TEXT = """floor => {
    const found = {};
    const article = document.querySelector("article.md-content__inner");
    for (const e of article.querySelectorAll("*")) {
        if (e.closest(".katex, svg, script, style, .md-code__nav")) continue;
        const own = [...e.childNodes].some(
            n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        if (!own) continue;
        const size = parseFloat(getComputedStyle(e).fontSize);
        if (size >= floor) continue;
        const where = e.closest("table, details, .admonition, li, p, pre")
        const key = `${size} px: ${e.tagName.toLowerCase()} in `
            + (where ? where.tagName.toLowerCase() + "." + where.className : "-");
        found[key] = (found[key] || 0) + 1;
    }
    return Object.entries(found).map(([key, count]) => `${key} (${count})`);
}"""

#: The cells of a grid whose cells are its controls (``GRIDS`` below), its
#: column headings that are controls included (the window's key headings,
#: ``[data-sink-key]``, which make keys 0 to j the sinks): each as wide as
#: the grid's columns allow, at least 24 px (WCAG 2.5.8), and 44 px high.
CELLS = '[data-cell], [data-matrix="weights"] [data-weight], [data-sink-key]'

#: Every control of the page's interactive figures: what it is, its font
#: size, its size on the page, and whether it is a cell of a grid of
#: controls (held to ``SMALLEST_CELL``'s width by ``GRIDS``).
CONTROLS = """cells => [...document.querySelectorAll(
    ".explorable input, .explorable select, .explorable button")]
    .filter(e => e.getClientRects().length > 0)
    .map(e => ({
        what: `${e.closest(".explorable").dataset.explorable}: `
            + `${e.tagName.toLowerCase()}[${e.type}] `
            + (e.getAttribute("aria-label") || e.textContent.trim()).slice(0, 30),
        field: e.matches("input:not([type=checkbox], [type=range]), select"),
        font: parseFloat(getComputedStyle(e).fontSize),
        height: e.getBoundingClientRect().height,
        width: e.getBoundingClientRect().width,
        cell: e.matches(cells) || e.closest(cells) !== null,
    }))"""

#: Pages whose text holds what Material sets small: tables with code (the
#: package, the notation), admonitions and solutions with code.
TEXT_PAGES = ["ja/package/", "zh-Hant/notation/", "zh-Hans/masks/"]


def explorable_pages(site) -> list[str]:
    """The Japanese pages that show an interactive figure."""
    return [
        path
        for path in book_pages(site, "ja")
        if 'data-explorable="' in (site / path / "index.html").read_text("utf-8")
    ]


#: The interactive figures make test opens on a phone: between them every
#: kind of control (checkboxes, buttons and selects; a number and a slider).
#: The exhaustive tier opens every one.
EXPLORABLE_SAMPLE = ["ja/masks/", "ja/softmax/"]
WHICH = [
    pytest.param("sample", id="sample"),
    pytest.param("every", id="every", marks=pytest.mark.exhaustive),
]


def explorables_to_open(site, which: str) -> list[str]:
    pages = explorable_pages(site)
    assert len(pages) >= 7, f"the interactive figures are on {pages}"
    assert set(EXPLORABLE_SAMPLE) <= set(pages), pages
    return EXPLORABLE_SAMPLE if which == "sample" else pages


@pytest.mark.parametrize("which", WHICH)
def test_no_text_under_the_floor_on_a_phone(open_page, site, which) -> None:
    text_pages = TEXT_PAGES[:1] if which == "sample" else TEXT_PAGES
    pages = text_pages + explorables_to_open(site, which)
    found = []
    for path in pages:
        page, _ = open_page(path, **PHONE_DEVICE)
        found += [
            f"{path}: {small}" for small in page.evaluate(SMALL_TEXT, SMALLEST_TEXT)
        ]
    assert not found, f"text under {SMALLEST_TEXT} px at 390 px:\n" + "\n".join(found)


@pytest.mark.parametrize("which", WHICH)
def test_explorables_controls_fit_a_finger(open_page, site, which) -> None:
    pages = explorables_to_open(site, which)
    problems, seen = [], set()
    for path in pages:
        page, _ = open_page(path, **PHONE_DEVICE)
        for control in page.evaluate(CONTROLS, CELLS):
            seen.add(control["what"].split(" ", 2)[1])
            where = f"{path} {control['what']}"
            if control["field"] and control["font"] < SMALLEST_FIELD_FONT:
                problems.append(f"{where}: font {control['font']} px")
            if control["height"] < SMALLEST_TARGET - 0.5:
                problems.append(f"{where}: {control['height']:.1f} px high")
            if control["width"] < SMALLEST_TARGET - 0.5 and not control["cell"]:
                problems.append(f"{where}: {control['width']:.1f} px wide")
    kinds = {"input[number]", "input[checkbox]", "input[range]", "select[select-one]"}
    assert kinds | {"button[button]"} <= seen, f"controls seen: {seen}"
    assert not problems, "on a phone (390 px, touch):\n" + "\n".join(problems)


def test_desktop_controls_keep_their_size(open_page) -> None:
    """The larger controls are a phone's: a desktop keeps the compact ones."""
    page, _ = open_page("ja/softmax/", viewport={"width": 1280, "height": 900})
    heights = [c["height"] for c in page.evaluate(CONTROLS, CELLS)]
    assert heights and max(heights) < SMALLEST_TARGET, heights


#: The smallest phone the book is read on (360 px): the interactive figures'
#: widest parts, the KV cache's results, the attention map's table and the
#: window's band of keys.
SMALL_PHONE = {
    "viewport": {"width": 360, "height": 780},
    "is_mobile": True,
    "has_touch": True,
}
WIDEST = ["ja/kv-cache/", "ja/attention-maps/", "ja/sliding-window/"]
OVERFLOW = """() => [...document.querySelectorAll(".explorable")]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.dataset.explorable}: ${e.scrollWidth} px in ${e.clientWidth}`)"""
#: The smallest target of a grid whose cells are its controls (WCAG 2.5.8).
SMALLEST_CELL = 24
#: A grid whose cells are its controls (``[data-cell]``: the window's band of
#: keys, the masks' checkboxes; the attention map's weights, ``[data-weight]``
#: of ``[data-matrix="weights"]``) in its first state: the grid itself does
#: not scroll sideways, a reader sees every cell, and each cell is a target
#: of at least SMALLEST_CELL px both ways.
GRIDS = """([smallest, CELLS]) => {
    return [...document.querySelectorAll(".explorable table")]
    .filter(t => t.querySelector(CELLS) && t.getClientRects().length > 0)
    .flatMap(t => {
        const name = t.closest(".explorable").dataset.explorable;
        const box = t.closest(".explorable-scroll");
        const found = [];
        if (box && box.scrollWidth > box.clientWidth + 1) {
            found.push(`${name}: its grid scrolls, `
                + `${box.scrollWidth} px in ${box.clientWidth}`);
        }
        const cells = [...t.querySelectorAll(CELLS)]
            .filter(c => c.getClientRects().length > 0)
            .map(c => c.getBoundingClientRect());
        const small = cells.filter(
            r => r.width < smallest - 0.5 || r.height < smallest - 0.5);
        if (small.length) {
            const r = small[0];
            found.push(`${name}: ${small.length} of ${cells.length} cells under `
                + `${smallest} px (${r.width.toFixed(1)} x ${r.height.toFixed(1)})`);
        }
        return found;
    });
}"""


@pytest.mark.parametrize("which", WHICH)
def test_explorables_fit_a_small_phone(open_page, site, which) -> None:
    """Nothing of an interactive figure runs past its border at 360 px (a
    table too wide scrolls in a box of its own, which a keyboard can reach),
    and a grid of cells that are controls fits without scrolling, each cell
    a target of at least 24 px."""
    pages = WIDEST if which == "sample" else explorables_to_open(site, which)
    found = []
    for path in pages:
        page, _ = open_page(path, **SMALL_PHONE)
        found += [f"{path} {overflow}" for overflow in page.evaluate(OVERFLOW)]
        found += [
            f"{path} {grid}" for grid in page.evaluate(GRIDS, [SMALLEST_CELL, CELLS])
        ]
    assert not found, "at 360 px:\n" + "\n".join(found)
