"""The layer the book's language model stacks: pre-norm, causal self-attention."""

from matplotlib.figure import Figure

from attention_book.diagrams import FONT, arrow, box, canvas, palette, plus, text

WIDTH = 150.0
HEIGHT = 26.0
LEFT = 60.0
WIDTH_ALL = LEFT + WIDTH + 60
STEP = 40.0


def figure(labels: dict) -> Figure:
    """Blocks from the bottom up; each "+" adds the row that entered its sublayer."""
    order = [
        ("LayerNorm", "box"),
        ("MultiHead_{M}", "a"),
        ("+", None),
        ("LayerNorm", "box"),
        ("FFN", "w"),
        ("+", None),
    ]
    colours = palette()
    middle = LEFT + WIDTH / 2
    height = 372.0
    fig, ax = canvas(WIDTH_ALL, height)
    text(ax, middle, 12, labels["title"])
    text(ax, middle, height - 14, "X", size=15)
    below = height - 26
    fork = below - 8
    for name, fill in order:
        if name == "+":
            centre = below - STEP
            arrow(ax, (middle, below), (middle, centre + 10))
            plus(ax, middle, centre)
            # the residual: from below the sublayer's LayerNorm into "+"
            x = LEFT - 14
            ax.plot(
                [middle, x, x],
                [fork, fork, centre],
                color=colours["line"],
                linewidth=1.1,
            )
            arrow(ax, (x, centre), (middle - 10, centre))
            below = centre - 10
            fork = below - 8
            continue
        top = below - STEP + 14 - HEIGHT
        arrow(ax, (middle, below), (middle, top + HEIGHT))
        box(ax, LEFT, top, WIDTH, HEIGHT, name, fill=fill, size=FONT)
        below = top
    arrow(ax, (middle, below), (middle, below - 22))
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"title": "Decoder-only layer"}
    print(to_svg(figure(english)))
