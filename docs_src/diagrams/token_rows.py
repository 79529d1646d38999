"""A token is a row: x_i W_Q = q_i, and stacked, X W_Q = Q (the example's shapes)."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, canvas, matrix, text
from attention_docs import running_example

CELL = 16.0
ROW = 1  # the token drawn alone: x_2, row x[1]


def figure(labels: dict) -> Figure:
    x, w_q, _, _ = running_example()
    n, d_model = x.shape  # 3, 4
    d_k = w_q.shape[1]
    fig, ax = canvas(370, 290)
    for top, rows, names in (
        (64.0, 1, (r"\mathbf{x}_{2}", r"\mathbf{q}_{2}")),
        (194.0, n, ("X", "Q")),
    ):
        left = 40.0
        lit = [ROW] if rows == n else [0]
        width, height = matrix(
            ax,
            left,
            top,
            rows,
            d_model,
            cell=CELL,
            fill="x",
            highlight_rows=lit,
            row_label=str(rows),
            col_label="d_{model}",
        )
        text(ax, left + width / 2, top + height + 16, names[0])
        text(ax, left + width + 16, top + height / 2, "·", size=MATH)
        left += width + 32
        w_width, w_height = matrix(
            ax,
            left,
            top - (d_model - rows) * CELL / 2,
            d_model,
            d_k,
            cell=CELL,
            fill="w",
            row_label=None,
            col_label="d_{k}",
        )
        text(ax, left + w_width / 2, top + height / 2 + w_height / 2 + 16, "W_{Q}")
        text(ax, left + w_width + 16, top + height / 2, "=", size=MATH)
        left += w_width + 40
        matrix(
            ax,
            left,
            top,
            rows,
            d_k,
            cell=CELL,
            fill="q",
            highlight_rows=lit,
            row_label=str(rows),
            col_label="d_{k}",
        )
        text(ax, left + d_k * CELL / 2, top + height + 16, names[1])
    text(ax, 4, 8, labels["one"], ha="left", va="top")
    text(ax, 4, 138, labels["all"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"one": "One token: a row", "all": "n tokens: n rows"}
    print(to_svg(figure(english)))
