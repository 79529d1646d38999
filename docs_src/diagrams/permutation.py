"""Without positions, self-attention permutes its outputs as its inputs are permuted."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, canvas, text, vector
from attention_docs import running_example, self_attention

ORDER = [1, 0, 2]  # swap the first two tokens


def column(ax, left: float, top: float, names, fills) -> None:
    for row, (name, fill) in enumerate(zip(names, fills, strict=True)):
        vector(ax, left, top + row * 30, [name], width=56, height=24, fill=fill)


def figure(labels: dict) -> Figure:
    x, w_q, w_k, w_v = running_example()
    z = self_attention(x, w_q, w_k, w_v)  # (3, 4)
    z_swapped = self_attention(x[ORDER], w_q, w_k, w_v)
    assert np.allclose(z_swapped, z[ORDER])  # SelfAttention(P X) = P SelfAttention(X)
    fig, ax = canvas(370, 270)
    fills = ["token1", "token2", "token3"]  # one neutral shade per token
    for top, order, title in (
        (40.0, [0, 1, 2], labels["original"]),
        (172.0, ORDER, labels["swapped"]),
    ):
        text(ax, 4, top - 18, title, ha="left")
        column(
            ax,
            40,
            top,
            [rf"\mathbf{{x}}_{{{i + 1}}}" for i in order],
            [fills[i] for i in order],
        )
        arrow(ax, (108, top + 36), (200, top + 36))
        text(ax, 154, top + 28, "SelfAttention", va="bottom", size=12.5)
        column(
            ax,
            212,
            top,
            [rf"\mathbf{{z}}_{{{i + 1}}}" for i in order],
            [fills[i] for i in order],
        )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"original": "The tokens in order", "swapped": "The first two swapped"}
    print(to_svg(figure(english)))
