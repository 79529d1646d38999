"""A sentence to ids and rows of E: the used rows of the tall E, stacked as X."""

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import arrow, box, canvas, palette, text
from attention_docs import load_pretrained

ROW = 15.0  # a used row of E, a row of X
GAP = 9.0  # rows of E that the sentence does not use
COLS = 5  # d_model = 96 drawn as 5 cells
CELL = 13.0
E_X = 92.0
X_X = 250.0


def rows(ax, x: float, y: float, height: float, fill: str, parts: int = 1) -> None:
    """``parts`` rows of the table in ``height``, ``COLS`` cells wide."""
    colours = palette()
    for k in range(parts):
        top = y + k * height / parts
        for j in range(COLS):
            ax.add_patch(
                Rectangle(
                    (x + j * CELL, top),
                    CELL,
                    height / parts,
                    facecolor=colours[fill],
                    edgecolor=colours["line"],
                    linewidth=0.5,
                )
            )


def figure(labels: dict) -> Figure:
    model = load_pretrained(labels["edition"])
    sentence = labels["sentence"]
    ids = model.tokenizer.encode(sentence)
    n, vocab, d_model = len(ids), len(model.tokenizer), model.config.d_model
    char_of = dict(zip(ids, sentence, strict=True))
    used = sorted(set(ids))
    top = 76.0
    # E: row 0, then each used id, then row V - 1, with gaps in between
    layout, y, last = [], top, None
    for token in [0, *used, vocab - 1]:
        if last is not None and token > last + 1:
            layout.append(("gap", None, y))
            y += GAP
        layout.append(("used" if token in char_of else "end", token, y))
        y += ROW
        last = token
    bottom = y
    x_top = top + (bottom - top - n * ROW) / 2
    fig, ax = canvas(370, bottom + 44)
    colours = palette()
    text(ax, 185, 12, sentence)
    text(ax, 18, top - 14, labels["char"])
    text(ax, 62, top - 14, labels["id"], ha="right")
    width = COLS * CELL
    text(ax, E_X + width / 2, top - 34, f"E: ({vocab}, {d_model})")
    text(ax, E_X + width / 2, top - 14, f"d_{{model}} = {d_model}")
    text(ax, X_X + width / 2, x_top - 34, f"X = E[ids]: ({n}, {d_model})")
    row_y = {}
    for kind, token, y in layout:
        if kind == "gap":
            rows(ax, E_X, y, GAP, "box", parts=3)
            continue
        rows(ax, E_X, y, ROW, "highlight" if kind == "used" else "box")
        text(ax, 62, y + ROW / 2, str(token), ha="right")
        if kind == "used":
            text(ax, 18, y + ROW / 2, char_of[token])
            row_y[token] = y + ROW / 2
    ax.add_patch(
        Rectangle(
            (E_X, top),
            width,
            bottom - top,
            fill=False,
            edgecolor=colours["line"],
            linewidth=1.2,
        )
    )
    for i, token in enumerate(ids):
        y = x_top + i * ROW
        rows(ax, X_X, y, ROW, "highlight")
        text(ax, X_X + width + 12, y + ROW / 2, str(i + 1))
        text(ax, X_X + width + 32, y + ROW / 2, sentence[i])
        # each row of X names the row of E it copies: its id, and a short tick
        text(ax, X_X - 22, y + ROW / 2, str(token), ha="right")
        arrow(ax, (X_X - 19, y + ROW / 2), (X_X - 3, y + ROW / 2))
    # one lookup drawn whole: the first token's row of E to row 1 of X
    arrow(
        ax,
        (E_X + width + 3, row_y[ids[0]]),
        (X_X - 52, x_top + ROW / 2),
        colour=colours["accent"],
        dashed=True,
    )
    ax.add_patch(
        Rectangle(
            (X_X, x_top),
            width,
            n * ROW,
            fill=False,
            edgecolor=colours["line"],
            linewidth=1.2,
        )
    )
    box(ax, 12, bottom + 18, 22, 14, fill="highlight", rounded=False)
    text(ax, 42, bottom + 25, labels["row"], ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "sentence": "注意は重み付き平均です",
        "char": "character",
        "id": "id",
        "row": "row of E",
    }
    print(to_svg(figure(english)))
