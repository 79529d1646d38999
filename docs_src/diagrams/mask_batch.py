"""A causal mask, the padding masks of a batch of lengths 3 and 1, and their AND."""

from matplotlib.figure import Figure

from attention_book.diagrams import MATH, bool_grid, canvas, legend, text
from attention_docs import causal_mask, combine_masks, padding_mask

CELL = 15.0
LENGTHS = (3, 1)  # the page's example: two sequences padded to n = 4
N = 4


def figure(labels: dict) -> Figure:
    causal = causal_mask(N)  # (4, 4)
    padding = padding_mask(LENGTHS, N)  # (2, 1, 4)
    combined = combine_masks(causal, padding)  # (2, 4, 4)
    fig, ax = canvas(370, 270)
    grid = N * CELL  # 60
    columns = (58.0, 58.0 + grid + 54, 58.0 + 2 * (grid + 54))
    heads = (labels["causal"], labels["padding"], labels["combined"])
    for left, head in zip(columns, heads, strict=True):
        text(ax, left + grid / 2, 12, head)
    for b, name in enumerate(labels["sequences"]):  # lengths 3 and 1
        top = 34 + b * (grid + 44)
        text(ax, 4, top, name, ha="left")
        rows = (causal, padding[b].repeat(N, axis=0), combined[b])  # each (4, 4)
        for index, (left, mask) in enumerate(zip(columns, rows, strict=True)):
            bool_grid(ax, left, top + 14, mask, cell=CELL)
            if index < 2:
                text(ax, left + grid + 27, top + 14 + grid / 2, "∧="[index], size=MATH)
    legend(ax, 58, 258, [("keep", "True"), ("mask", "False")])
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "causal": "causal",
        "padding": "padding",
        "combined": "combined",
        "sequences": ["sequence of length 3", "sequence of length 1"],
    }
    print(to_svg(figure(english)))
