import numpy as np
from matplotlib.figure import Figure

from attention_docs import attention_weights, project_qkv
from attention_docs.plotting import plot_heatmap, to_svg


def figure(labels: dict) -> Figure:
    num_tokens, embedding_dim, attention_dim = 5, 4, 4
    random = np.random.RandomState(42)
    tokens = random.rand(num_tokens, embedding_dim)
    W_Q = random.rand(embedding_dim, attention_dim)
    W_K = random.rand(embedding_dim, attention_dim)
    W_V = random.rand(embedding_dim, attention_dim)
    Q, K, _ = project_qkv(tokens, W_Q, W_K, W_V)  # (5, 4)
    weights = attention_weights(Q, K)  # softmax(Q K^T / sqrt(d_k)): (5, 5)
    fig, _ = plot_heatmap(
        weights,
        title=labels["title"],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
        annotate=True,
    )
    return fig


if __name__ == "__main__":
    symbols = {
        "title": "A",
        "xlabel": "j",
        "ylabel": "i",
    }
    print(to_svg(figure(symbols)))
