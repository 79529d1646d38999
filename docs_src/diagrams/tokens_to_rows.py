"""A sentence to characters, ids and rows of E: the input X, one row per token."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, matrix, text
from attention_docs import load_pretrained

CELL = 18.0
COLS = 8  # d_model = 96 drawn as 8 cells


def figure(labels: dict) -> Figure:
    model = load_pretrained(labels["edition"])
    sentence = labels["sentence"]
    ids = model.tokenizer.encode(sentence)
    n, vocab, d_model = len(ids), len(model.tokenizer), model.config.d_model
    top = 72.0
    fig, ax = canvas(370, top + n * CELL + 62)
    text(ax, 185, 12, sentence)
    text(ax, 38, top - 14, labels["char"])
    text(ax, 106, top - 14, labels["id"])
    text(ax, 170 + COLS * CELL / 2, top - 40, labels["row"])
    for i, (char, token) in enumerate(zip(sentence, ids, strict=True)):
        y = top + i * CELL
        text(ax, 10, y + CELL / 2, str(i + 1), ha="center")
        box(ax, 27, y + 1, 22, CELL - 2, char, rounded=False)
        arrow(ax, (53, y + CELL / 2), (80, y + CELL / 2))
        text(ax, 106, y + CELL / 2, str(token))
        arrow(ax, (134, y + CELL / 2), (164, y + CELL / 2))
    matrix(
        ax,
        170,
        top,
        n,
        COLS,
        cell=CELL,
        fill="x",
        col_label=f"d_{{model}} = {d_model}",
    )
    bottom = top + n * CELL
    text(ax, 170 + COLS * CELL / 2, bottom + 16, f"X = E[ids]: ({n}, {d_model})")
    text(ax, 4, bottom + 44, f"E: (V, d_{{model}}) = ({vocab}, {d_model})", ha="left")
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
