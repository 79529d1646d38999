import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from attention_docs import rope_frequencies
from attention_docs.plotting import set_upright_ylabel, to_svg

D, L, S = 128, 4096, 4  # d_k, L, s = L'/L
PAIRS = (20, 46)
METHODS = (None, "linear", "ntk", "yarn")


def figure(labels: dict) -> Figure:
    positions = np.linspace(0, S * L, 257)  # m = 0 ... L'
    colours = (
        mpl.rcParams["text.color"],
        mpl.rcParams["axes.prop_cycle"].by_key()["color"][0],
        mpl.rcParams["axes.edgecolor"],
        mpl.rcParams["axes.prop_cycle"].by_key()["color"][1],
    )
    styles = ("-", "--", "-.", ":")
    theta = {
        method: rope_frequencies(
            D,
            scaling=method,
            factor=None if method is None else S,
            original_length=L if method == "yarn" else None,
        )
        for method in METHODS
    }
    fig = Figure(figsize=(4.8, 6.4), layout="constrained")
    fig.get_layout_engine().set(h_pad=8 / 72)
    axes = fig.subplots(2, 1)
    for ax, i, same in zip(axes, PAIRS, labels["same"], strict=True):
        seen = L * theta[None][i] / (2 * np.pi)  # r_i = L theta_i / 2 pi
        for method, colour, style in zip(METHODS, colours, styles, strict=True):
            turns = positions * theta[method][i] / (2 * np.pi)  # m theta'_i / 2 pi
            ax.plot(
                positions,
                turns,
                linestyle=style,
                color=colour,
                linewidth=2,
                label=labels[str(method).lower()],
                marker="o" if method == "yarn" else None,
                markevery=16,
                markerfacecolor="none",
            )
        ax.axvline(L, color=colours[0], linewidth=0.8, alpha=0.6)
        ax.axhline(seen, color=colours[0], linewidth=0.8, alpha=0.6)
        ax.set_title(f"{labels['pair']} {i}", pad=28)
        ax.text(0.03, 0.95, same, transform=ax.transAxes, va="top")
        ax.set_xlabel(labels["xlabel"])
        set_upright_ylabel(ax, labels["ylabel"], y=1.07, lift=0)
        ax.set_xlim(0, S * L)
        ax.set_ylim(0, None)
        ax.set_xticks([0, L, 2 * L, 3 * L, 4 * L], ["0", "L", "2L", "3L", "4L"])
        ax.grid(True, alpha=0.3)
    handles, names = axes[1].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=2)
    return fig


if __name__ == "__main__":
    symbols = {
        "pair": "i =",
        "xlabel": "m",
        "ylabel": "m θ′_{i} / 2π",
        "none": "RoPE",
        "linear": "PI",
        "ntk": "NTK",
        "yarn": "YaRN",
        "same": ["YaRN = RoPE", "YaRN = PI"],
    }
    print(to_svg(figure(symbols)))
