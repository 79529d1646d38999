"""Q = X W_Q with the running example's numbers: row i of X gives row i of Q."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, canvas, matrix, text
from attention_docs import running_example

CELL = 19.0


def figure(labels: dict) -> Figure:
    x, w_q, _, _ = running_example()
    q = x @ w_q  # (3, 4) @ (4, 4) -> (3, 4)
    fig, ax = canvas(370, 190)

    def values(a):
        return [[f"{v:g}" for v in row] for row in a]

    top = 58.0
    left = 30.0
    for index, (name, a, fill, row_label, col_label, lit) in enumerate(
        [
            ("X", x, "x", "n", "d_{model}", [0]),
            # the rows of W_Q that x_1 adds up: where x_1 is not 0
            ("W_{Q}", w_q, "w", None, "d_{k}", [p for p in range(4) if x[0, p]]),
            ("Q", q, "q", None, "d_{k}", [0]),
        ]
    ):
        width, height = matrix(
            ax,
            left,
            top,
            a.shape[0],
            a.shape[1],
            cell=CELL,
            fill=fill,
            values=values(a),
            row_label=row_label,
            col_label=col_label,
            highlight_rows=lit,
        )
        text(ax, left + width / 2, top + height + 18, name, size=MATH)
        if index < 2:
            text(ax, left + width + 22, top + 30, "·="[index], size=MATH)
        left += width + 44
    text(ax, 4, 8, labels["row"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "row": r"Row 1 of X gives row 1 of Q (\mathbf{q}_{1} = \mathbf{x}_{1} W_{Q})"
    }
    print(to_svg(figure(english)))
