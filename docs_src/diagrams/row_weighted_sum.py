"""x B as a weighted sum of the rows of B: the page's worked example (5, 6)."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import MATH, canvas, palette, text, vector
from attention_docs.linalg import weighted_sum_of_rows

X = np.array([5.0, 6.0])  # the page's worked example
B = np.array([[1.0, 2.0], [3.0, 4.0]])


def figure(labels: dict) -> Figure:
    result = weighted_sum_of_rows(X, B)  # (23, 34)
    fig, ax = canvas(370, 210)
    accent = palette()["accent"]
    cell = 34.0
    # x B = ...
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    vector(ax, 20, 54, [f"{v:g}" for v in X], width=cell, fill="a")
    text(ax, 20 + cell, 94, r"\mathbf{x}")
    text(ax, 104, 64, "·", size=MATH)
    for i, row in enumerate(B):
        vector(
            ax,
            120,
            44 + i * 22,
            [f"{v:g}" for v in row],
            width=cell,
            height=22,
            fill="v",
        )
        text(
            ax, 120 + 2 * cell + 6, 55 + i * 22, rf"\mathbf{{b}}_{{{i + 1}}}", ha="left"
        )
    text(ax, 120 + cell, 110, "B")
    # = x_1 b_1 + x_2 b_2 = result
    text(ax, 4, 150, "=", size=MATH)
    left = 20.0
    for i, row in enumerate(B):
        text(ax, left, 150, f"{X[i]:g} ×", ha="left", color=accent, fontweight="bold")
        left += 30
        left += vector(ax, left, 140, [f"{v:g}" for v in row], width=26, fill="v")
        text(ax, left + 12, 150, "+" if i == 0 else "=", size=MATH)
        left += 24
    vector(ax, left, 140, [f"{v:g}" for v in result], width=cell, fill="z")
    text(ax, 4, 202, labels["rows"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "A row vector times a matrix",
        "rows": "the components of x weigh the rows of B",
    }
    print(to_svg(figure(english)))
