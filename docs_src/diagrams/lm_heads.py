"""The edition's language model on one sentence: every head's weights A.

Columns are the 3 layers, rows the 4 heads; each small map has the
sentence's characters as queries (rows, left) and keys (columns, below).
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import canvas, palette, text, weights_cmap
from attention_docs import load_pretrained

#: pitch of one character (a cell), and the size of the characters
CELL = 11.3
CHAR = 11.6
GAP = 6.0


def heat(ax, x: float, y: float, a: np.ndarray, cell: float) -> None:
    """Matrix ``a`` (n, n) as cells of the weights' colours, top-left at (x, y)."""
    cmap, line = weights_cmap(), palette()["line"]
    n = a.shape[0]
    for i in range(n):
        for j in range(i + 1):  # causal: keys 1..i only
            ax.add_patch(
                Rectangle(
                    (x + j * cell, y + i * cell),
                    cell,
                    cell,
                    facecolor=cmap(float(a[i, j])),
                    edgecolor="none",
                )
            )
    ax.add_patch(
        Rectangle((x, y), n * cell, n * cell, fill=False, edgecolor=line, lw=0.8)
    )


def figure(labels: dict) -> Figure:
    model = load_pretrained(labels["edition"])
    sentence = labels["sentence"]
    weights = model.attention(sentence)  # L x (h, n, n)
    n_layers, n_heads, n = len(weights), weights[0].shape[0], len(sentence)
    side = n * CELL
    left, top = 18.0, 40.0
    width = left + n_layers * side + (n_layers - 1) * GAP + 2
    height = top + n_heads * (side + GAP + 14) + CELL + 56
    fig, ax = canvas(width, height)
    text(ax, 4, 6, sentence, ha="left", va="top")
    for layer in range(n_layers):
        x = left + layer * (side + GAP)
        text(ax, x + side / 2, top - 8, f"{labels['layer']} {layer + 1}", va="bottom")
        for head in range(n_heads):
            y = top + head * (side + GAP + 14) + 14
            heat(ax, x, y, weights[layer][head], CELL)
            if layer == 0:
                text(ax, 2, y - 8, f"{labels['head']} {head + 1}", ha="left")
                for i, c in enumerate(sentence):
                    # a comma or full stop low in its square: raise it
                    lift = 0.3 * CELL if c in PUNCTUATION else 0.0
                    y_c = y + (i + 0.5) * CELL - lift
                    text(ax, x - 3, y_c, c, size=CHAR, ha="right", math=False)
    bottom = top + n_heads * (side + GAP + 14)
    for layer in range(n_layers):
        x = left + layer * (side + GAP)
        for j, c in enumerate(sentence):
            # ... and at the left of its square: move it under its column
            shift = 0.3 * CELL if c in PUNCTUATION else 0.0
            x_c = x + (j + 0.5) * CELL + shift
            text(ax, x_c, bottom + 2, c, size=CHAR, va="top", math=False)
    text(ax, width / 2, bottom + CELL + 14, labels["keys"], va="top")
    scale(ax, width / 2, bottom + CELL + 42, labels["weight"])
    return fig


#: the punctuation that the figures' CJK fonts draw in a corner of its square
PUNCTUATION = "、。，"


def scale(ax, middle: float, y: float, name: str) -> None:
    """The colour scale of the weights, 0 to 1 in ten cells, centred at middle."""
    cmap, line = weights_cmap(), palette()["line"]
    steps, cell = 10, CELL
    x = middle - steps * cell / 2
    for k in range(steps):
        colour = cmap((k + 0.5) / steps)
        ax.add_patch(
            Rectangle((x + k * cell, y - cell / 2), cell, cell, facecolor=colour)
        )
    ax.add_patch(
        Rectangle(
            (x, y - cell / 2), steps * cell, cell, fill=False, edgecolor=line, lw=0.8
        )
    )
    text(ax, x - 4, y, f"{name} 0", ha="right")
    text(ax, x + steps * cell + 4, y, "1", ha="left")


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "caption": "every head",
        "sentence": "字を読み、字を書く。",
        "layer": "layer",
        "head": "head",
        "keys": "keys (columns), queries (rows)",
        "weight": "weight",
        "edition": "ja",
    }
    print(to_svg(figure(english)))
