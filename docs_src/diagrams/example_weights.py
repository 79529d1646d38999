"""The running example's scores S and weights A = softmax(S), each row summing to 1."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, canvas, matrix, text
from attention_docs import (
    attention_scores,
    attention_weights,
    project_qkv,
    running_example,
)

CELL = 38.0
S_LEFT = 18.0
GAP = 72.0  # between S and A: "softmax" and a margin on each side


def figure(labels: dict) -> Figure:
    q, k, _ = project_qkv(*running_example())  # (3, 4) each
    s = attention_scores(q, k)  # Q K^T / sqrt(d_k): (3, 3)
    a = attention_weights(q, k)  # softmax of each row: (3, 3)
    fig, ax = canvas(370, 220)
    top = 44.0
    matrix(
        ax,
        S_LEFT,
        top,
        3,
        3,
        cell=CELL,
        fill="s",
        values=[[f"{v:g}" for v in row] for row in s],
    )
    text(ax, S_LEFT + 1.5 * CELL, top + 3 * CELL + 16, "S")
    middle = S_LEFT + 3 * CELL + GAP / 2
    text(ax, middle, top + 1.5 * CELL, "→", size=MATH)
    text(ax, middle, top + 1.5 * CELL - 18, "softmax", size=12.5)
    left = S_LEFT + 3 * CELL + GAP
    matrix(
        ax,
        left,
        top,
        3,
        3,
        cell=CELL,
        fill="a",
        values=[[f"{v:.3f}" for v in row] for row in a],
    )
    text(ax, left + 1.5 * CELL, top + 3 * CELL + 16, "A")
    for i in range(3):
        text(
            ax,
            left + 3 * CELL + 6,
            top + (i + 0.5) * CELL,
            f"Σ = {a[i].sum():g}",
            ha="left",
        )
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"title": "Row by row: scores to weights"}
    print(to_svg(figure(english)))
