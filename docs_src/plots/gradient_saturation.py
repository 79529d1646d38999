import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from attention_docs import scaled_dot_product_attention_backward as backward
from attention_docs.plotting import set_upright_ylabel, to_svg

D_K = (4, 8, 16, 32, 64, 128, 256, 512, 1024)


def gradient_sizes() -> dict:
    """median |dW_Q|_F, median |x_i| |dq_i|."""
    rng = np.random.default_rng(0)
    n, d_model, d_v, trials = 16, 32, 8, 50
    sizes = {
        "total": {"unscaled": [], "scaled": []},
        "query": {"unscaled": [], "scaled": []},
    }
    for d_k in D_K:
        x = rng.standard_normal((trials, n, d_model))  # x_ip ~ N(0, 1)
        w_q, w_k = rng.standard_normal((2, trials, d_model, d_k)) / np.sqrt(d_model)
        w_v = rng.standard_normal((trials, d_model, d_v)) / np.sqrt(d_model)
        g = rng.standard_normal((trials, n, d_v))  # G
        q, k, v = x @ w_q, x @ w_k, x @ w_v  # Var(q_p) = Var(k_p) = 1
        for name, scale in (("unscaled", 1.0), ("scaled", 1.0 / np.sqrt(d_k))):
            dq, _, _ = backward(q, k, v, g, scale=scale)
            dw_q = np.swapaxes(x, -1, -2) @ dq  # dW_Q = X^T dQ: (trials, d_model, d_k)
            total = np.linalg.norm(dw_q, axis=(-2, -1))  # |dW_Q|_F
            # |x_i^T dq_i|_F = |x_i| |dq_i|
            per_query = np.linalg.norm(x, axis=-1) * np.linalg.norm(dq, axis=-1)
            sizes["total"][name].append(float(np.median(total)))
            sizes["query"][name].append(float(np.median(per_query)))
    return sizes


def figure(labels: dict) -> Figure:
    sizes = gradient_sizes()
    colours = {
        "unscaled": mpl.rcParams["text.color"],
        "scaled": mpl.rcParams["axes.prop_cycle"].by_key()["color"][0],
    }
    styles = {"unscaled": ("--", "s"), "scaled": ("-", "o")}
    fig = Figure(figsize=(4.8, 6.6), layout="constrained")
    fig.get_layout_engine().set(h_pad=8 / 72)
    axes = fig.subplots(2, 1)
    for ax, panel in zip(axes, ("total", "query"), strict=True):
        for name in ("unscaled", "scaled"):
            linestyle, marker = styles[name]
            ax.plot(
                D_K,
                sizes[panel][name],
                linestyle=linestyle,
                marker=marker,
                color=colours[name],
                label=labels[name],
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(D_K[::2], [str(d) for d in D_K[::2]])
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_minor_formatter(NullFormatter())
        ax.set_title(labels[f"{panel}_title"], loc="left", linespacing=2.0, pad=28)
        ax.set_xlabel(labels["xlabel"])
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_yticks([20, 50, 100, 200])
    for ax in axes:
        set_upright_ylabel(ax, labels["ylabel"], y=1.07, lift=0)
    for ax, panel, x, y in (
        (axes[0], "total", 0.97, 0.62),
        (axes[1], "query", 0.4, 0.3),
    ):
        ax.annotate(
            labels[f"{panel}_note"],
            xy=(256, sizes[panel]["unscaled"][D_K.index(256)]),
            xytext=(x, y),
            textcoords="axes fraction",
            ha="right",
            va="center",
            color=colours["unscaled"],
            arrowprops={"arrowstyle": "-", "color": colours["unscaled"], "lw": 0.8},
        )
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside upper center", ncols=1, borderpad=0.9)
    return fig


if __name__ == "__main__":
    symbols = {
        "total_title": "|dW_Q|_F\n|sum_i x_i^T dq_i|_F",
        "query_title": "|x_i| |dq_i|\nmedian",
        "total_note": "max_j A_ij < 1",
        "query_note": "max_j A_ij -> 1",
        "xlabel": "d_k",
        "ylabel": "median",
        "unscaled": "scale = 1",
        "scaled": "scale = 1/sqrt(d_k)",
    }
    print(to_svg(figure(symbols)))
