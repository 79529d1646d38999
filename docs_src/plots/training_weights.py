import numpy as np
from matplotlib.figure import Figure

from attention_docs.plotting import plot_heads, to_svg
from attention_docs.training import train


def figure(labels: dict) -> Figure:
    result = train(positional=True, seed=0)
    tokens = np.array([[3, 1, 4, 1, 5, 7]])  # tokens[1] = tokens[3] = 1
    before = result.weights(tokens, trained=False)[0]  # trained=False
    after = result.weights(tokens)[0]  # (n, n) = (6, 6)
    fig, _ = plot_heads(
        np.stack([before, after]),
        titles=[labels["before"], labels["after"]],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
    )
    fig.set_size_inches(4.8, 2.9)  # 2 x (6, 6)
    return fig


if __name__ == "__main__":
    symbols = {
        "before": "A (trained=False)",
        "after": "A (trained=True)",
        "xlabel": "j",
        "ylabel": "i",
    }
    print(to_svg(figure(symbols)))
