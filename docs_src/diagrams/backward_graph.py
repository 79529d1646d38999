"""The forward pass S -> A -> Z and the gradients flowing back, with their shapes."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, text

W, H = 44.0, 24.0


def node(ax, x, y, name, fill, shape=None):
    box(ax, x - W / 2, y - H / 2, W, H, name, fill=fill, size=14)
    if shape:
        text(ax, x, y + H / 2 + 11, shape)


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 314)
    accent = palette()["accent"]
    text(ax, 4, 8, labels["forward"], ha="left", va="top")
    # forward: Q, K -> S -> A -> Z <- V
    node(ax, 30, 50, "Q", "q")
    node(ax, 30, 104, "K", "k")
    node(ax, 120, 77, "S", "s", "n_{q} × n_{k}")
    node(ax, 205, 77, "A", "a", "n_{q} × n_{k}")
    node(ax, 300, 77, "Z", "z", "n_{q} × d_{v}")
    node(ax, 300, 30, "V", "v")
    for start, end in [
        ((52, 50), (98, 72)),
        ((52, 104), (98, 82)),
        ((142, 77), (183, 77)),
        ((227, 77), (278, 77)),
        ((300, 42), (300, 65)),
    ]:
        arrow(ax, start, end)
    # backward: G -> dV, dA -> dS -> dQ, dK
    top = 184.0
    text(ax, 4, top - 32, labels["backward"], ha="left", va="top", color=accent)
    node(ax, 330, top + 40, "G", "z", "= dZ")
    node(ax, 250, top + 80, "dV", "v", "n_{k} × d_{v}")
    node(ax, 250, top + 20, "dA", "a", "n_{q} × n_{k}")
    node(ax, 160, top + 20, "dS", "s", "n_{q} × n_{k}")
    node(ax, 60, top, "dQ", "q", "n_{q} × d_{k}")
    node(ax, 60, top + 68, "dK", "k", "n_{k} × d_{k}")
    for start, end in [
        ((308, top + 40), (272, top + 24)),
        ((308, top + 44), (272, top + 78)),
        ((228, top + 20), (182, top + 20)),
        ((138, top + 16), (82, top + 2)),
        ((138, top + 24), (82, top + 64)),
    ]:
        arrow(ax, start, end, colour=accent, dashed=True)
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {"forward": "Forward pass", "backward": "Backward pass (gradients)"}
    print(to_svg(figure(english)))
