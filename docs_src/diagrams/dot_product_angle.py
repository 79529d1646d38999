"""q . k = |q| |k| cos(theta): one query and three keys of the same length."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, text

UNIT = 68.0  # SVG units per unit of length
ANGLES = (30.0, 90.0, 150.0)  # degrees between each key and the query


def vectors() -> tuple[np.ndarray, np.ndarray]:
    """The query (2, 0) and three keys of length 1.5, as rows."""
    q = np.array([2.0, 0.0])
    turns = np.radians(ANGLES)
    k = 1.5 * np.stack([np.cos(turns), np.sin(turns)], axis=1)
    return q, k


def number(value: float) -> str:
    """Two decimals, with a minus sign and no "-0.00"."""
    return f"{round(float(value), 2) + 0.0:.2f}".replace("-", "−")


def figure(labels: dict) -> Figure:
    q, k = vectors()
    dots = k @ q  # q . k_j
    theta = np.degrees(
        np.arccos(dots / (np.linalg.norm(k, axis=1) * np.linalg.norm(q)))
    )
    best = int(np.argmax(dots))
    colours = palette()
    fig, ax = canvas(360, 326)
    text(ax, 4, 10, labels["title"], ha="left", va="top")
    ox, oy = 160.0, 170.0  # the origin; y grows downwards

    def at(v: np.ndarray, scale: float = 1.0) -> tuple[float, float]:
        return ox + scale * UNIT * v[0], oy - scale * UNIT * v[1]

    ax.plot([ox - 125, ox + 155], [oy, oy], color=colours["line"], linewidth=0.6)
    # the angle between the query and the best key
    turn = np.linspace(0.0, np.radians(theta[best]), 30)
    ax.plot(
        ox + 32 * np.cos(turn), oy - 32 * np.sin(turn), color=colours["accent"], lw=1
    )
    half = np.radians(theta[best] / 2)
    text(ax, ox + 46 * np.cos(half), oy - 46 * np.sin(half), "θ_{1}")
    arrow(ax, (ox, oy), at(q), colour=colours["text"])
    x, y = at(q)
    box(ax, x - 11, y + 6, 22, 22, r"\mathbf{q}", fill="q")
    for j, key in enumerate(k):
        arrow(
            ax,
            (ox, oy),
            at(key),
            colour=colours["accent"] if j == best else colours["line"],
            dashed=j != best,
        )
        x, y = at(key, 1.0 + 22 / (UNIT * np.linalg.norm(key)))
        box(ax, x - 16, y - 11, 32, 22, rf"\mathbf{{k}}_{{{j + 1}}}", fill="k")
    # the three products, computed above, the largest marked
    top = oy + 44
    for j in range(len(k)):
        y = top + 22 * j
        emphasis = {"color": colours["accent"]} if j == best else {}
        text(ax, 20, y, f"θ_{{{j + 1}}} = {theta[j]:.0f}°", ha="left", **emphasis)
        text(
            ax,
            120,
            y,
            rf"\mathbf{{q}} · \mathbf{{k}}_{{{j + 1}}} = {number(dots[j])}",
            ha="left",
            **emphasis,
        )
        if j == best:
            text(ax, 240, y, labels["largest"], ha="left", **emphasis)
    lengths = (
        rf"‖\mathbf{{q}}‖ = {np.linalg.norm(q):g}, "
        rf"‖\mathbf{{k}}_{{j}}‖ = {np.linalg.norm(k[0]):g}"
    )
    text(ax, 20, top + 22 * len(k) + 4, lengths, ha="left")
    text(ax, 4, 322, labels["formula"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "One query, three keys of the same length",
        "largest": "largest",
        "formula": "q · k = ‖q‖ ‖k‖ cos θ",
    }
    print(to_svg(figure(english)))
