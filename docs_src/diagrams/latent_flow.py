"""MLA's data flow for head i: x_t -> c_t (cached) -> k^C, v^C; k^R (cached);
then the absorbed step, W^UK on the query side and W^UV with W^O."""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import arrow, box, canvas, matrix, palette, text
from attention_docs import latent_attention_params

CELL = 10.0
ROWS = 5  # cached tokens j = 1, ..., t drawn in the absorbed step
#: The height of a projection's node: its label's superscript and subscript
#: stay inside the frame.
NODE = 30.0


def sizes() -> dict[str, int]:
    """The widths of the page's example layer (#low-rank, #decoupled-rope)."""
    n_heads = 4
    p = latent_attention_params(16, n_heads, 4, 6, 8, 2, rng=np.random.default_rng(0))
    return {
        "d_model": p["w_dkv"].shape[0],
        "d_cq": p["w_dq"].shape[1],
        "d_c": p["w_dkv"].shape[1],
        "d_h": p["w_uk"].shape[1] // n_heads,
        "d_r": p["w_kr"].shape[1],
        "n_h": n_heads,
    }


def weight(ax, centre: float, y: float, label: str, width: float) -> None:
    """A projection drawn as a node on its arrow."""
    box(ax, centre - width / 2, y, width, NODE, label, fill="w")


def cached(ax, left: float, top: float, width: float, height: float) -> None:
    """The accent frame of what the cache keeps."""
    colours = palette()
    ax.add_patch(
        Rectangle(
            (left - 4, top - 4),
            width + 8,
            height + 8,
            fill=False,
            edgecolor=colours["accent"],
            linewidth=1.6,
            linestyle=(0, (4, 2)),
        )
    )


