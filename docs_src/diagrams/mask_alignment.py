"""Bottom-right alignment of the causal mask when n_q differs from n_k."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import bool_grid, canvas, legend, palette, text
from attention_docs import causal_mask

CELL = 22.0


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 222)
    accent = palette()["accent"]
    cases = [
        (causal_mask(2, 4), labels["fewer"], "n_{q} = 2,  n_{k} = 4"),
        (causal_mask(4, 2), labels["more"], "n_{q} = 4,  n_{k} = 2"),
    ]
    left = 30.0
    for mask, title, shape in cases:
        n_q, n_k = mask.shape
        text(ax, left - 10, 12, title, ha="left")
        text(ax, left - 10, 34, shape, ha="left")
        top = 70.0
        bool_grid(ax, left, top, mask, cell=CELL)
        for j in range(n_k):  # key positions 1..n_k
            text(ax, left + (j + 0.5) * CELL, top - 10, str(j + 1))
        for i in range(n_q):  # query i stands at position i + (n_k - n_q)
            y = top + (i + 0.5) * CELL
            text(ax, left - 6, y, str(i + 1), ha="right")
            if not np.any(mask[i]):
                text(
                    ax,
                    left + n_k * CELL + 8,
                    y,
                    labels["none"],
                    ha="left",
                    color=accent,
                    fontweight="bold",
                )
        left += 190
    text(ax, 4, 180, labels["axes"], ha="left")
    legend(ax, 30, 208, [("keep", "True"), ("mask", "False")])
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "fewer": "Fewer queries than keys",
        "more": "More queries than keys",
        "none": "no key",
        "axes": "left: query i; top: key j",
    }
    print(to_svg(figure(english)))
