"""split_heads and merge_heads: the columns of X W_Q (the running example's
W_Q, all heads' projections side by side) in h blocks of width d_k."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, canvas, matrix, text
from attention_docs import running_example, split_heads

CELL = 20.0
H = 2  # the page's running example in two heads


def figure(labels: dict) -> Figure:
    x, w_q, _, _ = running_example()
    q = x @ w_q  # (n, d_model) = (3, 4)
    n, d_model = q.shape
    _, _, d_k = split_heads(q, H).shape  # (h, n, d_k) = (2, 3, 2)
    fills = [f"head{j // d_k + 1}" for j in range(d_model)]
    fig, ax = canvas(370, 200)
    left, top = 30.0, 58.0
    width, height = matrix(
        ax,
        left,
        top,
        n,
        d_model,
        cell=CELL,
        fill="x",
        col_fills=fills,
        row_label="n",
        col_label="d_{model}",
    )
    text(ax, left + width / 2, top + height + 16, "X W_{Q}")
    text(ax, left + width / 2, top + height + 38, f"({n}, {d_model})")
    right = 232.0
    for i in range(H):
        head_left = right + i * (d_k * CELL + 22)
        matrix(
            ax,
            head_left,
            top,
            n,
            d_k,
            cell=CELL,
            fill=f"head{i + 1}",
            col_label="d_{k}",
        )
        text(ax, head_left + d_k * CELL / 2, top + height + 16, f"Q_{{{i + 1}}}")
    text(ax, right - 6, top + height / 2, "n", ha="right")
    middle = right + (H * d_k * CELL + 22) / 2
    text(ax, middle, top + height + 38, f"h = {H}:  ({H}, {n}, {d_k})")
    start, end = left + width + 10, right - 20
    arrow(ax, (start, top + 20), (end, top + 20))
    text(
        ax, (start + end) / 2, top + 14, "split_heads", va="bottom", family="monospace"
    )
    arrow(ax, (end, top + 42), (start, top + 42))
    text(ax, (start + end) / 2, top + 50, "merge_heads", va="top", family="monospace")
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    text(ax, 4, 194, labels["blocks"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "Two heads from one projection",
        "blocks": "Columns 1-2 go to head 1, columns 3-4 to head 2",
    }
    print(to_svg(figure(english)))
