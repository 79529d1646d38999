"""Post-norm (the paper) beside pre-norm: where the layer normalisation sits."""

from matplotlib.figure import Figure

from attention_book.diagrams import FONT, arrow, box, canvas, palette, plus, text

WIDTH = 120.0
HEIGHT = 26.0


def column(ax, left: float, title: str, order: list[str]) -> None:
    """Blocks from the bottom up; "+" is the residual sum."""
    colours = palette()
    middle = left + WIDTH / 2
    text(ax, middle, 12, title)
    text(ax, middle, 262, r"\mathbf{x}", size=15)
    y, below = 238.0, 250.0
    fork = below - 8
    for name in order:
        if name == "+":
            centre = y - 40
            arrow(ax, (middle, below), (middle, centre + 10))
            plus(ax, middle, centre)
            # the residual: from just above x, around the blocks, into "+"
            x = left - 4
            ax.plot(
                [middle, x, x],
                [fork, fork, centre],
                color=colours["line"],
                linewidth=1.1,
            )
            arrow(ax, (x, centre), (middle - 10, centre))
            below, y = centre - 10, centre - 10
            continue
        top = y - 40 - HEIGHT / 2
        arrow(ax, (middle, below), (middle, top + HEIGHT))
        fill = "box" if name == "LayerNorm" else "s"
        box(ax, left, top, WIDTH, HEIGHT, name, fill=fill, size=FONT)
        below, y = top, top
    arrow(ax, (middle, below), (middle, below - 22))


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 276)
    column(ax, 34, "post-norm", ["Sublayer", "+", "LayerNorm"])
    column(ax, 216, "pre-norm", ["LayerNorm", "Sublayer", "+"])
    text(ax, 34 + WIDTH / 2, 32, labels["paper"])
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"paper": "(the paper)"}
    print(to_svg(figure(english)))
