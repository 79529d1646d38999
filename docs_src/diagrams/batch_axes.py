"""Batch dimensions: an array (batch, h, n_q, d_k) is a grid of n_q x d_k matrices."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import canvas, matrix, text
from attention_docs import split_heads

CELL = 11.0
SHAPE = (2, 3, 8)  # (batch, n, d_model) split into h = 2 heads


def figure(labels: dict) -> Figure:
    q = split_heads(np.zeros(SHAPE), 2)  # (batch, h, n, d_k) = (2, 2, 3, 4)
    batch, h, n_q, d_k = q.shape
    fig, ax = canvas(370, 230)
    text(ax, 4, 8, f"q.shape = {q.shape}", ha="left", va="top", family="monospace")
    for b in range(batch):
        top = 70.0 + b * 70
        text(ax, 4, top + n_q * CELL / 2, f"{labels['sequence']} {b + 1}", ha="left")
        for i in range(h):
            left = 130.0 + i * 110
            if b == 0:
                text(ax, left + d_k * CELL / 2, 38, f"{labels['head']} {i + 1}")
            matrix(
                ax,
                left,
                top,
                n_q,
                d_k,
                cell=CELL,
                fill=f"head{i + 1}",
                row_label="n_{q}",
                col_label="d_{k}",
            )
    text(ax, 4, 224, labels["last_two"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "sequence": "sequence",
        "head": "head",
        "last_two": "the last two axes are the matrix; the others count matrices",
    }
    print(to_svg(figure(english)))
