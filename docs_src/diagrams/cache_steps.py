"""Decoding with a KV cache: each step appends one key and one value row."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import canvas, matrix, text, vector
from attention_docs import KVCache, attention_weights, project_qkv, running_example

CELL = 13.0


def figure(labels: dict) -> Figure:
    x, w_q, w_k, w_v = running_example()
    q, k, v = project_qkv(x, w_q, w_k, w_v)  # (3, 4) each
    cache = KVCache(d_k=k.shape[1], d_v=v.shape[1])
    fig, ax = canvas(370, 300)
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    for i in range(1, 4):  # step i: token i arrives
        cache.append(k[i - 1 : i], v[i - 1 : i])  # one row each
        top = 40.0 + (i - 1) * 86
        text(ax, 4, top + 20, f"i = {i}", ha="left")
        vector(
            ax, 52, top + 14, ["" for _ in range(4)], width=CELL, height=CELL, fill="q"
        )
        text(ax, 52 + 2 * CELL, top + 40, rf"\mathbf{{q}}_{{{i}}}")
        new = [i - 1]
        matrix(
            ax,
            136,
            top,
            len(cache),
            4,
            cell=CELL,
            fill="k",
            name="",
            highlight_rows=new,
        )
        text(ax, 136 + 2 * CELL, top + len(cache) * CELL + 14, "K")
        matrix(
            ax,
            220,
            top,
            len(cache),
            4,
            cell=CELL,
            fill="v",
            name="",
            highlight_rows=new,
        )
        text(ax, 220 + 2 * CELL, top + len(cache) * CELL + 14, "V")
        weights = attention_weights(q[i - 1 : i], cache.keys)[0]  # (i,)
        assert np.allclose(cache.attend(q[i - 1 : i]), weights @ cache.values)
        text(ax, 296, top + 6, "A:", ha="left")
        for j, weight in enumerate(weights):
            text(ax, 318, top + 6 + j * 16, f"{weight:.2f}", ha="left")
    text(ax, 4, 294, labels["new"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "Cached keys and values, step by step",
        "new": "coloured: the row the step appends",
    }
    print(to_svg(figure(english)))
