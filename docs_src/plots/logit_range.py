import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from attention_docs import attention_scores, qk_norm, soft_cap, softmax
from attention_docs.plotting import to_svg

SCALES = 2.0 ** np.arange(-2.0, 4.25, 0.25)  # lambda
CAP = 50.0


def score_ranges() -> dict:
    """ranges[name]["max"] = max |S_ij|, ranges[name]["top"] = mean_i max_j A_ij."""
    rng = np.random.default_rng(0)
    n, d_model, d_k = 16, 64, 64
    x = rng.standard_normal((n, d_model))  # X: (n, d_model)
    w_q, w_k = rng.standard_normal((2, d_model, d_k)) / np.sqrt(d_model)
    ranges = {name: {"max": [], "top": []} for name in ("plain", "qk", "cap")}
    for lam in SCALES:
        q, k = x @ (lam * w_q), x @ (lam * w_k)  # (n, d_k)
        s = attention_scores(q, k)  # lambda^2 S
        scores = {
            "plain": s,
            "qk": attention_scores(*qk_norm(q, k)),
            "cap": soft_cap(s, CAP),  # 50 tanh(S / 50)
        }
        for name, scores_of in scores.items():
            top = softmax(scores_of, axis=-1).max(axis=-1)  # max_j A_ij
            ranges[name]["max"].append(float(np.abs(scores_of).max()))
            ranges[name]["top"].append(float(top.mean()))
    return ranges


def figure(labels: dict) -> Figure:
    ranges = score_ranges()
    accent = mpl.rcParams["axes.prop_cycle"].by_key()["color"][0]
    styles = {  # (linestyle, marker, colour)
        "plain": ("--", "s", mpl.rcParams["text.color"]),
        "qk": ("-", "o", accent),
        "cap": (":", "^", mpl.rcParams["xtick.color"]),
    }
    fig = Figure(figsize=(4.8, 6.6), layout="constrained")
    fig.get_layout_engine().set(h_pad=8 / 72)
    axes = fig.subplots(2, 1, sharex=True)
    for ax, panel in zip(axes, ("max", "top"), strict=True):
        for name, (linestyle, marker, colour) in styles.items():
            ax.plot(
                SCALES,
                ranges[name][panel],
                linestyle=linestyle,
                marker=marker,
                markersize=6 if name == "cap" else 4,
                markerfacecolor="none" if name == "cap" else colour,
                color=colour,
                label=labels[name],
            )
        ax.set_xscale("log", base=2)
        ax.set_title(labels[f"{panel}_title"])
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_yscale("log")
    axes[0].yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    axes[0].yaxis.set_minor_formatter(NullFormatter())
    axes[1].set_ylim(0, 1)
    axes[1].set_xticks([0.25, 1, 4, 16], ["0.25", "1", "4", "16"])
    axes[1].xaxis.set_minor_formatter(NullFormatter())
    axes[1].set_xlabel(labels["xlabel"])
    handles, names = axes[1].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=1, borderpad=0.9)
    return fig


if __name__ == "__main__":
    symbols = {
        "max_title": "max |S_ij|",
        "top_title": "mean max_j A_ij",
        "xlabel": "lambda",
        "plain": "Q K^T / sqrt(d_k)",
        "qk": "QK-norm",
        "cap": "50 tanh(S / 50)",
    }
    print(to_svg(figure(symbols)))
