import numpy as np
from matplotlib.figure import Figure

from attention_docs import MultiHeadAttention
from attention_docs.plotting import plot_heads, to_svg


def figure(labels: dict) -> Figure:
    rng = np.random.default_rng(0)
    mha = MultiHeadAttention(d_model=8, h=4, rng=rng)  # d_k = 8 / 4 = 2
    x = rng.standard_normal((5, 8))  # n = 5, d_model = 8
    _, weights = mha(x)  # (h, n_q, n_k) = (4, 5, 5)
    fig, _ = plot_heads(
        weights,
        titles=labels["heads"],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
        ncols=2,
    )
    return fig


if __name__ == "__main__":
    symbols = {
        "heads": ["head_1", "head_2", "head_3", "head_4"],
        "xlabel": "j",
        "ylabel": "i",
    }
    print(to_svg(figure(symbols)))
