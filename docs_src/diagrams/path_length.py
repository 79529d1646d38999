"""Path length: a recurrent layer passes x_1 on step by step, self-attention at once."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, text

N = 5  # tokens


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 330)
    colours = palette()
    accent = colours["accent"]
    xs = [60 + 60 * i for i in range(N)]
    # recurrent layer: h_t needs h_{t-1}; x_1 reaches h_N through N arrows
    text(ax, 4, 12, labels["recurrent"], ha="left")
    text(ax, 4, 32, f"{labels['path']}{N}", ha="left", color=accent)
    for i, x in enumerate(xs):
        box(ax, x - 16, 52, 32, 26, rf"\mathbf{{h}}_{{{i + 1}}}", fill="z")
        box(ax, x - 16, 112, 32, 26, rf"\mathbf{{x}}_{{{i + 1}}}", fill="x")
        arrow(ax, (x, 112), (x, 78), colour=accent if i == 0 else None)
        if i:
            arrow(ax, (xs[i - 1] + 16, 65), (x - 16, 65), colour=accent)
    # self-attention: every output reads every input at once
    text(ax, 4, 172, labels["attention"], ha="left")
    text(ax, 4, 192, f"{labels['path']}1", ha="left", color=accent)
    for i, x in enumerate(xs):
        box(ax, x - 16, 212, 32, 26, rf"\mathbf{{z}}_{{{i + 1}}}", fill="z")
        box(ax, x - 16, 290, 32, 26, rf"\mathbf{{x}}_{{{i + 1}}}", fill="x")
    for j, source in enumerate(xs):
        for i, target in enumerate(xs):
            if (i, j) != (N - 1, 0):
                ax.plot(
                    [source, target],
                    [290, 238],
                    color=colours["line"],
                    linewidth=0.6,
                    alpha=0.6,
                )
    arrow(ax, (xs[0], 290), (xs[-1], 238), colour=accent)
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "recurrent": "Recurrent layer: n steps one after another",
        "attention": "Self-attention: all positions at once",
        "path": r"arrows from \mathbf{x}_{1} to the last output: ",
    }
    print(to_svg(figure(english)))
