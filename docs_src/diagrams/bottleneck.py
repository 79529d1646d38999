"""An encoder-decoder passes one fixed vector; attention reaches every encoder state."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, text

N = 5  # source words


def encoder(ax, top: float) -> list[float]:
    xs = [28 + 44 * i for i in range(N)]
    for i, x in enumerate(xs):
        box(ax, x - 16, top, 32, 24, rf"\mathbf{{h}}_{{{i + 1}}}", fill="k")
        if i:
            arrow(ax, (xs[i - 1] + 16, top + 12), (x - 16, top + 12))
    return xs


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 290)
    colours = palette()
    # top: the fixed-length vector
    text(ax, 4, 10, labels["fixed"], ha="left", va="top")
    xs = encoder(ax, 60)
    box(ax, 262, 54, 40, 36, r"\mathbf{c}", fill="highlight", size=15)
    arrow(ax, (xs[-1] + 16, 72), (262, 72), colour=colours["accent"])
    box(ax, 318, 58, 44, 28, "y_{t}", fill="z")
    arrow(ax, (302, 72), (318, 72))
    # bottom: attention over every state, weighted for output t
    text(ax, 4, 136, labels["attention"], ha="left", va="top")
    xs = encoder(ax, 256)
    box(ax, 272, 166, 32, 28, "Σ", fill="highlight", size=15)
    box(ax, 318, 166, 44, 28, "y_{t}", fill="z")
    arrow(ax, (304, 180), (318, 180))
    for i, x in enumerate(xs):
        text(ax, x, 240, f"a_{{t{i + 1}}}")
        arrow(ax, (x, 228), (272, 186 - 2 * i), colour=colours["accent"])
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "fixed": r"Encoder-decoder: one vector \mathbf{c} for the whole input",
        "attention": "Attention: every state, weighted anew for each output word",
    }
    print(to_svg(figure(english)))
