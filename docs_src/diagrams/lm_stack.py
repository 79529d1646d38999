"""The edition's language model, top to bottom: ids to the next token's distribution."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, plus, text
from attention_docs.language_model import load_pretrained

LEFT, WIDTH, HEIGHT = 70.0, 190.0, 26.0
MIDDLE = LEFT + WIDTH / 2
SHAPES = LEFT + WIDTH + 18


def residual(ax, top: float, y: float) -> None:
    """From the stream at ``top`` around the sub-layer into the "+" at ``y``."""
    colours = palette()
    x = LEFT - 14
    ax.plot([MIDDLE, x, x], [top, top, y], color=colours["line"], linewidth=1.1)
    arrow(ax, (x, y), (MIDDLE - 10, y))


def figure(labels: dict) -> Figure:
    config = load_pretrained(labels["edition"]).config
    d, vocab = config.d_model, config.vocab_size
    fig, ax = canvas(370, 560)
    colours = palette()

    def step(y: float, label: str, fill: str, shape: str = "") -> float:
        box(ax, LEFT, y, WIDTH, HEIGHT, label, fill=fill)
        if shape:
            text(ax, SHAPES, y + HEIGHT / 2, shape, ha="left")
        return y + HEIGHT

    bottom = step(8, labels["ids"], "box", f"(n,), n ≤ {config.context}")
    arrow(ax, (MIDDLE, bottom), (MIDDLE, 56))
    bottom = step(56, "X = E[ids]", "x", f"(n, {d})")
    # the N blocks, in a dashed frame
    frame_top = bottom + 22
    arrow(ax, (MIDDLE, bottom), (MIDDLE, frame_top + 30))
    fork = frame_top + 18
    box(ax, LEFT - 26, frame_top, WIDTH + 36, 298, fill="none", dashed=True)
    text(ax, SHAPES, frame_top + 10, labels["block"], ha="left")
    text(ax, SHAPES, frame_top + 28, f"× N = {config.n_layers}", ha="left")
    bottom = step(frame_top + 30, "LN", "box")
    arrow(ax, (MIDDLE, bottom), (MIDDLE, bottom + 16))
    top = bottom + 16
    box(ax, LEFT, top, WIDTH, 42, fill="q")
    text(ax, MIDDLE, top + 13, labels["attention"])
    text(ax, MIDDLE, top + 30, f"{labels['attention_detail']}, h = {config.n_heads}")
    bottom = top + 42
    plus_y = bottom + 24
    arrow(ax, (MIDDLE, bottom), (MIDDLE, plus_y - 10))
    plus(ax, MIDDLE, plus_y)
    residual(ax, fork, plus_y)
    fork = plus_y + 18
    arrow(ax, (MIDDLE, plus_y + 10), (MIDDLE, plus_y + 28))
    bottom = step(plus_y + 28, "LN", "box")
    arrow(ax, (MIDDLE, bottom), (MIDDLE, bottom + 16))
    bottom = step(bottom + 16, "FFN", "w")
    plus_y = bottom + 24
    arrow(ax, (MIDDLE, bottom), (MIDDLE, plus_y - 10))
    plus(ax, MIDDLE, plus_y)
    residual(ax, fork, plus_y)
    text(ax, SHAPES, plus_y, f"(n, {d})", ha="left")
    frame_bottom = frame_top + 298
    arrow(ax, (MIDDLE, plus_y + 10), (MIDDLE, frame_bottom + 22))
    bottom = step(frame_bottom + 22, "LN", "box")
    arrow(ax, (MIDDLE, bottom), (MIDDLE, bottom + 18))
    head_top = bottom + 18
    bottom = step(head_top, "logits = LN(X) E^{⊤}", "w", f"(n, {vocab})")
    arrow(ax, (MIDDLE, bottom), (MIDDLE, bottom + 18))
    bottom = step(bottom + 18, "softmax", "a", f"(n, {vocab})")
    text(ax, MIDDLE, bottom + 14, labels["next"], va="center")
    # the tied head: the same E, drawn as a dashed link on the left
    x = 16
    ax.plot(
        [LEFT, x, x, LEFT],
        [56 + HEIGHT / 2, 56 + HEIGHT / 2, head_top + HEIGHT / 2, head_top + 13],
        color=colours["accent"],
        linewidth=1.2,
        linestyle=(0, (4, 3)),
    )
    text(ax, x + 2, head_top - 10, labels["tied"], ha="left", color=colours["accent"])
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "ids": "token ids",
        "block": "block",
        "attention": "multi-head attention",
        "attention_detail": "causal mask, RoPE",
        "next": "distribution of the next token",
        "tied": "the same E",
    }
    print(to_svg(figure(english)))
