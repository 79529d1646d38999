from matplotlib.figure import Figure

from attention_docs import alibi_bias, causal_mask, masked_softmax
from attention_docs.plotting import plot_heads, to_svg

n, h = 8, 8
HEADS = [0, 2, 4, 7]  # i = 1, 3, 5, 8


def figure(labels: dict) -> Figure:
    bias = alibi_bias(n, n_heads=h)[HEADS]  # (4, n, n)
    mask = causal_mask(n)
    weights = masked_softmax(bias, mask)  # S = 0: A = softmax(B)
    fig, _ = plot_heads(
        weights,
        titles=labels["heads"],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
        ncols=2,
        mask=mask,
    )
    return fig


if __name__ == "__main__":
    symbols = {
        "heads": ["μ_{1} = 1/2", "μ_{3} = 1/8", "μ_{5} = 1/32", "μ_{8} = 1/256"],
        "xlabel": "l",
        "ylabel": "m",
    }
    print(to_svg(figure(symbols)))
