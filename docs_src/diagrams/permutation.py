"""Without positions, self-attention permutes its outputs as its inputs are permuted."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, canvas, shown_value, text, vector
from attention_docs import running_example, self_attention

ORDER = [1, 0, 2]  # swap the first two tokens


def rows(ax, left: float, top: float, names, values, fills, *, label_left: bool):
    """One row per token: its cells of ``values`` and its name beside them."""
    cell = 18.0 if label_left else 32.0
    for row, (name, value, fill) in enumerate(zip(names, values, fills, strict=True)):
        y = top + row * 30
        digits = 0 if label_left else 2
        vector(
            ax,
            left,
            y,
            [shown_value(v, digits) for v in value],
            width=cell,
            height=24,
            fill=fill,
        )
        if label_left:
            text(ax, left - 6, y + 12, name, ha="right")
        else:
            text(ax, left + 4 * cell + 6, y + 12, name, ha="left")


def figure(labels: dict) -> Figure:
    x, w_q, w_k, w_v = running_example()  # x: (3, 4), the book's example
    z = self_attention(x, w_q, w_k, w_v)  # (3, 4)
    z_swapped = self_attention(x[ORDER], w_q, w_k, w_v)
    assert np.allclose(z_swapped, z[ORDER])  # SelfAttention(P X) = P SelfAttention(X)
    fig, ax = canvas(370, 270)
    for top, order, title, outputs in (
        (40.0, [0, 1, 2], labels["original"], z),
        (172.0, ORDER, labels["swapped"], z_swapped),
    ):
        text(ax, 4, top - 18, title, ha="left")
        rows(
            ax,
            40,
            top,
            [rf"\mathbf{{x}}_{{{i + 1}}}" for i in order],
            x[order],
            ["x"] * len(order),  # X's colour, as every diagram draws X
            label_left=True,
        )
        arrow(ax, (118, top + 42), (198, top + 42))
        text(ax, 158, top + 34, "SelfAttention", va="bottom", size=12.5)
        # the outputs as computed from this order: the same rows, moved
        rows(
            ax,
            206,
            top,
            [rf"\mathbf{{z}}_{{{i + 1}}}" for i in order],
            outputs,
            ["z"] * len(order),  # the output Z's teal
            label_left=False,
        )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"original": "The tokens in order", "swapped": "The first two swapped"}
    print(to_svg(figure(english)))
