"""Multiplications of a whole layer at d = 512: self-attention, a simple RNN, an LSTM.

Self-attention with its projections (queries, keys, values and the output)
multiplies 4 n d^2 + 2 n^2 d times, a simple RNN 2 n d^2 (one d x d matrix
for the input, one for the previous state), an LSTM 8 n d^2. At n = 2d the
self-attention layer and the LSTM multiply exactly as often: 2^31 at d = 512.
"""

from matplotlib.figure import Figure

from attention_book.diagrams import bars, canvas, legend, palette, text

D = 512
LENGTHS = (D // 2, D, 2 * D)  # n = d/2 (the page's example), d, 2d
RELATIVE = ("d/2", "d", "2d")
FILLS = ("s", "token3", "w")  # self-attention, simple RNN, LSTM
# a thin space (U+2009) between n and d: two symbols, each italic
FORMULAS = ("4n\u2009d^{2} + 2n^{2}\u2009d", "2n\u2009d^{2}", "8n\u2009d^{2}")
UNIT = 10**8  # 億


def multiplications(n: int, d: int = D) -> tuple[int, int, int]:
    """Self-attention layer, simple RNN, LSTM."""
    return 4 * n * d * d + 2 * n * n * d, 2 * n * d * d, 8 * n * d * d


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 345)
    colours = palette()
    text(ax, 4, 12, labels["title"], ha="left")
    names = (labels["attention"], labels["rnn"], labels["lstm"])
    for row, (fill, name, formula) in enumerate(
        zip(FILLS, names, FORMULAS, strict=True)
    ):
        legend(ax, 4, 36 + 20 * row, [(fill, f"{name}{formula}")])
    counts = [multiplications(n) for n in LENGTHS]
    top = max(max(group) for group in counts) / UNIT
    baseline, height, width, gap = 300, 170, 28, 4
    for g, (n, group) in enumerate(zip(LENGTHS, counts, strict=True)):
        left = 20 + g * 122
        for j, count in enumerate(group):
            bars(
                ax,
                left + j * (width + gap),
                baseline,
                [count / UNIT],
                top=top,
                height=height,
                width=width,
                fill=FILLS[j],
                digits=1,
            )
        middle = left + (3 * width + 2 * gap) / 2
        text(ax, middle, baseline + 5, f"n = {n}", va="top")
        text(ax, middle, baseline + 23, f"(= {RELATIVE[g]})", va="top")
        if group[0] == group[2]:  # self-attention and LSTM equal: mark it
            y = baseline - height * group[0] / UNIT / top
            ax.plot(
                [left, left + 3 * width + 2 * gap],
                [y, y],
                color=colours["accent"],
                linewidth=1.2,
                linestyle=(0, (4, 3)),
            )
            text(
                ax,
                middle,
                y - 22,
                labels["equal"],
                va="bottom",
                color=colours["accent"],
            )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "Multiplications per layer (d = 512, in 10^{8})",
        "attention": "self-attention layer: ",
        "rnn": "simple RNN: ",
        "lstm": "LSTM: ",
        "equal": "exactly equal",
    }
    print(to_svg(figure(english)))
