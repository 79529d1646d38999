"""The previous-token head of the edition's model on the page's sentence.

The head is the one whose mean weight on key i - 1 is largest on held-out
text (16 windows of 128 characters); its weights on the sentence are drawn
with their values (those of at least 0.05), the cells (i, i - 1) outlined.
"""

import functools

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import FONT, canvas, palette, text, weights_cmap
from attention_docs import load_pretrained
from attention_docs.language_model import forward, load_corpus, split_corpus

CELL = 31.0
CHAR = 13.0
NUMBER = 11.7
#: smaller weights are left without their number
SHOWN = 0.05


@functools.cache  # the same for both colour schemes
def previous_token_head(edition: str) -> tuple[int, int]:
    """(layer, head), from 0, with the largest mean A[i, i - 1] on held-out text."""
    model = load_pretrained(edition)
    held_out = split_corpus(load_corpus(edition))[1]
    n = model.config.context
    windows = [held_out[s : s + n] for s in range(0, 16 * n, n)]
    ids = np.array([model.tokenizer.encode(w) for w in windows])
    _, weights = forward(model.params, model.config, ids, return_weights=True)
    i = np.arange(1, n)
    prev = np.stack(weights, axis=1)[..., i, i - 1].mean(axis=(0, 3))  # (L, h)
    layer, head = np.unravel_index(prev.argmax(), prev.shape)
    return int(layer), int(head)


def figure(labels: dict) -> Figure:
    edition = labels["edition"]
    model = load_pretrained(edition)
    layer, head = previous_token_head(edition)
    sentence = labels["sentence"]
    a = model.attention(sentence)[layer][head]  # (n, n)
    n = len(sentence)
    cmap, colours = weights_cmap(), palette()
    left, top = 44.0, 66.0
    width = left + n * CELL + 6
    fig, ax = canvas(width, top + n * CELL + 30)
    text(ax, 4, 6, sentence, ha="left", va="top")
    head_label = f"{labels['head']} {head + 1}"
    text(ax, width - 4, 6, head_label, ha="right", va="top")
    em = sum(1.0 if ord(c) > 0x2E80 else 0.6 for c in head_label)
    right = width - 4 - em * FONT - 12
    text(ax, right, 6, f"{labels['layer']} {layer + 1}", ha="right", va="top")
    for i in range(n):
        for j in range(i + 1):
            fill = cmap(float(a[i, j]))
            x, y = left + j * CELL, top + i * CELL
            ax.add_patch(Rectangle((x, y), CELL, CELL, facecolor=fill, lw=0))
            if a[i, j] < SHOWN:
                continue
            r, g, b = fill[:3]
            light = 0.2126 * r**2.2 + 0.7152 * g**2.2 + 0.0722 * b**2.2 > 0.18
            digits = f"{a[i, j]:.2f}"
            text(
                ax,
                x + CELL / 2,
                y + CELL / 2,
                digits,
                size=NUMBER,
                color="#000000" if light else "#ffffff",
            )
    for i in range(1, n):  # the cells (i, i - 1)
        ax.add_patch(
            Rectangle(
                (left + (i - 1) * CELL, top + i * CELL),
                CELL,
                CELL,
                fill=False,
                edgecolor=colours["accent"],
                lw=1.6,
            )
        )
    ax.add_patch(
        Rectangle(
            (left, top), n * CELL, n * CELL, fill=False, edgecolor=colours["line"]
        )
    )
    for k, c in enumerate(sentence):
        mid = k + 0.5
        text(ax, left - 26, top + mid * CELL, str(k + 1), size=NUMBER, ha="right")
        text(ax, left - 5, top + mid * CELL, c, size=CHAR, ha="right")
        text(ax, left + mid * CELL, top - 22, str(k + 1), size=NUMBER, va="bottom")
        text(ax, left + mid * CELL, top - 4, c, size=CHAR, va="bottom")
    text(ax, left, top + n * CELL + 10, labels["keys"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "caption": "the previous-token head",
        "sentence": "字を読み、字を書く。",
        "layer": "layer",
        "head": "head",
        "keys": "keys (columns), queries (rows)",
        "edition": "ja",
    }
    print(to_svg(figure(english)))
