"""X projected by W_Q, W_K, W_V into Q, K, V: the running example's shapes."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, arrow, canvas, matrix, text
from attention_docs import running_example

CELL = 12.0


def figure(labels: dict) -> Figure:
    x, w_q, w_k, w_v = running_example()
    n, d_model = x.shape  # 3, 4
    fig, ax = canvas(370, 300)
    top = 24.0
    x_left, x_top = 30.0, top + 108
    width, height = matrix(
        ax,
        x_left,
        x_top,
        n,
        d_model,
        cell=CELL,
        name="X",
        fill="x",
        row_label="n",
        col_label="d_{model}",
    )
    text(ax, x_left + width / 2, x_top + height + 16, labels["input"])
    branches = [
        ("W_{Q}", w_q, "Q", "q", "d_{k}"),
        ("W_{K}", w_k, "K", "k", "d_{k}"),
        ("W_{V}", w_v, "V", "v", "d_{v}"),
    ]
    for index, (w_name, w, out, fill, width_label) in enumerate(branches):
        y = top + 14 + index * 92
        w_left = 196.0
        w_middle = y + d_model * CELL / 2
        # X W: the product that gives Q, K and V, as in the figure of x_2 W_Q
        arrow(ax, (x_left + width + 6, x_top + height / 2), (w_left - 44, w_middle))
        text(ax, w_left - 30, w_middle, "X", size=MATH)
        text(ax, w_left - 14, w_middle, "·", size=MATH)
        w_width, w_height = matrix(
            ax,
            w_left,
            y,
            w.shape[0],
            w.shape[1],
            cell=CELL,
            name=w_name,
            fill="w",
            row_label=None,
            col_label=width_label,
        )
        text(ax, w_left + w_width + 20, y + w_height / 2, "=", size=MATH)
        out_left = w_left + w_width + 64
        matrix(
            ax,
            out_left,
            y + (w_height - n * CELL) / 2,
            n,
            w.shape[1],
            cell=CELL,
            name=out,
            fill=fill,
            row_label="n",
            col_label=width_label,
        )
    text(
        ax,
        4,
        292,
        f"n = {n},  d_{{model}} = {d_model},  "
        f"d_{{k}} = {w_q.shape[1]},  d_{{v}} = {w_v.shape[1]}",
        ha="left",
        va="bottom",
    )
    text(ax, 4, 6, labels["title"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"title": "Three projections of one input", "input": "input"}
    print(to_svg(figure(english)))
