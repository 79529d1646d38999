"""The encoder layer and the decoder layer as block diagrams, post-norm as the paper."""

from matplotlib.figure import Figure

from attention_book.diagrams import FONT, arrow, box, canvas, palette, text

WIDTH = 140.0
HEIGHT = 26.0


def residual(ax, left: float, bottom: float, top: float) -> None:
    """The residual connection: around a sublayer, from ``bottom`` into ``top``."""
    colour = palette()["line"]
    x = left - 10
    ax.plot(
        [left + 20, left + 20, x, x],
        [bottom, bottom - 8, bottom - 8, top],
        color=colour,
        linewidth=1.1,
    )
    arrow(ax, (x, top), (left, top))


def column(ax, left: float, title: str, sublayers, source: str) -> None:
    """Sublayers from the bottom up, each followed by Add & LayerNorm."""
    text(ax, left + WIDTH / 2, 12, title)
    y = 350.0
    box(ax, left + WIDTH / 2 - 30, y, 60, HEIGHT, source, fill="x", size=FONT)
    below = y
    for name, fill, extra in sublayers:
        sub = below - 52
        arrow(ax, (left + WIDTH / 2, below), (left + WIDTH / 2, sub + HEIGHT))
        box(ax, left, sub, WIDTH, HEIGHT, name, fill=fill, size=FONT)
        if extra:  # the encoder's output comes in from the side
            arrow(
                ax,
                (left + WIDTH + 22, sub + HEIGHT / 2),
                (left + WIDTH, sub + HEIGHT / 2),
            )
            text(ax, left + WIDTH + 22, sub + HEIGHT / 2 - 6, extra, va="bottom")
        add = sub - 44
        arrow(ax, (left + WIDTH / 2, sub), (left + WIDTH / 2, add + HEIGHT))
        box(ax, left, add, WIDTH, HEIGHT, "Add & LayerNorm", fill="box", size=FONT)
        residual(ax, left, below - 2, add + HEIGHT / 2)
        below = add
    arrow(ax, (left + WIDTH / 2, below), (left + WIDTH / 2, below - 18))


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 380)
    column(
        ax,
        18,
        labels["encoder"],
        [
            ("MultiHead(X, X, X)", "s", None),
            ("FFN", "w", None),
        ],
        "X",
    )
    column(
        ax,
        196,
        labels["decoder"],
        [
            ("MultiHead_{M}(X, X, X)", "a", None),
            ("MultiHead(X', Y, Y)", "s", "Y"),
            ("FFN", "w", None),
        ],
        "X",
    )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"encoder": "Encoder layer", "decoder": "Decoder layer"}
    print(to_svg(figure(english)))
