"""A sliding-window mask with sinks (the caches per layer: sliding_window_cache)."""

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import bool_grid, canvas, legend, palette, text
from attention_docs import sliding_window_mask

N = 10  # tokens of the mask
WINDOW = 4  # keys a query sees, itself included
SINKS = 2
CELL = 16.0


def figure(labels: dict) -> Figure:
    fig, ax = canvas(380, 262)
    colours = palette()
    mask = sliding_window_mask(N, window=WINDOW, n_sink=SINKS)
    band = sliding_window_mask(N, window=WINDOW)
    left, top = 34.0, 62.0
    text(ax, 4, 12, labels["mask_title"], ha="left")
    text(ax, 4, 32, f"n = {N},  W = {WINDOW},  n_{{sink}} = {SINKS}", ha="left")
    bool_grid(ax, left, top, mask, cell=CELL)
    for i in range(N):  # the sink cells outside the band, in the accent colour
        for j in range(N):
            if mask[i, j] and not band[i, j]:
                ax.add_patch(
                    Rectangle(
                        (left + j * CELL, top + i * CELL),
                        CELL,
                        CELL,
                        facecolor=colours["accent"],
                        edgecolor=colours["line"],
                        linewidth=0.6,
                    )
                )
    for j in range(N):  # positions from 0, as the package's
        text(ax, left + (j + 0.5) * CELL, top - 9, str(j))
    for i in range(N):
        text(ax, left - 6, top + (i + 0.5) * CELL, str(i), ha="right")
    legend(
        ax,
        4,
        top + N * CELL + 22,
        [("keep", labels["window"]), ("accent", labels["sink"]), ("mask", "False")],
    )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "mask_title": "Sliding window with sinks",
        "window": "window",
        "sink": "sink",
    }
    print(to_svg(figure(english)))
