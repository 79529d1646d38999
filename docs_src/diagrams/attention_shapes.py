"""The two products of attention as blocks, Q Kᵀ (then S = Q Kᵀ / √d_k) and A V = Z."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, canvas, matrix, palette, text
from attention_docs import running_example

CELL = 16.0
GAP = 52.0


def figure(labels: dict) -> Figure:
    x, w_q, _, w_v = running_example()
    n, d_k, d_v = x.shape[0], w_q.shape[1], w_v.shape[1]  # 3, 4, 4
    fig, ax = canvas(370, 330)
    accent = {"color": palette()["accent"], "fontweight": "bold"}
    products = [
        # (title, matching dimension, [(name, rows, cols, fill, labels, accent)])
        (
            labels["scores"],
            labels["match_scores"] + f" = {d_k}",
            [
                ("Q", n, d_k, "q", ("n_{q}", "d_{k}"), "col"),
                ("K^{⊤}", d_k, n, "k", ("d_{k}", "n_{k}"), "row"),
                ("Q K^{⊤}", n, n, "s", ("n_{q}", "n_{k}"), ""),
            ],
        ),
        (
            labels["output"],
            labels["match_output"] + f" = {n}",
            [
                ("A", n, n, "a", ("n_{q}", "n_{k}"), "col"),
                ("V", n, d_v, "v", ("n_{k}", "d_{v}"), "row"),
                ("Z", n, d_v, "z", ("n_{q}", "d_{v}"), ""),
            ],
        ),
    ]
    for top, (title, match, blocks) in zip((14, 180), products, strict=True):
        text(ax, 4, top, title, ha="left")
        left, y = 34.0, top + 42
        for index, (name, rows, cols, fill, (row_label, col_label), mark) in enumerate(
            blocks
        ):
            width, _ = matrix(
                ax,
                left,
                y,
                rows,
                cols,
                cell=CELL,
                name=name,
                fill=fill,
                row_label=row_label,
                col_label=col_label,
                accent=mark,
            )
            if index < 2:
                text(ax, left + width + 14, y + 1.5 * CELL, "·="[index], size=MATH)
            left += width + GAP
        text(ax, 4, y + 4 * CELL + 22, match, ha="left", **accent)
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "scores": "Scores: S = Q K^{⊤} / √d_{k}",
        "output": "Output: A V = Z",
        "match_scores": "columns of Q = rows of K^{⊤} = d_{k}",
        "match_output": "columns of A = rows of V = n_{k}",
    }
    print(to_svg(figure(english)))