def figure(labels: dict) -> Figure:
    s = sizes()
    colours = palette()
    fig, ax = canvas(370, 672)
    # -- as defined: every head's keys and values made from c_t -------------
    text(ax, 4, 6, labels["plain"], ha="left", va="top")
    x_left = 185 - s["d_model"] * CELL / 2
    matrix(ax, x_left, 32, 1, s["d_model"], cell=CELL, fill="x")
    text(ax, x_left - 6, 37, r"\mathbf{x}_{t}", ha="right")
    top = 74.0
    columns = {"q": 62.0, "c": 190.0, "r": 318.0}
    weight(ax, columns["q"], top, "W^{DQ}", 52)
    weight(ax, columns["c"], top, "W^{DKV}", 60)
    weight(ax, columns["r"], top, "W^{KR}, RoPE", 96)
    for key in columns:
        arrow(ax, (185 + (columns[key] - 190) * 0.25, 42), (columns[key], top))
    row = 124.0
    for key, cols, fill, name in (
        ("q", s["d_cq"], "q", r"\mathbf{c}^{Q}_{t}"),
        ("c", s["d_c"], "box", r"\mathbf{c}_{t}"),
        ("r", s["d_r"], "k", r"\mathbf{k}^{R}_{t}"),
    ):
        arrow(ax, (columns[key], top + 22), (columns[key], row))
        left = columns[key] - cols * CELL / 2
        matrix(ax, left, row, 1, cols, cell=CELL, fill=fill)
        if key != "q":
            cached(ax, left, row, cols * CELL, CELL)
        text(ax, left + cols * CELL + 8, row + 5, name, ha="left")
    # the legend of the accent frame, right of the title
    cached(ax, 268, 6, 14, CELL)
    text(ax, 292, 11, labels["cache"], color=colours["accent"], ha="left")
    heads = 190.0
    below = 244.0
    branches = (
        ("q", 30.0, "W^{UQ}_{i}", s["d_h"], "q", r"\mathbf{q}^{C}_{t,i}"),
        ("q", 108.0, "W^{QR}_{i}, RoPE", s["d_r"], "q", r"\mathbf{q}^{R}_{t,i}"),
        ("c", 190.0, "W^{UK}_{i}", s["d_h"], "k", r"\mathbf{k}^{C}_{t,i}"),
        ("c", 258.0, "W^{UV}_{i}", s["d_h"], "v", r"\mathbf{v}^{C}_{t,i}"),
        ("r", 334.0, "", s["d_r"], "k", r"\mathbf{k}^{R}_{t}"),
    )
    for key, centre, name, cols, fill, out in branches:
        if name:
            width = 92 if "RoPE" in name else 52
            arrow(ax, (columns[key], row + 16), (centre, heads))
            weight(ax, centre, heads, name, width)
            arrow(ax, (centre, heads + NODE), (centre, below))
        else:  # k^R_t joins every head's key as it is
            arrow(ax, (columns[key], row + 16), (centre, below))
        matrix(ax, centre - cols * CELL / 2, below, 1, cols, cell=CELL, fill=fill)
        text(ax, centre, below + CELL + 6, out, va="top")
    text(ax, 366, below + 46, labels["shared"], ha="right")
    # k^C and v^C are drawn, but never kept: the step below absorbs them
    text(ax, 200, below + 46, labels["not_cached"], ha="center")
    ax.plot([4, 366], [306, 306], color=colours["line"], linewidth=0.8)
    # -- absorbed: one decoding step of head i against the cache ------------
    text(ax, 4, 314, labels["absorbed"], ha="left", va="top")
    width = (s["d_c"] + s["d_r"]) * CELL
    left = 190 - width / 2
    c_part = left + s["d_c"] * CELL / 2  # over the cache's c_j columns
    r_part = left + s["d_c"] * CELL + s["d_r"] * CELL / 2  # over k^R_j
    cq_left = c_part - s["d_cq"] * CELL / 2
    matrix(ax, cq_left, 340, 1, s["d_cq"], cell=CELL, fill="q")
    text(ax, cq_left - 8, 345, r"\mathbf{c}^{Q}_{t}", ha="right")
    absorbed_q, rope_q, node_top = 124.0, 92.0, 368.0
    weight(ax, c_part, node_top, "W^{UQ}_{i} (W^{UK}_{i})^{⊤}", absorbed_q)
    weight(ax, 366 - rope_q / 2, node_top, "W^{QR}_{i}, RoPE", rope_q)
    arrow(ax, (c_part, 350), (c_part, node_top))
    arrow(ax, (cq_left + s["d_cq"] * CELL, 345), (366 - rope_q / 2, node_top))
    text(
        ax,
        c_part - absorbed_q / 2 - 6,
        node_top + 15,
        labels["into_query"],
        ha="right",
        color=colours["accent"],
    )
    query = 414.0
    arrow(ax, (c_part, node_top + NODE), (c_part, query))
    arrow(ax, (366 - rope_q / 2, node_top + NODE), (r_part + 4, query))
    matrix(ax, left, query, 1, s["d_c"], cell=CELL, fill="q")
    matrix(ax, left + s["d_c"] * CELL, query, 1, s["d_r"], cell=CELL, fill="q")
    text(ax, left - 10, query + 5, labels["query"], ha="right")
    cache_top = query + 26
    matrix(ax, left, cache_top, ROWS, s["d_c"], cell=CELL, fill="box")
    matrix(ax, left + s["d_c"] * CELL, cache_top, ROWS, s["d_r"], cell=CELL, fill="k")
    cached(ax, left, cache_top, width, ROWS * CELL)
    middle = cache_top + ROWS * CELL / 2
    text(
        ax, left - 10, middle - 10, labels["cache"], ha="right", color=colours["accent"]
    )
    text(
        ax, left - 10, middle + 10, r"[\mathbf{c}_{j}; \mathbf{k}^{R}_{j}]", ha="right"
    )
    # the weights a_tj: one per cached row
    a_left = left + width + 70
    arrow(ax, (left + width + 8, middle), (a_left - 6, middle))
    text(ax, left + width + 38, middle - 10, "softmax")
    matrix(ax, a_left, cache_top, ROWS, 1, cell=CELL, fill="a")
    text(ax, a_left + CELL + 6, middle, "a_{t\u2009j}", ha="left")
    total = cache_top + ROWS * CELL + 34
    sum_mid = left + s["d_c"] * CELL / 2
    arrow(ax, (sum_mid, cache_top + ROWS * CELL + 8), (sum_mid, total))
    arrow(
        ax,
        (a_left + CELL / 2, cache_top + ROWS * CELL + 8),
        (left + s["d_c"] * CELL + 6, total + CELL / 2),
    )
    matrix(ax, left, total, 1, s["d_c"], cell=CELL, fill="box")
    text(
        ax, left - 10, total + 5, "Σ_{j} a_{t\u2009j} " + r"\mathbf{c}_{j}", ha="right"
    )
    weight(ax, sum_mid, total + 30, "W^{UV}_{i} W^{O}_{i}", 96)
    text(
        ax,
        sum_mid - 48 - 6,
        total + 45,
        labels["into_output"],
        ha="right",
        color=colours["accent"],
    )
    arrow(ax, (sum_mid, total + CELL), (sum_mid, total + 30))
    out = total + 30 + NODE + 20
    arrow(ax, (sum_mid, total + 30 + NODE), (sum_mid, out))
    out_left = sum_mid - s["d_model"] * CELL / 2
    matrix(ax, out_left, out, 1, s["d_model"], cell=CELL, fill="z")
    text(ax, sum_mid, out + CELL + 6, labels["output"], va="top")
    text(
        ax,
        4,
        662,
        f"d_{{model}} = {s['d_model']},  d'_{{c}} = {s['d_cq']},  d_{{c}} = {s['d_c']},"
        f"  d_{{h}} = {s['d_h']},  d_{{h}}^{{R}} = {s['d_r']}",
        ha="left",
        va="bottom",
    )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "plain": "as defined",
        "absorbed": "absorbed: one decoding step of head i",
        "cache": "cached",
        "shared": "all heads",
        "output": "head i's share of the output",
        "not_cached": "not cached: absorbed below",
        "query": "query",
        "into_query": "W^{UK}_{i} absorbed",
        "into_output": "W^{UV}_{i} absorbed",
    }
    print(to_svg(figure(english)))
