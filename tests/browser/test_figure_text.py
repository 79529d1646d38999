"""Figure text stays inside its figure and clear of other text.

Every figure of every edition, in both colour schemes: the SVG images that
the build draws (``assets/diagrams/*.svg`` and ``assets/plots/*.svg``, each
with its ``-dark`` file, stages/plots.py) and the two inline redrawings of
the paper's Figure 2 (``figure.fig2``). The text is measured in the browser,
with the fonts the reader gets:

- An SVG image (``<img>``) is its own document: it is put into a shadow root
  whose host resets every inherited property (``all: initial``), so that
  nothing of the page's style reaches it, as nothing reaches an image.
- Figure 2 is part of its page: it is put into the page's article, where
  book.css styles it.

Each ``<text>`` is measured glyph by glyph: where the browser placed the
glyph (``getStartPositionOfChar``, ``getExtentOfChar``, with sub- and
superscripts where they were shifted to) and how far its ink reaches from
there (a canvas's ``measureText`` in the glyph's computed font). A text's
glyph boxes, in the SVG's user space (``getCTM``), are then checked:

- (a) no glyph reaches outside the ``viewBox`` (by more than ``EDGE``);
- (b) no glyph of one text overlaps a glyph of another text of the same
  figure by more than ``OVERLAP`` in both directions (a sub- or superscript
  is a ``tspan`` of its text, so it never counts against its own base).

Ink, not the font's line box: a CJK font's line box is ~1.45 em high, so the
rows of a matrix of numbers would "overlap" although nothing touches.

- (c) no glyph crosses the edge of a box: a stroked rectangle (or rounded
  box, matplotlib's FancyBboxPatch) that lies inside no other one, such as a
  matrix's frame (not its cells: a matrix's name is written across them)
  or a node of a graph; a subscript on a matrix's border is caught here;
- a plot's legend (matplotlib's ``legend`` group: frame, lines, markers)
  stays inside the viewBox too.

Not checked: text against arrows and other lines, whose ends labels may
touch by design.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..site.helpers import LANGUAGES

#: How far (SVG user units, = CSS px at the figure's natural size) a glyph's
#: ink may reach past the viewBox: antialiasing, rounding.
EDGE = 0.5
#: How far two glyphs of different texts may overlap in both directions.
OVERLAP = 1.0

SCHEMES = {"light": "", "dark": "-dark"}  # color_scheme -> file suffix
FIG2_PAGES = ["scaled-dot-product/", "multi-head/"]
MAKE_TEST_PAIRS = {
    ("ja", "light"),
    ("zh-Hant", "dark"),
    ("zh-Hans", "light"),
}

#: The page JS: ``measure({images, pages, edge, overlap})`` -> problems.
#: ``images``: [name, url] of SVG images; ``pages``: page urls whose
#: ``figure.fig2`` are measured in this page's article; ``sources``:
#: [name, svg text] measured as images (the unit test's handmade SVGs).
MEASURE = r"""async ({images = [], pages = [], sources = [], edge, overlap}) => {
    const parser = new DOMParser();
    const canvas = document.createElement("canvas").getContext("2d");
    const host = document.createElement("div");
    host.style.cssText = "position: absolute; left: 0; top: 0;";
    document.body.append(host);
    const shadow = host.attachShadow({mode: "open"});
    shadow.innerHTML = "<style>:host { all: initial; display: block; }</style>";
    const figures = [];  // [name, svg element]
    const add = (name, text) => {
        const doc = parser.parseFromString(text, "image/svg+xml");
        const error = doc.querySelector("parsererror");
        if (error) throw new Error(`${name}: ${error.textContent}`);
        const wrapper = document.createElement("div");
        wrapper.append(document.importNode(doc.documentElement, true));
        shadow.append(wrapper);
        figures.push([name, wrapper.firstElementChild]);
    };
    for (const [name, text] of sources) add(name, text);
    for (const [name, url] of images) {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${url}: ${response.status}`);
        add(name, await response.text());
    }
    const article = document.querySelector("article") || document.body;
    for (const url of pages) {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${url}: ${response.status}`);
        const doc = parser.parseFromString(await response.text(), "text/html");
        doc.querySelectorAll("figure.fig2").forEach((figure, i) => {
            const copy = document.importNode(figure, true);
            copy.removeAttribute("id");
            article.append(copy);
            copy.querySelectorAll("svg").forEach((svg, j) =>
                figures.push([`${url} figure.fig2 #${i + 1} svg ${j + 1}`, svg]));
        });
    }
    await document.fonts.ready;

    const box = (points) => {
        const xs = points.map(p => p.x), ys = points.map(p => p.y);
        return {x0: Math.min(...xs), x1: Math.max(...xs),
                y0: Math.min(...ys), y1: Math.max(...ys)};
    };
    const fmt = b => `x ${b.x0.toFixed(1)}…${b.x1.toFixed(1)}, y ${b.y0.toFixed(1)}…${b.y1.toFixed(1)}`;
    // The ink boxes of a text's glyphs, in the svg's user space.
    const glyphs = (svg, text) => {
        const m = svg.getScreenCTM().inverse().multiply(text.getScreenCTM());
        const n = text.getNumberOfChars();
        const chars = [...text.textContent];  // by code point
        const out = [];
        // Map char index (UTF-16) -> element holding it, for its font.
        const holders = [];
        const walk = (node, element) => {
            if (node.nodeType === Node.TEXT_NODE) {
                for (let k = 0; k < node.data.length; k++) holders.push([element, node.data[k]]);
            } else if (node.nodeType === Node.ELEMENT_NODE) {
                for (const child of node.childNodes) walk(child, node);
            }
        };
        walk(text, text);
        for (let i = 0; i < n && i < holders.length; i++) {
            const [element, ch] = holders[i];
            let glyph = ch;
            // A surrogate pair is one glyph, measured once.
            if (ch >= "\ud800" && ch <= "\udbff" && i + 1 < holders.length) glyph += holders[i + 1][1];
            else if (ch >= "\udc00" && ch <= "\udfff") continue;
            if (/^\s$/.test(glyph)) continue;
            let start, extent;
            try {
                start = text.getStartPositionOfChar(i);
                extent = text.getExtentOfChar(i);
            } catch (e) { continue; }  // not rendered (e.g. display: none)
            const style = getComputedStyle(element);
            canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const ink = canvas.measureText(glyph);
            if (ink.actualBoundingBoxRight + ink.actualBoundingBoxLeft <= 0) continue;
            // Along the baseline from the glyph's start, as the extent runs
            // (right to left for a glyph drawn leftwards is not in the book).
            const rotation = text.getRotationOfChar(i) * Math.PI / 180;
            const cos = Math.cos(rotation), sin = Math.sin(rotation);
            const local = [
                [-ink.actualBoundingBoxLeft, -ink.actualBoundingBoxAscent],
                [ink.actualBoundingBoxRight, -ink.actualBoundingBoxAscent],
                [-ink.actualBoundingBoxLeft, ink.actualBoundingBoxDescent],
                [ink.actualBoundingBoxRight, ink.actualBoundingBoxDescent],
            ].map(([u, v]) => new DOMPoint(
                start.x + u * cos - v * sin, start.y + u * sin + v * cos).matrixTransform(m));
            out.push({glyph, ...box(local)});
        }
        return out;
    };
    const problems = [];
    for (const [name, svg] of figures) {
        const vb = svg.viewBox.baseVal;
        const view = vb && vb.width ? {x0: vb.x, y0: vb.y, x1: vb.x + vb.width, y1: vb.y + vb.height}
            : (() => { const r = svg.getBoundingClientRect();
                       return {x0: 0, y0: 0, x1: r.width, y1: r.height}; })();
        const texts = [...svg.querySelectorAll("text")]
            .filter(t => !t.parentElement.closest("text"))
            .map(t => ({label: t.textContent.trim().replace(/\s+/g, " "), glyphs: glyphs(svg, t)}))
            .filter(t => t.glyphs.length);
        for (const t of texts) {
            t.box = {x0: Math.min(...t.glyphs.map(g => g.x0)), x1: Math.max(...t.glyphs.map(g => g.x1)),
                     y0: Math.min(...t.glyphs.map(g => g.y0)), y1: Math.max(...t.glyphs.map(g => g.y1))};
            if (t.box.x0 < view.x0 - edge || t.box.y0 < view.y0 - edge
                || t.box.x1 > view.x1 + edge || t.box.y1 > view.y1 + edge) {
                problems.push(`${name}: "${t.label}" (${fmt(t.box)}) reaches outside the viewBox (${fmt(view)})`);
            }
        }
        // A plot's legend (frame, lines, markers: matplotlib's group) is
        // part of its text: it stays inside too.
        for (const legend of svg.querySelectorAll('g[id^="legend"]')) {
            if (legend.parentElement.closest('g[id^="legend"]')) continue;
            const b = legend.getBBox();
            const m = svg.getScreenCTM().inverse().multiply(legend.getScreenCTM());
            const r = box([[b.x, b.y], [b.x + b.width, b.y + b.height]]
                .map(([x, y]) => new DOMPoint(x, y).matrixTransform(m)));
            if (r.x0 < view.x0 - edge || r.y0 < view.y0 - edge || r.x1 > view.x1 + edge || r.y1 > view.y1 + edge)
                problems.push(`${name}: the legend (${fmt(r)}) reaches outside the viewBox (${fmt(view)})`);
        }
        // (c) The edges of stroked rectangles (a matrix, a box) that cross a glyph.
        const edges = [], rectangles = [];
        for (const shape of svg.querySelectorAll("path, rect")) {
            if (shape.closest("defs, clipPath, mask, marker, pattern, text")) continue;
            const style = getComputedStyle(shape);
            const width = parseFloat(style.strokeWidth);
            if (style.stroke === "none" || !(width > 0) || style.visibility === "hidden"
                || parseFloat(style.strokeOpacity) === 0 || style.display === "none") continue;
            let corners;
            if (shape.tagName === "rect") {
                const b = shape.getBBox();
                corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]];
            } else {
                const d = shape.getAttribute("d") || "";
                if (/[^MLZz\d\s.,eE+-]/.test(d)) {
                    // A rounded box (matplotlib's FancyBboxPatch: straight
                    // sides joined by curves): its box's edges. A circle (no
                    // straight side), an arrowhead or a marker (too small) is
                    // no box.
                    const b = shape.getBBox();
                    const straight = (d.match(/L/g) || []).length;
                    if (!/z\s*$/i.test(d) || straight < 4 || b.width < 12 || b.height < 12) continue;
                    corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]];
                } else {
                const numbers = (d.match(/-?[\d.]+(?:e[+-]?\d+)?/gi) || []).map(Number);
                const points = [];
                for (let k = 0; k + 1 < numbers.length; k += 2) points.push([numbers[k], numbers[k + 1]]);
                const distinct = points.filter((p, k) => !points.slice(0, k).some(q => q[0] === p[0] && q[1] === p[1]));
                if (distinct.length !== 4) continue;
                const xs = new Set(distinct.map(p => p[0])), ys = new Set(distinct.map(p => p[1]));
                if (xs.size !== 2 || ys.size !== 2) continue;
                corners = points.slice(0, 4);
                if (new Set(corners.map(String)).size !== 4) continue;
                }
            }
            const m = svg.getScreenCTM().inverse().multiply(shape.getScreenCTM());
            const scale = Math.hypot(m.a, m.b);
            const p = corners.map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
            rectangles.push({p, half: width * scale / 2, ...box(p)});
        }
        // Only outermost rectangles: a matrix's frame, not its cells (a
        // matrix's name is written across its cells), nor a highlighted row.
        const inside = (r, s) => r.x0 >= s.x0 - edge && r.x1 <= s.x1 + edge
            && r.y0 >= s.y0 - edge && r.y1 <= s.y1 + edge;
        const outermost = rectangles.filter((r, k) => !rectangles.some((s, l) =>
            l !== k && inside(r, s) && (!inside(s, r) || l < k)));
        for (const r of outermost)
            for (let k = 0; k < 4; k++) edges.push({a: r.p[k], b: r.p[(k + 1) % 4], half: r.half});
        for (const t of texts) {
            let hit = null;
            for (const g of t.glyphs) for (const e of edges) {
                const inner = {x0: g.x0 + edge, x1: g.x1 - edge, y0: g.y0 + edge, y1: g.y1 - edge};
                const band = {x0: Math.min(e.a.x, e.b.x) - e.half, x1: Math.max(e.a.x, e.b.x) + e.half,
                              y0: Math.min(e.a.y, e.b.y) - e.half, y1: Math.max(e.a.y, e.b.y) + e.half};
                if (Math.min(inner.x1, band.x1) > Math.max(inner.x0, band.x0)
                    && Math.min(inner.y1, band.y1) > Math.max(inner.y0, band.y0)) { hit = {g, band}; break; }
            }
            if (hit) problems.push(`${name}: "${t.label}" (glyph "${hit.g.glyph}" ${fmt(hit.g)}) ` +
                                   `crosses a box's edge (${fmt(hit.band)})`);
        }
        const across = (a, b) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
        const down = (a, b) => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
        for (let i = 0; i < texts.length; i++) {
            for (let j = i + 1; j < texts.length; j++) {
                const a = texts[i], b = texts[j];
                if (across(a.box, b.box) <= overlap || down(a.box, b.box) <= overlap) continue;
                let worst = null;
                for (const g of a.glyphs) for (const h of b.glyphs) {
                    const w = across(g, h), d = down(g, h);
                    if (w > overlap && d > overlap && (!worst || w * d > worst.w * worst.d))
                        worst = {w, d, g, h};
                }
                if (worst) problems.push(
                    `${name}: "${a.label}" and "${b.label}" overlap by ` +
                    `${worst.w.toFixed(1)} × ${worst.d.toFixed(1)} (glyphs "${worst.g.glyph}" ` +
                    `${fmt(worst.g)} and "${worst.h.glyph}" ${fmt(worst.h)})`);
            }
        }
    }
    host.remove();
    return problems;
}"""  # noqa: E501


def figure_images(site: Path, language: str, suffix: str) -> list[tuple[str, str]]:
    """``[name, path]`` of every figure SVG of an edition in one scheme."""
    found = []
    for kind in ("diagrams", "plots"):
        for svg in sorted((site / language / "assets" / kind).glob("*.svg")):
            dark = svg.stem.endswith("-dark")
            if dark == bool(suffix):
                found.append(
                    (
                        f"{language}/assets/{kind}/{svg.name}",
                        f"/{language}/assets/{kind}/{svg.name}",
                    )
                )
    return found


def measure(page, **arguments) -> list[str]:
    return page.evaluate(MEASURE, {"edge": EDGE, "overlap": OVERLAP, **arguments})


#: make test measures every edition's figures in one scheme, both schemes
#: among them: a figure's dark SVG is drawn by the same script at the same
#: places, in other colours. The exhaustive tier measures the other three.
TIERED = [
    pytest.param(
        language,
        scheme,
        marks=()
        if (language, scheme) in MAKE_TEST_PAIRS
        else (pytest.mark.exhaustive,),
        id=f"{language}-{scheme}",
    )
    for language in LANGUAGES
    for scheme in SCHEMES
]


@pytest.mark.parametrize(("language", "scheme"), TIERED)
def test_figure_text_stays_inside_and_apart(
    open_page, site, base_url, language, scheme
) -> None:
    images = figure_images(site, language, SCHEMES[scheme])
    # Every edition draws its diagrams and plots; a build without them
    # would pass for the wrong reason.
    assert len(images) > 30, f"{language}: only {len(images)} figure SVGs"
    page, watch = open_page(f"{language}/{FIG2_PAGES[0]}", color_scheme=scheme)
    problems = measure(
        page,
        images=[[name, url] for name, url in images],
        pages=[f"/{language}/{path}" for path in FIG2_PAGES],
    )
    assert not problems, "\n".join([f"{len(problems)} problems:", *problems])
    assert not watch.problems(), watch.problems()


#: Handmade figures the check must accept or catch.
TINY = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 60" width="100" '
    'height="60">{}</svg>'
)
#: A 2 × 2 matrix: four cells and a frame, as diagrams.matrix draws it.
GRID = (
    "".join(
        f'<path d="M {x} {y} L {x + 16} {y} L {x + 16} {y + 16} L {x} {y + 16} z" '
        'style="fill: #cfe3f7; stroke: #616161; stroke-width: 0.5"/>'
        for x in (40, 56)
        for y in (20, 36)
    )
    + '<path d="M 40 20 L 72 20 L 72 52 L 40 52 z" '
    'style="fill: none; stroke: #616161"/>'
)
FONT = "font-family: 'Noto Sans CJK JP', sans-serif; font-size: 12px"


def tiny(*texts: str) -> str:
    return TINY.format("\n".join(f'<text style="{FONT}" {t}</text>' for t in texts))


@pytest.mark.parametrize(
    ("svg", "expected"),
    [
        # Two rows of numbers 14 units apart: line boxes overlap, ink does not.
        (tiny('x="10" y="15">0.25', 'x="10" y="29">0.75'), []),
        # A subscript belongs to its text.
        (tiny('x="10" y="20">d<tspan style="baseline-shift: sub">model</tspan>'), []),
        (tiny('x="-6" y="20">正弦波'), ["reaches outside"]),
        (tiny('x="70" y="20">attention'), ["reaches outside"]),
        (tiny('x="10" y="59">gy'), ["reaches outside"]),
        (
            tiny('x="10" y="20" transform="rotate(-90 10 20)">label'),
            ["reaches outside"],
        ),
        (tiny('x="10" y="20">逆伝播', 'x="30" y="24">dQ'), ["overlap"]),
        (
            tiny(
                'x="10" y="20">d<tspan style="baseline-shift: sub">model</tspan>',
                'x="12" y="30">1.0 0.0',
            ),
            ["overlap"],
        ),
        # A matrix's name across its cells; a subscript on its frame.
        (TINY.format(GRID + f'<text style="{FONT}" x="48" y="30">Q</text>'), []),
        (
            TINY.format(
                GRID + f'<text style="{FONT}" x="40" y="18">d'
                '<tspan style="baseline-shift: sub">k</tspan></text>'
            ),
            ["edge"],
        ),
        # A rounded box (a path with curves) under a label.
        (
            TINY.format(
                '<path d="M 42 22 L 78 22 Q 80 22 80 24 L 80 38 Q 80 40 78 40 '
                'L 42 40 Q 40 40 40 38 L 40 24 Q 40 22 42 22 z" '
                'style="fill: #eee; stroke: #333"/>'
                f'<text style="{FONT}" x="30" y="26">逆伝播</text>'
            ),
            ["edge"],
        ),
        # A circle is no box: a label beside it may cross its bounding box.
        (
            TINY.format(
                '<path d="M 50 10 C 61 10 70 19 70 30 C 70 41 61 50 50 50 '
                'C 39 50 30 41 30 30 C 30 19 39 10 50 10 z" '
                'style="fill: none; stroke: #333"/>'
                f'<text style="{FONT}" x="64" y="14">m</text>'
            ),
            [],
        ),
        # A matplotlib legend cut by the edge.
        (
            TINY.format(
                '<g id="legend_1"><path d="M -5 5 L 60 5" style="stroke: #000"/>'
                f'<text style="{FONT}" x="10" y="15">a</text></g>'
            ),
            ["legend"],
        ),
    ],
    ids=[
        "rows",
        "subscript",
        "left",
        "right",
        "bottom",
        "rotated",
        "overlap",
        "subscript-overlap",
        "name-in-cells",
        "subscript-on-frame",
        "rounded-box",
        "circle",
        "legend",
    ],
)
def test_the_check_catches_text_outside_and_overlapping(
    open_page, svg, expected
) -> None:
    page, _ = open_page("ja/", color_scheme="light")
    problems = measure(page, sources=[["tiny", svg]])
    assert len(problems) == len(expected), problems
    for problem, words in zip(problems, expected, strict=True):
        assert words in problem, problem


def test_every_edition_draws_the_same_figures(site) -> None:
    """The parameters above cover every figure: each edition has the same
    SVGs, each in both schemes."""
    names = {
        language: sorted(
            svg.relative_to(site / language).as_posix()
            for svg in (site / language / "assets").glob("*/*.svg")
            if svg.parent.name in ("diagrams", "plots")
        )
        for language in LANGUAGES
    }
    first = next(iter(names.values()))
    assert all(found == first for found in names.values()), names
    light = {n for n in first if not n.endswith("-dark.svg")}
    assert {n.replace(".svg", "-dark.svg") for n in light} == set(first) - light
