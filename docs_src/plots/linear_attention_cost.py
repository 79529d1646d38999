import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from attention_docs import linear_attention_step
from attention_docs.plotting import set_upright_ylabel, to_svg

D_K = D_V = 64
T = np.arange(1, 257)  # t = 1 ... 256


def costs() -> dict:
    """E(t), F(t): (K, V); (S_t, z_t)."""
    rng = np.random.default_rng(0)
    q_t, k_t = rng.standard_normal((2, D_K))
    _, state = linear_attention_step(None, q_t, k_t, rng.standard_normal(D_V))
    r = state.z.size
    return {
        "memory": {
            "cache": T * (D_K + D_V),  # K, V: t (d_k + d_v)
            "linear": np.full(T.shape, state.s.size + state.z.size),  # r d_v + r
        },
        "work": {
            "cache": T * D_K + T * D_V,  # q K^T; a V
            "linear": np.full(
                T.shape, 2 * r * D_V + r
            ),  # phi(k)^T v; phi(q) S; phi(q) . z
        },
    }


def figure(labels: dict) -> Figure:
    numbers = costs()
    colours = {
        "cache": mpl.rcParams["text.color"],
        "linear": mpl.rcParams["axes.prop_cycle"].by_key()["color"][0],
    }
    styles = {"cache": "--", "linear": "-"}
    fig = Figure(figsize=(4.8, 6.2), layout="constrained")
    fig.get_layout_engine().set(h_pad=8 / 72)
    axes = fig.subplots(2, 1, sharex=True)
    for ax, panel in zip(axes, ("memory", "work"), strict=True):
        for name in ("cache", "linear"):
            ax.plot(
                T,
                numbers[panel][name],
                linestyle=styles[name],
                color=colours[name],
                label=labels[name],
            )
        ax.set_title(labels[f"{panel}_title"], pad=28)
        set_upright_ylabel(ax, labels[f"{panel}_ylabel"], y=1.07, lift=0)
        ax.set_ylim(0, 33000)
        ax.set_yticks([0, 10000, 20000, 30000], ["0", "10,000", "20,000", "30,000"])
        ax.grid(True, alpha=0.3)
    axes[1].set_xlabel(labels["xlabel"])
    axes[1].set_xticks([1, 64, 128, 192, 256])
    handles, names = axes[1].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=1, borderpad=0.9)
    return fig


if __name__ == "__main__":
    symbols = {
        "memory_title": "E(t), d_k = d_v = 64",
        "work_title": "F(t), d_k = d_v = 64",
        "memory_ylabel": "E",
        "work_ylabel": "F",
        "xlabel": "t",
        "cache": "softmax: K, V",
        "linear": "phi: S_t, z_t",
    }
    print(to_svg(figure(symbols)))
