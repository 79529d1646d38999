import numpy as np
from matplotlib.figure import Figure

from attention_docs.plotting import plot_heads, to_svg
from attention_docs.training import train


def figure(labels: dict) -> Figure:
    result = train(positional=True, seed=0)  # about 0.2 s: 200 steps of Adam
    tokens = np.array([[3, 1, 4, 1, 5, 7]])  # token 1 at positions 1 and 3
    before = result.weights(tokens, trained=False)[0]  # random initial weights
    after = result.weights(tokens)[0]  # (n, n) = (6, 6)
    fig, _ = plot_heads(  # two panels on one colour scale
        np.stack([before, after]),
        titles=[labels["before"], labels["after"]],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
    )
    fig.set_size_inches(4.8, 2.9)  # two 6 x 6 panels side by side
    return fig


if __name__ == "__main__":
    english = {
        "before": "Before training",
        "after": "After training",
        "xlabel": "Key position",
        "ylabel": "Query position",
    }
    print(to_svg(figure(english)))
