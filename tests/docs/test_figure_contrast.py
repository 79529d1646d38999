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


#: The colours are the same in every language; only where a label falls can
#: differ: make test draws the Japanese figures, the exhaustive tier both.
@pytest.mark.parametrize("language", sample(LANGUAGES, ["ja"]))
@pytest.mark.parametrize("name_of_theme", ["light", "dark"])
@pytest.mark.parametrize(("kind", "name"), FIGURES)
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


def to_hex(rgb) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)


def test_contrast_is_wcags() -> None:
    assert contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert contrast(PAGE["light"], PAGE["light"]) == 1.0
    # Material's slate page, rgb(30, 32, 41), with the theme's text colour
    assert to_hex(PAGE["dark"]) == "#1e2029"
