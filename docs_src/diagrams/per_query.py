"""One query against all keys: dot products, scale, softmax, weighted sum of values."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, canvas, palette, text, vector
from attention_docs import project_qkv, running_example, softmax


def figure(labels: dict) -> Figure:
    x, w_q, w_k, w_v = running_example()
    q, k, v = project_qkv(x, w_q, w_k, w_v)  # (3, 4) each
    d_k = q.shape[1]
    dots = k @ q[0]  # q_1 . k_j, (3,)
    scaled = dots / np.sqrt(d_k)
    weights = softmax(scaled)
    z = weights @ v  # (3,) @ (3, 4) -> (4,)
    fig, ax = canvas(370, 360)
    accent = palette()["accent"]

    def ints(row):
        return [f"{value:g}" for value in row]

    text(ax, 4, 8, labels["title"], ha="left", va="top")
    text(ax, 52, 48, r"\mathbf{q}_{1}", ha="right")
    vector(ax, 58, 38, ints(q[0]), width=20, fill="q")
    # the table: one row per key
    heads = [
        (150, r"\mathbf{q}_{1}·\mathbf{k}_{j}"),
        (212, f"÷√{d_k}"),
        (290, labels["softmax"]),
    ]
    for left, head in heads:
        text(ax, left, 82, head)
    for j in range(3):
        y = 96 + j * 28
        text(ax, 52, y + 10, rf"\mathbf{{k}}_{{{j + 1}}}", ha="right")
        vector(ax, 58, y, ints(k[j]), width=20, fill="k")
        text(ax, 150, y + 10, f"{dots[j]:g}")
        text(ax, 212, y + 10, f"{scaled[j]:g}")
        text(ax, 290, y + 10, f"{weights[j]:.3f}", color=accent, fontweight="bold")
        arrow(ax, (168, y + 10), (192, y + 10))
        arrow(ax, (232, y + 10), (262, y + 10))
    text(ax, 4, 196, labels["sum"], ha="left")
    for j in range(3):
        y = 214 + j * 28
        text(ax, 52, y + 10, f"{weights[j]:.3f} ×", ha="right", color=accent)
        vector(ax, 58, y, ints(v[j]), width=40, fill="v")
        text(ax, 58 + 4 * 40 + 10, y + 10, rf"\mathbf{{v}}_{{{j + 1}}}", ha="left")
    ax.plot([58, 58 + 4 * 40], [302, 302], color=palette()["line"], linewidth=1.2)
    text(ax, 52, 322, r"\mathbf{z}_{1} =", ha="right")
    vector(ax, 58, 312, [f"{value:.3f}" for value in z], width=40, fill="z")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "The output of query 1",
        "softmax": "softmax",
        "sum": "Weighted sum of the values",
    }
    print(to_svg(figure(english)))
