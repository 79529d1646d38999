"""The edition's model: the next character's probabilities at three temperatures."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import bars, canvas, text
from attention_docs import load_pretrained, next_token_probs

TEMPERATURES = (0.5, 1.0, 2.0)
TOP = 5  # characters drawn, the most likely first


def figure(labels: dict) -> Figure:
    model = load_pretrained(labels["edition"])
    u = model.logits(labels["prompt"])[-1]  # (V,): logits of the next character
    order = np.argsort(-u, kind="stable")[:TOP]  # same order at every T
    names = [model.tokenizer.vocab[i] for i in order] + [labels["others"]]
    fig, ax = canvas(370, 340)
    text(ax, 4, 12, labels["title"], ha="left")
    text(ax, 4, 34, f"{labels['prompt']} → ?", ha="left")
    for row, t in enumerate(TEMPERATURES):
        p = next_token_probs(u, temperature=t)  # softmax(u / T)
        values = [float(p[i]) for i in order]
        values.append(1.0 - sum(values))  # every other character
        baseline = 116.0 + row * 100
        text(ax, 4, baseline - 24, f"T = {t:g}", ha="left")
        bars(
            ax,
            84,
            baseline,
            values,
            top=1.0,
            height=60,
            width=34,
            gap=12,
            fill=["a"] * TOP + ["mask"],  # the rest: grey, not one character
            names=names,
        )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "prompt": "この行列の",
        "caption": "The next character",
        "title": "The next character's probabilities",
        "others": "rest",
    }
    print(to_svg(figure(english)))
