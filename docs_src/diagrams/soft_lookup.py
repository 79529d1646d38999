"""The soft dictionary look-up of the home page: compare, weigh, mix the values."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, canvas, palette, text, vector
from attention_docs import softmax

KEYS = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])  # the page's example
VALUES = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
QUERY = np.array([1.0, 0.0])


def figure(labels: dict) -> Figure:
    scores = KEYS @ QUERY  # q . k_j: (1, 0, -1)
    weights = softmax(scores)  # (0.665, 0.245, 0.090)
    z = weights @ VALUES
    fig, ax = canvas(370, 230)
    accent = palette()["accent"]

    def number(value) -> str:
        return f"{value + 0.0:g}".replace("-", "−")  # a minus sign, no "-0"

    def numbers(row):
        return [number(v) for v in row]

    text(ax, 40, 24, r"\mathbf{q}", ha="right")
    vector(ax, 46, 14, numbers(QUERY), width=26, fill="q")
    heads = [
        (44 + 26, r"\mathbf{k}_{j}"),
        (140, r"\mathbf{q}·\mathbf{k}_{j}"),
        (212, labels["weight"]),
        (300, r"\mathbf{v}_{j}"),
    ]
    for x, head in heads:
        text(ax, x, 62, head)
    for j in range(3):
        y = 78 + j * 30
        vector(ax, 44, y, numbers(KEYS[j]), width=26, fill="k")
        text(ax, 140, y + 10, number(scores[j]))
        arrow(ax, (156, y + 10), (184, y + 10))
        text(ax, 212, y + 10, f"{weights[j]:.3f}", color=accent, fontweight="bold")
        vector(ax, 274, y, numbers(VALUES[j]), width=26, fill="v")
    text(ax, 4, 196, labels["mix"], ha="left")
    text(
        ax,
        4,
        222,
        rf"\mathbf{{z}} = Σ_{{j}} a_{{j}} \mathbf{{v}}_{{j}} "
        f"= ({z[0]:.3f}, {z[1]:.3f})",
        ha="left",
        va="bottom",
        color=accent,
        fontweight="bold",
    )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"weight": "weight a_{j}", "mix": "The values mixed by the weights:"}
    print(to_svg(figure(english)))
