"""Concat(head_1, ..., head_h) W^O as the sum of the heads' own maps head_i W^O_i."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, canvas, label_gap, matrix, text
from attention_docs import running_example

CELL = 14.0
H = 2  # the page's running example in two heads


def figure(labels: dict) -> Figure:
    x, *_ = running_example()
    n, d_model = x.shape  # 3, 4
    d_v = d_model // H  # 2
    fig, ax = canvas(370, 250)
    heads = [f"head{j // d_v + 1}" for j in range(d_model)]
    # top: the concatenated heads times W^O
    left, top = 40.0, 44.0
    width, _ = matrix(
        ax,
        left,
        top + CELL / 2,
        n,
        d_model,
        cell=CELL,
        fill="x",
        col_fills=heads,
        row_label="n",
        col_label="h d_{v}",
    )
    text(ax, left + width / 2, top + 4 * CELL + 12, "Concat")
    text(ax, left + width + 14, top + 2 * CELL, "·", size=MATH)
    w_left = left + width + 28
    for i in range(H):  # W^O in row blocks of d_v rows
        matrix(
            ax,
            w_left,
            top + i * d_v * CELL,
            d_v,
            d_model,
            cell=CELL,
            fill=f"head{i + 1}",
        )
        text(
            ax,
            w_left + d_model * CELL + 6,
            top + (i + 0.5) * d_v * CELL,
            f"W^{{O}}_{{{i + 1}}}",
            ha="left",
        )
    label = "d_{model}"
    text(ax, w_left + d_model * CELL / 2, top - label_gap(label), label, va="bottom")
    # bottom: the same product as a sum over the heads
    top = 150.0
    text(ax, 20, top + 1.5 * CELL, "=", size=MATH)
    left = 40.0
    for i in range(H):
        head_width, _ = matrix(
            ax,
            left,
            top,
            n,
            d_v,
            cell=CELL,
            fill=f"head{i + 1}",
        )
        text(ax, left + head_width / 2, top + n * CELL + 14, f"head_{{{i + 1}}}")
        w_left = left + head_width + 16
        text(ax, left + head_width + 8, top + 1.5 * CELL, "·", size=MATH)
        w_width, _ = matrix(
            ax,
            w_left,
            top + CELL / 2,
            d_v,
            d_model,
            cell=CELL,
            fill=f"head{i + 1}",
        )
        text(ax, w_left + w_width / 2, top + n * CELL + 14, f"W^{{O}}_{{{i + 1}}}")
        if i < H - 1:
            text(ax, w_left + w_width + 14, top + 1.5 * CELL, "+", size=MATH)
        left = w_left + w_width + 28
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    text(ax, 4, 242, labels["sum"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "Concatenate, then multiply by W^{O}",
        "sum": "= a sum of one linear map per head",
    }
    print(to_svg(figure(english)))
