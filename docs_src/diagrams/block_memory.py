"""Memory: the whole n_q x n_k score matrix, or one n_q x B_k block of it at a time."""

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import arrow, bool_grid, canvas, label_gap, palette, text

N = 8  # queries and keys
B = 2  # keys per block
CELL = 14.0


def grid(ax, left: float, top: float, filled) -> None:
    """The N x N scores, the columns ``filled(j)`` holds coloured."""
    mask = [[filled(j) for j in range(N)] for _ in range(N)]
    bool_grid(ax, left, top, mask, cell=CELL, on="s", off="none")


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 250)
    colours = palette()
    top = 50.0
    grid(ax, 30, top, lambda j: True)
    text(ax, 30 + N * CELL / 2, 16, labels["naive"])
    text(ax, 30 + N * CELL / 2, top - label_gap("n_{k}"), "n_{k}", va="bottom")
    text(ax, 26, top + N * CELL / 2, "n_{q}", ha="right")
    text(ax, 30 + N * CELL / 2, top + N * CELL + 16, "n_{q} × n_{k}")
    left = 220.0
    block = 1  # the block being computed: keys 3 and 4
    grid(ax, left, top, lambda j: j // B == block)
    for b in range(N // B):  # the blocks, visited left to right
        x = left + b * B * CELL
        ax.add_patch(
            Rectangle(
                (x, top),
                B * CELL,
                N * CELL,
                fill=False,
                edgecolor=colours["accent"] if b == block else colours["line"],
                linewidth=1.6 if b == block else 0.9,
            )
        )
    arrow(ax, (left, top - 10), (left + N * CELL, top - 10), colour=colours["accent"])
    text(ax, left + N * CELL / 2, 16, labels["blockwise"])
    text(ax, left + (block + 0.5) * B * CELL, top + N * CELL + 16, "n_{q} × B_{k}")
    text(ax, 4, 242, labels["kept"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "naive": "all at once",
        "blockwise": "one block of keys at a time",
        "kept": "besides the block: m, l and Õ, n_{q} rows each",
    }
    print(to_svg(figure(english)))
