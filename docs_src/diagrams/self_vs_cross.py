"""Self-attention (Q, K, V from X) beside cross-attention (Q from X, K and V from Y)."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, text


def panel(ax, left: float, title: str, sources: tuple[str, str], label: str) -> None:
    """Inputs at the bottom, the three projections, attention at the top."""
    text(ax, left + 80, 14, title)
    box(ax, left + 10, 40, 140, 34, "Attention")
    xs = (left + 24, left + 80, left + 136)
    for x, (name, fill) in zip(xs, (("Q", "q"), ("K", "k"), ("V", "v")), strict=True):
        box(ax, x - 18, 110, 36, 28, name, fill=fill, size=15)
        arrow(ax, (x, 110), (x, 74))
    query_source, key_source = sources
    if query_source == key_source:
        box(ax, left + 50, 190, 60, 30, query_source, fill="x", size=15)
        for x in xs:
            arrow(ax, (left + 80, 190), (x, 138))
    else:
        box(ax, left + 4, 190, 40, 30, query_source, fill="x", size=15)
        box(ax, left + 86, 190, 64, 30, key_source, fill="y", size=15)
        arrow(ax, (left + 24, 190), (xs[0], 138))
        for x in xs[1:]:
            arrow(ax, (left + 118, 190), (x, 138))
    text(ax, left + 80, 240, label)


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 262)
    panel(ax, 8, labels["self"], ("X", "X"), "n_{q} = n_{k} = n")
    panel(ax, 200, labels["cross"], ("X", "Y"), labels["cross_shapes"])
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "self": "Self-attention",
        "cross": "Cross-attention",
        "cross_shapes": "n_{q} and n_{k} may differ",
    }
    print(to_svg(figure(english)))
