"""Every text of every drawn figure reads against what lies behind it.

Each plot and diagram is drawn in the light and the dark theme as the build
draws it (``stages/plots.py``); the figure is then rendered once more with its
texts hidden, and the colour behind each text is the most common pixel
under the text's box there (a box's or a cell's fill, a heat map's cell, or
the page where nothing is drawn: the figures are transparent, so the
page's own background shows through). WCAG 2 asks for a contrast of
4.5:1 for text; the figures' text is all smaller than WCAG's "large" text
(18 pt, or 14 pt bold), so 4.5:1 applies to every label.

Not covered here: the browser's fonts (matplotlib measures each text's box
with its own fonts, close to but not the page's), the sub- and superscripts
that ``markup`` adds (they take their text's colour), and lines and arrows
(3:1 against the page, checked for plots by tests/browser/test_dark_mode.py).
"""

from __future__ import annotations

import colorsys
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.text import Text

from attention_docs.plotting import theme
from tests.docs.test_plots import ALL_LABELS, FIGURES, LANGUAGES, load_script
from tests.site.helpers import sample

#: Each figure drawn twice more (some 30 s): make test, not make quick.
pytestmark = pytest.mark.slow

TEXT_CONTRAST = 4.5
THEMES = ("light", "dark")
#: The page behind a figure: Material's default scheme (white) and its slate
#: scheme, hsla(232, 15%, 14%) (``--md-default-bg-color``, hue 232 for indigo).
PAGE = {
    "light": (1.0, 1.0, 1.0),
    "dark": colorsys.hls_to_rgb(232 / 360, 0.14, 0.15),
}


def luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (channels in [0, 1])."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b) -> float:
    lighter, darker = sorted((luminance(a), luminance(b)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def over(rgba, background) -> tuple[float, float, float]:
    """``rgba`` painted over the opaque ``background``."""
    *rgb, alpha = rgba
    return tuple(
        alpha * c + (1 - alpha) * b for c, b in zip(rgb, background, strict=True)
    )


def texts_and_backgrounds(kind: str, name: str, language: str, name_of_theme: str):
    """(text, its colour, the colour behind it) for each text of the figure."""
    with theme(name_of_theme), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Agg's fonts lack some CJK glyphs
        fig = load_script(name, kind).figure(
            {**ALL_LABELS[kind][name][language], "edition": language}
        )
        canvas = FigureCanvasAgg(fig)
        texts = [
            t
            for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0
        ]
        colours = [to_rgba(t.get_color(), t.get_alpha()) for t in texts]
        for t in texts:  # transparent, not hidden: the layout stays the same
            t.set_alpha(0.0)
        canvas.draw()
        boxes = [t.get_window_extent(canvas.get_renderer()) for t in texts]
        pixels = np.asarray(canvas.buffer_rgba())
    height, width = pixels.shape[:2]
    page = PAGE[name_of_theme]
    for t, colour, bbox in zip(texts, colours, boxes, strict=True):
        x0, x1 = sorted((int(bbox.x0), int(np.ceil(bbox.x1))))
        y0, y1 = sorted((height - int(np.ceil(bbox.y1)), height - int(bbox.y0)))
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(max(x1, x0 + 1), width), min(max(y1, y0 + 1), height)
        patch = pixels[y0:y1, x0:x1].reshape(-1, 4)
        if not len(patch):  # outside the figure: not shown
            continue
        packed = np.ascontiguousarray(patch).view(np.uint32).ravel()
        values, counts = np.unique(packed, return_counts=True)
        common = np.array([values[counts.argmax()]], dtype=np.uint32).view(np.uint8)
        behind = over(common / 255, page)
        yield t.get_text(), over(colour, behind), behind


#: Every figure in each theme: make test draws each figure once, in the light
#: and the dark theme by turns (every figure is checked, and both themes'
#: palettes), the exhaustive tier in the other theme too.
FIGURES_AND_THEMES = [
    pytest.param(
        kind,
        name,
        theme,
        marks=() if theme == THEMES[index % 2] else pytest.mark.exhaustive,
    )
    for index, (kind, name) in enumerate(FIGURES)
    for theme in THEMES
]


#: The colours are the same in every language; only where a label falls can
#: differ: make test draws the Japanese figures, the exhaustive tier both.
@pytest.mark.parametrize("language", sample(LANGUAGES, ["ja"]))
@pytest.mark.parametrize(("kind", "name", "name_of_theme"), FIGURES_AND_THEMES)
def test_every_text_reads_on_what_lies_behind_it(
    kind, name, name_of_theme, language
) -> None:
    assert language in ALL_LABELS[kind][name], (name, language)
    problems = []
    for label, fill, behind in texts_and_backgrounds(
        kind, name, language, name_of_theme
    ):
        ratio = contrast(fill, behind)
        if ratio < TEXT_CONTRAST:
            problems.append(
                f"{label!r}: {to_hex(fill)} on {to_hex(behind)}, {ratio:.2f}:1"
            )
    assert not problems, f"{name} ({language}, {name_of_theme}):\n" + "\n".join(
        problems
    )


#: Machado, Oliveira & Fernandes (2009), severity 1: linear RGB -> the
#: linear RGB a protanope or a deuteranope sees.
MACHADO = {
    "protan": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deutan": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
}
SRGB_TO_XYZ = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
)
D65 = np.array([0.95047, 1.0, 1.08883])


def lab(colour: str, vision: str | None = None) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour, as seen with ``vision`` (or normally)."""
    rgb = np.array(to_rgba(colour)[:3])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    if vision:
        linear = np.clip(MACHADO[vision] @ linear, 0, 1)
    xyz = SRGB_TO_XYZ @ linear / D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: str, b: str, vision: str | None = None) -> float:
    """CIE76 colour difference."""
    return float(np.linalg.norm(lab(a, vision) - lab(b, vision)))


#: Fills that share figures and must stay apart for protan and deutan
#: readers: K and V (every Q/K/V figure), a mask's True and False, and the
#: new fills against the matrices beside them (the exponentials between the
#: scores and the weights; Y beside X, Q, K and V).
CVD_PAIRS = [
    ("k", "v"),
    ("keep", "mask"),
    ("exp", "s"),
    ("exp", "a"),
    ("y", "x"),
    ("y", "q"),
    ("y", "k"),
    ("y", "v"),
]
#: ΔE (CIE76) under simulation: before, K and V were 4.3 / 5.2 (light),
#: True and False 8.2 (review of 2026-12-01, A.3).
CVD_DELTA_E = 10.0
#: The matrices' fills, which no other kind of thing may borrow.
MATRICES = ("x", "y", "w", "q", "k", "v", "s", "a", "z")


@pytest.mark.parametrize("name_of_theme", ["light", "dark"])
def test_colour_blind_readers_tell_the_pairs_apart(name_of_theme) -> None:
    from attention_book.diagrams import FILLS

    fills = FILLS[name_of_theme]
    problems = [
        f"{a} {fills[a]} vs {b} {fills[b]} ({vision}): ΔE {difference:.1f}"
        for a, b in CVD_PAIRS
        for vision in MACHADO
        if (difference := delta_e(fills[a], fills[b], vision)) < CVD_DELTA_E
    ]
    assert not problems, "\n".join(problems)


def test_the_plots_mask_is_told_apart_as_the_diagrams_is() -> None:
    from attention_docs.plotting import _MASK_COLOURS

    false, true = _MASK_COLOURS
    for vision in MACHADO:
        assert delta_e(false, true, vision) >= CVD_DELTA_E, vision


@pytest.mark.parametrize("name_of_theme", ["light", "dark"])
def test_the_plots_weights_are_in_the_diagrams_colour_of_a(name_of_theme) -> None:
    """The plots' heat maps of weights and the diagrams' share one ramp whose
    middle is A's fill (and the explorables' pink): one colour per matrix."""
    import numpy as np
    from matplotlib.colors import to_hex, to_rgb

    from attention_book.diagrams import FILLS, weights_cmap
    from attention_docs.plotting import WEIGHTS_RAMP, theme

    page, middle, deep = WEIGHTS_RAMP[name_of_theme]
    assert middle == FILLS[name_of_theme]["a"]
    with theme(name_of_theme):
        cmap = weights_cmap()
    assert [to_hex(cmap(x)) for x in (0.0, 1.0)] == [page, deep]
    # the middle of its 256 steps: within one step of A's fill
    np.testing.assert_allclose(cmap(0.5)[:3], to_rgb(middle), atol=1.5 / 255)


@pytest.mark.parametrize("name_of_theme", ["light", "dark"])
def test_no_fill_borrows_a_matrix_colour(name_of_theme) -> None:
    """Each matrix has its colour to itself: no other fill is the same or
    close to it (ΔE < 8) in normal vision."""
    from attention_book.diagrams import FILLS

    fills = FILLS[name_of_theme]
    close = [
        f"{other} {fills[other]} ~ {matrix} {fills[matrix]}"
        for matrix in MATRICES
        for other in fills
        if other != matrix
        and other not in MATRICES[: MATRICES.index(matrix)]
        and delta_e(fills[other], fills[matrix]) < 8
        and other not in ("box", "head1", "head2", "token1", "token2", "token3")
    ]
    assert not close, close


def test_figure_2_borrows_no_matrix_colour() -> None:
    """The paper's Figure 2 (docs_src/figures/, coloured by book.css): its
    blocks are operations, so none is drawn in a matrix's colour (Mask was
    A's pink, SoftMax V's green, MatMul S's lavender)."""
    import re

    from attention_book.diagrams import FILLS
    from tests.docs.test_figures import BLOCK_KINDS, CSS

    css = CSS.read_text(encoding="utf-8")
    slate = re.search(
        r'\[data-md-color-scheme="slate"\][^{]*\.fig2\s*\{(?P<body>[^}]*)\}', css
    )["body"]
    light = re.search(r"\.md-typeset \.fig2 \{(?P<body>[^}]*)\}", css)["body"]
    problems = []
    for name_of_theme, body in (("light", light), ("dark", slate)):
        for kind in BLOCK_KINDS:
            colour = re.search(rf"--fig2-{kind}:\s*(#[0-9a-f]{{6}})", body)[1]
            for matrix in MATRICES:
                fill = FILLS[name_of_theme][matrix]
                if delta_e(colour, fill) < 8:
                    problems.append(
                        f"{name_of_theme} {kind} {colour} ~ {matrix} {fill}"
                    )
    assert not problems, problems


def to_hex(rgb) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)


def test_contrast_is_wcags() -> None:
    assert contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert contrast(PAGE["light"], PAGE["light"]) == 1.0
    # Material's slate page, rgb(30, 32, 41), with the theme's text colour
    assert to_hex(PAGE["dark"]) == "#1e2029"
