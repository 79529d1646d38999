"""The edition's training log: training and validation loss, and the bigram line."""

import json
from importlib import resources

from matplotlib.figure import Figure

from attention_book.diagrams import palette


def training_log(edition: str) -> dict:
    source = resources.files("attention_docs") / "data" / f"lm-{edition}.json"
    return json.loads(source.read_text(encoding="utf-8"))


def figure(labels: dict) -> Figure:
    log = training_log(labels["edition"])
    colours = palette()
    fig = Figure(figsize=(4.8, 3.3))
    ax = fig.add_axes((0.14, 0.16, 0.8, 0.8))
    steps = log["log_steps"]
    ax.plot(steps, log["train_loss"], color=colours["line"], linewidth=1.6)
    ax.plot(steps, log["val_loss"], color=colours["accent"], linewidth=2.0)
    bigram = log["bigram_val_loss"]
    ax.axhline(bigram, color=colours["line"], linewidth=1.2, linestyle=(0, (4, 3)))
    ax.set_xlim(0, steps[-1])
    top = max(log["train_loss"][0], log["val_loss"][0])
    ax.set_ylim(0, top + 0.2)
    ax.set_xlabel(labels["step"], fontsize=11)
    ax.set_ylabel(labels["loss"], fontsize=11)
    ax.tick_params(labelsize=11)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    right = steps[-1]
    ax.text(
        right, bigram + 0.06, labels["bigram"], ha="right", va="bottom", fontsize=11
    )
    at = (2 * len(steps)) // 3  # the validation label, above its curve
    ax.text(
        steps[at],
        log["val_loss"][at] + 0.12,
        labels["val"],
        ha="center",
        va="bottom",
        fontsize=11,
        color=colours["accent"],
    )
    at = len(steps) // 2  # the training label, below and left of its curve
    ax.text(
        steps[at],
        log["train_loss"][at] - 0.15,
        labels["train"],
        ha="right",
        va="top",
        fontsize=11,
    )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "step": "step",
        "loss": "loss (nats per character)",
        "train": "training",
        "val": "validation",
        "bigram": "bigram model",
    }
    print(to_svg(figure(english)))
