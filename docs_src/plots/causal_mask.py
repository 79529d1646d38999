import numpy as np
from matplotlib.figure import Figure

from attention_docs import attention_weights, causal_mask
from attention_docs.plotting import plot_causal_mask, to_svg


def figure(labels: dict) -> Figure:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 8))  # n = 5, d_model = 8
    # W / sqrt(d_model)
    w_q, w_k = rng.standard_normal((2, 8, 8)) / np.sqrt(8)
    mask = causal_mask(5)  # (5, 5)
    weights = attention_weights(x @ w_q, x @ w_k, mask=mask)  # (5, 5)
    fig, axes = plot_causal_mask(
        mask,
        weights,
        titles=(labels["mask_title"], labels["weights_title"]),
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
    )
    for ax in axes:  # i, j = 1, ..., 5
        ax.set_xticks(range(5), [str(j + 1) for j in range(5)])
        ax.set_yticks(range(5), [str(i + 1) for i in range(5)])
    return fig


if __name__ == "__main__":
    symbols = {
        "mask_title": "mask",
        "weights_title": "A",
        "xlabel": "j",
        "ylabel": "i",
    }
    print(to_svg(figure(symbols)))
