"""The edition's language model on one sentence: every head's weights A.

The 3 layers are stacked from top to bottom, each layer's 4 heads in two rows
of two; each small map has the sentence's characters as queries (rows, one
tick label per row, left) and keys (columns, one per column, below the
layer's maps). The cells are wider than a character, so that the tick labels
stay apart and read as the sentence's tokens, not as one string.
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import canvas, cells, palette, text, weights_cmap
from attention_docs import causal_mask, load_pretrained
from attention_docs.plotting import hatch_masked

#: pitch of one cell, and the size of the characters that label it
CELL = 13.0
CHAR = 10.6
#: panels per row of a layer, the space between them, and the ticks' column
PER_ROW = 2
GAP = 16.0
TICKS = 15.0
#: the height of a title line (a layer's, a head's) and of the keys' ticks
LINE = 15.0


def heat(ax, x: float, y: float, a: np.ndarray, cell: float) -> None:
    """Matrix ``a`` (n, n) as cells of the weights' colours, top-left at (x, y);
    the cells the causal mask takes away hatched, as the masks figures are."""
    cmap, line = weights_cmap(), palette()["line"]
    n = a.shape[0]
    causal = [(i, j) for i in range(n) for j in range(i + 1)]  # keys 1..i only
    cells(
        ax,
        [(x + j * cell, y + i * cell) for i, j in causal],
        cell,
        [cmap(float(a[i, j])) for i, j in causal],
    )
    hatch_masked(ax, causal_mask(n), origin=(x, y), cell=cell)
    ax.add_patch(
        Rectangle((x, y), n * cell, n * cell, fill=False, edgecolor=line, lw=0.8)
    )


def figure(labels: dict) -> Figure:
    model = load_pretrained(labels["edition"])
    sentence = labels["sentence"]
    weights = model.attention(sentence)  # L x (h, n, n)
    n_layers, n_heads, n = len(weights), weights[0].shape[0], len(sentence)
    side = n * CELL
    rows = -(-n_heads // PER_ROW)
    left, top = 4.0 + TICKS + 3, 24.0
    width = left + PER_ROW * side + (PER_ROW - 1) * GAP + 4
    block = LINE + rows * (LINE + side) + (rows - 1) * 6 + LINE + 12
    height = top + n_layers * block + 44
    fig, ax = canvas(width, height)
    line = palette()["line"]
    # Japanese and Simplified fonts draw 、。， low at the left of their
    # square; the Traditional (Taiwan) font centres them
    corner = 0.3 * CHAR if labels["edition"] != "zh-Hant" else 0.0
    text(ax, 4, 4, sentence, ha="left", va="top", math=False)
    for layer in range(n_layers):
        y_layer = top + layer * block
        text(ax, 4, y_layer + LINE / 2, f"{labels['layer']} {layer + 1}", ha="left")
        for head in range(n_heads):
            row, col = divmod(head, PER_ROW)
            x = left + col * (side + GAP)
            y = y_layer + LINE + row * (LINE + side + 6) + LINE
            text(ax, x, y - LINE / 2, f"{labels['head']} {head + 1}", ha="left")
            heat(ax, x, y, weights[layer][head], CELL)
            if col == 0:  # the queries, once per row of maps
                for i, c in enumerate(sentence):
                    y_c = y + (i + 0.5) * CELL
                    ax.plot([x - 2.5, x], [y_c, y_c], color=line, lw=0.6)
                    # a comma or full stop low in its square: raise it
                    lift = corner if c in PUNCTUATION else 0.0
                    text(ax, x - 4, y_c - lift, c, size=CHAR, ha="right", math=False)
            if row == rows - 1:  # the keys, under the layer's last maps
                for j, c in enumerate(sentence):
                    x_c = x + (j + 0.5) * CELL
                    ax.plot([x_c, x_c], [y + side, y + side + 2.5], color=line, lw=0.6)
                    # ... and at the left of its square: move it under its column
                    shift = corner if c in PUNCTUATION else 0.0
                    text(
                        ax,
                        x_c + shift,
                        y + side + 3,
                        c,
                        size=CHAR,
                        va="top",
                        math=False,
                    )
    bottom = top + n_layers * block
    text(ax, width / 2, bottom, labels["keys"], va="top")
    scale(ax, width / 2, bottom + 30, labels["weight"])
    return fig


#: the punctuation that the figures' CJK fonts draw in a corner of its square
PUNCTUATION = "、。，"


def scale(ax, middle: float, y: float, name: str) -> None:
    """The colour scale of the weights, 0 to 1 in ten cells, centred at middle."""
    cmap, line = weights_cmap(), palette()["line"]
    steps, cell = 10, CELL
    x = middle - steps * cell / 2
    cells(
        ax,
        [(x + k * cell, y - cell / 2) for k in range(steps)],
        cell,
        [cmap((k + 0.5) / steps) for k in range(steps)],
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
