"""The tokens each layer caches in a model of five local layers and one global."""

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import canvas, palette, text

WINDOW = 4  # keys a local layer's query sees, itself included
LAYERS = "LLLLLG"  # five local layers for one global one
TOKENS = 16  # tokens decoded
BAR = 12.0  # width of one cached token


def figure(labels: dict) -> Figure:
    fig, ax = canvas(380, 196)
    colours = palette()
    x0, y0 = 4.0, 12.0
    text(ax, x0, y0, labels["layers_title"], ha="left")
    text(ax, x0, y0 + 20, f"n = {TOKENS},  W = {WINDOW}", ha="left")
    for layer, kind in enumerate(LAYERS):
        y = y0 + 40 + layer * 24
        kept = TOKENS if kind == "G" else min(TOKENS, WINDOW)
        name = labels["global"] if kind == "G" else labels["local"]
        text(ax, x0, y + 8, f"{layer + 1}", ha="left")
        text(ax, x0 + 20, y + 8, name, ha="left")
        for t in range(TOKENS):
            fill = colours["keep"] if t >= TOKENS - kept else "none"
            ax.add_patch(
                Rectangle(
                    (x0 + 96 + t * BAR, y),
                    BAR,
                    16,
                    facecolor=fill,
                    edgecolor=colours["line"],
                    linewidth=0.5,
                )
            )
        text(ax, x0 + 96 + TOKENS * BAR + 6, y + 8, str(kept), ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "layers_title": "Cached tokens per layer",
        "local": "local",
        "global": "global",
    }
    print(to_svg(figure(english)))
