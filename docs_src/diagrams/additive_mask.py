"""A boolean mask M, the additive mask B (0 or -inf) and softmax(S + B): the example."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import MATH, bool_grid, canvas, legend, matrix, text
from attention_docs import (
    attention_scores,
    attention_weights,
    causal_mask,
    project_qkv,
    running_example,
)

CELL = 30.0


def figure(labels: dict) -> Figure:
    q, k, _ = project_qkv(*running_example())
    mask = causal_mask(3)  # (3, 3)
    b = np.where(mask, 0.0, -np.inf)  # the additive mask
    s = attention_scores(q, k)
    a = attention_weights(q, k, mask=mask)
    fig, ax = canvas(380, 200)
    top = 40.0
    bool_grid(ax, 14, top, mask, cell=CELL)
    text(ax, 14 + 1.5 * CELL, top + 3 * CELL + 12, "M")
    legend(ax, 14, top + 3 * CELL + 44, [("keep", "True"), ("mask", "False")])
    text(ax, 14 + 3 * CELL + 14, top + 1.5 * CELL, "→", size=MATH)
    matrix(
        ax,
        132,
        top,
        3,
        3,
        cell=CELL,
        fill="box",
        values=[["0" if v == 0 else "−∞" for v in row] for row in b],
    )
    text(ax, 132 + 1.5 * CELL, top + 3 * CELL + 12, "B")
    text(ax, 132 + 3 * CELL + 14, top + 1.5 * CELL, "→", size=MATH)
    matrix(
        ax,
        250,
        top,
        3,
        3,
        cell=CELL + 12,
        fill="a",
        values=[[f"{v:.3g}" for v in row] for row in a],
    )
    text(ax, 250 + 1.5 * (CELL + 12), top + 3 * (CELL + 12) + 16, "softmax(S + B)")
    assert np.allclose(a, attention_weights(q, k, mask=b == 0))
    assert s.shape == b.shape
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"title": "The same mask, added to the scores"}
    print(to_svg(figure(english)))
