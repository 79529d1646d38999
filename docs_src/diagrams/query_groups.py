"""MHA, GQA and MQA: query heads sharing key/value heads, grp(i) = ceil(i g / h)."""

import math

from matplotlib.figure import Figure

from attention_book.diagrams import box, canvas, palette, text

H = 8  # query heads


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 330)
    colours = palette()
    rows = [(H, "MHA"), (2, "GQA"), (1, "MQA")]
    for row, (g, name) in enumerate(rows):
        top = 44.0 + row * 98
        text(ax, 4, top, f"{name}  (g = {g})", ha="left")
        for i in range(1, H + 1):
            x = 40.0 + (i - 1) * 40
            box(ax, x, top + 14, 30, 22, f"q_{{{i}}}", fill="q")
            group = math.ceil(i * g / H)  # grp(i)
            kv_x = 40.0 + ((group - 0.5) * H / g - 0.5) * 40
            ax.plot(
                [x + 15, kv_x + 15],
                [top + 36, top + 58],
                color=colours["line"],
                linewidth=0.9,
            )
        for group in range(1, g + 1):
            kv_x = 40.0 + ((group - 0.5) * H / g - 0.5) * 40
            box(ax, kv_x - 2, top + 58, 34, 22, f"kv_{{{group}}}", fill="v")
    text(ax, 4, 8, labels["legend"], ha="left", va="top")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"legend": "upper: query heads, lower: key and value heads"}
    print(to_svg(figure(english)))
