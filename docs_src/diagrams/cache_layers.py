"""Stacked decoder layers: each layer keeps its own cache, one row more per token."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, matrix, text

LAYERS = 2  # the page's example: two layers
CACHED = 3  # tokens already cached
CELL = 12.0


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 270)
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    x_new = 60.0
    for layer in range(LAYERS):  # from the bottom up
        top = 150.0 - layer * 100
        box(ax, 20, top + 10, 90, 30, labels["layers"][layer], fill="s")
        for col, (name, fill) in enumerate((("K", "k"), ("V", "v"))):
            left = 170.0 + col * 90
            matrix(
                ax,
                left,
                top,
                CACHED + 1,
                4,
                cell=CELL,
                fill=fill,
                highlight_rows=[CACHED],
            )
            text(ax, left + 2 * CELL, top + (CACHED + 1) * CELL + 12, name)
        arrow(ax, (110, top + 25), (164, top + 25))
        below = 244.0 if layer == 0 else 160.0  # x_i, or the layer below
        arrow(ax, (65, below), (65, top + 40))
    box(ax, x_new - 30, 244, 70, 22, r"\mathbf{x}_{i}", fill="x")
    text(ax, 360, 244, labels["new"], ha="right", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "One cache per layer",
        "layers": ["layer 1", "layer 2"],
        "new": "coloured: the new token's row",
    }
    print(to_svg(figure(english)))
