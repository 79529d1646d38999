"""The generation loop of the chapter: forward, logits, choose, append, stop."""

from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, text
from attention_docs import generate, load_pretrained

LEFT, W, H, GAP = 16.0, 262.0, 30.0, 22.0
LOOP = LEFT + W + 26  # x of the line back to the text


def figure(labels: dict) -> Figure:
    model = load_pretrained(labels["edition"])
    prompt = labels["prompt"]
    token = generate(model, prompt, 1, greedy=True)  # the greedy first token
    steps = [
        f"{labels['text']}（{prompt}）",
        labels["model"],
        f"{labels['logits']}（{labels['vocab']} {model.config.vocab_size}）",
        labels["choose"],
        f"{labels['append']}（{token}）",
        labels["stop"],
    ]
    fig, ax = canvas(370, 6 * (H + GAP) + 36)
    tops = [10 + i * (H + GAP) for i in range(len(steps))]
    for i, (top, label) in enumerate(zip(tops, steps, strict=True)):
        box(ax, LEFT, top, W, H, dashed=i == len(steps) - 1)
        # the text and the token are characters, not symbols
        text(ax, LEFT + W / 2, top + H / 2, label, math=i not in (0, 4))
        if i:
            arrow(ax, (LEFT + W / 2, top - GAP), (LEFT + W / 2, top))
    end = tops[-1] + H
    arrow(ax, (LEFT + W / 2, end), (LEFT + W / 2, end + GAP))
    text(ax, LEFT + W / 2 + 8, end + GAP / 2, labels["yes"], ha="left")
    text(ax, LEFT + W / 2, end + GAP + 10, labels["end"], math=False)
    mid, first = tops[-1] + H / 2, tops[0] + H / 2
    ax.plot([LEFT + W, LOOP, LOOP], [mid, mid, first], color=palette()["line"], lw=1.2)
    arrow(ax, (LOOP, first), (LEFT + W, first))
    text(ax, LOOP + 4, (mid + first) / 2, labels["no"], ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "prompt": "attention",
        "text": "text",
        "model": "model.logits(text)",
        "logits": "logits of the last position",
        "vocab": "|V| =",
        "choose": "choose one token",
        "append": "append",
        "stop": "m tokens, or the stop character?",
        "yes": "yes",
        "no": "no",
        "end": "end",
    }
    print(to_svg(figure(english)))
