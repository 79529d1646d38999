"""softmax(1, 2, 3): the inputs, their exponentials, and the weights that sum to 1."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import MATH, bars, canvas, text
from attention_docs import softmax

X = np.array([1.0, 2.0, 3.0])  # the page's example


def figure(labels: dict) -> Figure:
    exp = np.exp(X)
    weights = softmax(X)  # (0.090, 0.245, 0.665)
    fig, ax = canvas(370, 230)
    names = ["1", "2", "3"]
    baseline = 180.0
    panels = [
        (8.0, X, 3.0, "s", 0, labels["inputs"], "x_{j}"),
        (132.0, exp, exp.max(), "exp", 1, labels["exp"], "exp(x_{j})"),
        (256.0, weights, 1.0, "a", 3, labels["weights"], "softmax"),
    ]
    for left, values, top, fill, digits, title, symbol in panels:
        bars(
            ax,
            left + 6,
            baseline,
            values,
            top=top,
            height=110,
            width=26,
            gap=6,
            fill=fill,
            digits=digits,
            names=names,
        )
        text(ax, left + 50, 16, title)
        text(ax, left + 50, 36, symbol)
    text(ax, 124, 120, "→", size=MATH)
    text(ax, 248, 120, "→", size=MATH)
    total = f"Σ_{{p}} exp(x_{{p}}) = {exp.sum():.3f}"
    text(ax, 4, 224, f"{labels['sum']}  {total}", ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "inputs": "inputs",
        "exp": "exponentials",
        "weights": "weights",
        "sum": "divided by their sum:",
    }
    print(to_svg(figure(english)))
