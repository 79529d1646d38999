import numpy as np
from matplotlib.figure import Figure

from attention_docs import multi_head_attention
from attention_docs.plotting import plot_heads, to_svg


def figure(labels: dict) -> Figure:
    n, d_model, h = 5, 8, 4  # d_k = 8 / 4 = 2
    x = np.eye(n, d_model)  # (5, 8), x[i, i] = 1
    angle = 2 * np.pi * np.arange(n) / n
    circle = 3 * np.stack([np.cos(angle), np.sin(angle)], axis=1)  # (5, 2)
    # W^Q = [W_1^Q | ... | W_4^Q]: w_q[:, 2 * i : 2 * i + 2] = W_(i+1)^Q
    w_q, w_k = np.zeros((d_model, d_model)), np.zeros((d_model, d_model))
    w_q[:n, 0:2], w_k[:n, 0:2] = circle, circle  # head_1: q_i = k_i
    previous = circle[[0, 0, 1, 2, 3]]  # (5, 2)
    w_q[:n, 2:4], w_k[:n, 2:4] = previous, circle  # head_2: q_i = k_(i-1), q_0 = k_0
    w_q[:n, 4], w_k[0, 4] = 3, 3  # head_3: q_i = k_0
    eye = np.eye(d_model)  # head_4: W_Q = W_K = 0; W_V = W^O = I
    # multi_head_attention(X, Y, Y, W^Q, W^K, W^V, W^O, h)
    _, weights = multi_head_attention(x, x, x, w_q, w_k, eye, eye, h)  # (4, 5, 5)
    fig, axes = plot_heads(
        weights,
        titles=labels["heads"],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
        ncols=2,
    )
    for ax in axes:  # 1, ..., n
        ax.set_xticks(range(n), range(1, n + 1))
        ax.set_yticks(range(n), range(1, n + 1))
    colorbar = fig.axes[-1]
    colorbar.set_title(labels["weight"], loc="left", pad=12)
    return fig


if __name__ == "__main__":
    symbols = {
        "heads": ["head_1", "head_2", "head_3", "head_4"],
        "xlabel": "j",
        "ylabel": "i",
        "weight": "A_ij",
    }
    print(to_svg(figure(symbols)))
