"""RoPE on pair 0: the row (1, 0, 1, 0) at positions 0 to 3 turns 1 radian a step."""

import numpy as np
from matplotlib import patheffects
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from attention_book.diagrams import arrow, canvas, palette, text
from attention_docs import apply_rope

RADIUS = 90.0
KEY_POSITION = 1  # r


def matrix_arrow(ax, start, end, fill: str, *, dashed: bool = False) -> None:
    """An arrow in a matrix's colour (Q's blue, K's peach), edged in the
    text's colour so that the pale fill reads on the page."""
    colours = palette()
    arrow(ax, start, end, colour=colours[fill], dashed=dashed)
    patch = ax.patches[-1]
    patch.set_linewidth(2.2)
    patch.set_path_effects(
        [
            patheffects.Stroke(linewidth=4.2, foreground=colours["text"]),
            patheffects.Normal(),
        ]
    )


def figure(labels: dict) -> Figure:
    x = np.tile([1.0, 0.0, 1.0, 0.0], (4, 1))  # the page's row at positions 0..3
    rotated = apply_rope(x)  # (4, 4): position m turns pair 0 by m radians
    fig, ax = canvas(370, 300)
    colours = palette()
    cx, cy = 170.0, 150.0
    ax.add_patch(
        Circle(
            (cx, cy),
            RADIUS,
            fill=False,
            edgecolor=colours["line"],
            linewidth=0.6,
            linestyle=(0, (3, 3)),
        )
    )
    ax.plot(
        [cx - RADIUS - 10, cx + RADIUS + 10],
        [cy, cy],
        color=colours["line"],
        linewidth=0.6,
    )
    ax.plot(
        [cx, cx],
        [cy - RADIUS - 10, cy + RADIUS + 10],
        color=colours["line"],
        linewidth=0.6,
    )
    text(ax, cx + RADIUS + 2, cy + 24, "x_{0}", ha="left")
    text(ax, cx + 8, cy - RADIUS - 10, "x_{1}", ha="left", va="bottom")
    for m, row in enumerate(rotated):
        u, w = row[0], row[1]  # the first pair, on the unit circle
        end = (cx + RADIUS * u, cy - RADIUS * w)  # y grows downwards
        matrix_arrow(ax, (cx, cy), end, "q")  # the query at m
        angle = np.arctan2(w, u)
        text(
            ax,
            cx + (RADIUS + 26) * np.cos(angle),
            cy - (RADIUS + 18) * np.sin(angle),
            f"m = {m}",
        )
    # the key at r = 1 and the angle (m - r) θ_0 to the query at m = 3
    r, m = KEY_POSITION, len(rotated) - 1
    key = 0.62 * RADIUS
    matrix_arrow(
        ax, (cx, cy), (cx + key * np.cos(r), cy - key * np.sin(r)), "k", dashed=True
    )
    text(
        ax,
        cx + (key + 8) * np.cos(r) + 12,  # clear of the query's arrow at m = r
        cy - (key + 8) * np.sin(r),
        rf"\mathbf{{k}}, r = {r}",
        ha="left",
    )
    arc = np.linspace(r, m, 40)
    ax.plot(
        cx + 0.32 * RADIUS * np.cos(arc),
        cy - 0.32 * RADIUS * np.sin(arc),
        color=colours["text"],
        linewidth=1,
    )
    text(
        ax,
        cx + 0.5 * RADIUS * np.cos((r + m) / 2) - 12,  # clear of m = 2's arrow
        cy - 0.5 * RADIUS * np.sin((r + m) / 2) - 6,
        f"(m − r) θ_{{0}} = {m - r}",
        ha="right",
    )
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    # one line, or several (a language whose sentence is wider than the figure)
    lines = labels["relative"]
    lines = [lines] if isinstance(lines, str) else lines
    for k, line in enumerate(reversed(lines)):
        text(ax, 4, 294 - 18 * k, line, ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "Pair 0 of (1, 0, 1, 0) at position m: turned by m θ_{0}",
        "relative": "query at m, key at r: the angle between them is (m − r) θ_{0}",
    }
    print(to_svg(figure(english)))
