"""The induction model's two heads on a block of letters written twice.

Two heat maps, one under the other: the layer 1 head with the largest
previous-token score, its cells (i, i - 1) outlined, and the layer 2 head
with the largest induction score, its cells (m + t, t + 1) outlined (the
scores of the training log, measured on fresh random blocks).
"""

import json
from importlib import resources

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import FONT, canvas, cells, palette, text, weights_cmap
from attention_docs.language_model import load_induction_model

#: the block: np.random.default_rng(0).permutation(16) as letters
BLOCK = "cldkaehfomgjnibp"
CELL = 10.8
CHAR = 11.5


def chosen_heads() -> tuple[int, int]:
    """Heads (from 0): layer 1's best previous-token, layer 2's best induction."""
    log_file = resources.files("attention_docs") / "data" / "lm-induction.json"
    log = json.loads(log_file.read_text(encoding="utf-8"))
    prev = int(np.argmax(log["previous_token_score"][0]))
    ind = int(np.argmax(log["induction_score"][1]))
    return prev, ind


def figure(labels: dict) -> Figure:
    cmap, colours = weights_cmap(), palette()
    model = load_induction_model()
    sequence = BLOCK * 2
    n, m = len(sequence), len(BLOCK)
    weights = model.attention(sequence)  # [(h, n, n), (h, n, n)]
    prev, ind = chosen_heads()
    left, head_room = 23.0, 44.0
    map_height = head_room + n * CELL
    width = left + n * CELL + 4
    fig, ax = canvas(width, 2 * map_height + 34)
    outlined = [
        [(i, i - 1) for i in range(1, n)],
        [(m + t - 1, t) for t in range(1, m + 1)],  # positions m + t, t + 1
    ]
    for panel, (layer, head) in enumerate([(0, prev), (1, ind)]):
        a = weights[layer][head]
        top = panel * (map_height + 12) + head_room
        layer_label = f"{labels['layer']} {layer + 1}"
        text(ax, left, top - 30, layer_label, ha="left", va="bottom")
        em = sum(1.0 if ord(c) > 0x2E80 else 0.6 for c in layer_label)
        head_label = f"{labels['head']} {head + 1}"
        x = left + em * FONT + 12
        text(ax, x, top - 30, head_label, ha="left", va="bottom")
        pattern = labels[f"pattern_{panel + 1}"]
        text(ax, width - 4, top - 30, pattern, ha="right", va="bottom")
        causal = [(i, j) for i in range(n) for j in range(i + 1)]
        cells(
            ax,
            [(left + j * CELL, top + i * CELL) for i, j in causal],
            CELL,
            [cmap(float(a[i, j])) for i, j in causal],
        )
        for i, j in outlined[panel]:
            ax.add_patch(
                Rectangle(
                    (left + j * CELL, top + i * CELL),
                    CELL,
                    CELL,
                    fill=False,
                    edgecolor=colours["accent"],
                    lw=1.4,
                )
            )
        ax.add_patch(
            Rectangle(
                (left, top), n * CELL, n * CELL, fill=False, edgecolor=colours["line"]
            )
        )
        for k, c in enumerate(sequence):
            mid = (k + 0.5) * CELL
            # the rows' letters staggered in two columns: one under the other,
            # 10.8 units apart, a g's tail ran into the j below it
            text(
                ax,
                left - 4 - 7 * (k % 2),
                top + mid,
                c,
                size=CHAR,
                ha="right",
                math=False,
            )
            text(ax, left + mid, top - 2, c, size=CHAR, va="bottom", math=False)
    text(ax, left, 2 * map_height + 12 + 8, labels["keys"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "caption": "the induction model's two heads",
        "layer": "layer",
        "head": "head",
        "pattern_1": "box: (i, i-1)",
        "pattern_2": "box: (m+t, t+1)",
        "keys": "keys (columns), queries (rows)",
    }
    print(to_svg(figure(english)))
