import numpy as np
from matplotlib.figure import Figure

from attention_docs import attention_weights, project_qkv
from attention_docs.plotting import plot_heatmap, to_svg


def figure(labels: dict) -> Figure:
    words = [0, 1, 2, 0, 3]  # words[0] == words[3]
    X = np.eye(4)[words]  # (5, 4), X[0] == X[3]
    W = 2 * np.eye(4)  # W_Q = W_K = W_V = 2I
    Q, K, _ = project_qkv(X, W, W, W)  # Q = K = 2X
    weights = attention_weights(Q, K)  # softmax(Q K^T / sqrt(4)): (5, 5)
    fig, ax = plot_heatmap(
        weights,
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
        annotate=True,
    )
    ax.set_xticks(range(5), labels["tokens"])
    ax.set_yticks(range(5), labels["tokens"])
    fig.get_layout_engine().set(h_pad=8 / 72)
    return fig


if __name__ == "__main__":
    symbols = {
        "xlabel": "j",
        "ylabel": "i",
        "tokens": ["w_{0}", "w_{1}", "w_{2}", "w_{0}", "w_{3}"],
    }
    print(to_svg(figure(symbols)))
