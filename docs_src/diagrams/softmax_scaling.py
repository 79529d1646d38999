"""softmax(t x) for x = (1, 2, 3): a small t flattens the weights, a large t peaks."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import bars, canvas, text
from attention_docs import softmax

X = np.array([1.0, 2.0, 3.0])  # the page's example
FACTORS = (0.5, 1.0, 2.0, 5.0)


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 340)
    for index, t in enumerate(FACTORS):
        row, col = divmod(index, 2)
        left, baseline = 20.0 + col * 180, 160.0 + row * 160
        weights = softmax(t * X)
        bars(
            ax,
            left + 20,
            baseline,
            weights,
            top=1.0,
            height=90,
            width=32,
            gap=10,
            fill="a",
            names=["1", "2", "3"],
        )
        text(ax, left + 72, baseline - 112, f"t = {t:g}")
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"title": "Weights softmax(t x) for x = (1, 2, 3)"}
    print(to_svg(figure(english)))
