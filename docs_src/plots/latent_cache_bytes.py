import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from attention_docs import kv_cache_bytes
from attention_docs.plotting import to_svg

# DeepSeek-V3: N = 61, n_h = d_h = 128, d_c = 512, d_h^R = 64; s = 2, n = 1
LAYERS, N_H, D_H, D_C, D_R = 61, 128, 128, 512, 64


def sizes() -> dict:
    per_token = {
        "mha": kv_cache_bytes(LAYERS, N_H, D_H, 1),
        "gqa": kv_cache_bytes(LAYERS, 8, D_H, 1),
        "mqa": kv_cache_bytes(LAYERS, 1, D_H, 1),
        "mla": kv_cache_bytes(LAYERS, N_H, D_H, 1, latent_dim=D_C, rope_dim=D_R),
    }
    return {name: size / 2**10 for name, size in per_token.items()}  # KiB


def figure(labels: dict) -> Figure:
    kib = sizes()
    names = ["mha", "gqa", "mla", "mqa"]
    fig = Figure(figsize=(4.8, 3.2), layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(names))[::-1]  # MHA, GQA, MLA, MQA
    bars = ax.barh(y, [kib[name] for name in names])
    ax.bar_label(bars, labels=[f"{kib[name]:g}" for name in names], padding=3)
    ax.set_yticks(y, [labels[name] for name in names])
    ax.set_xscale("log")
    ax.set_xlim(10, 40000)
    ticks = [10, 100, 1000, 10000]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.set_xticklabels([f"{t:,}" for t in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    fig.supxlabel(labels["xlabel"], fontsize=mpl.rcParams["axes.labelsize"])
    return fig


if __name__ == "__main__":
    symbols = {
        "xlabel": "KiB",
        "mha": "MHA",
        "gqa": "GQA, h_kv = 8",
        "mqa": "MQA",
        "mla": "MLA, d_c + d_h^R = 576",
    }
    print(to_svg(figure(symbols)))
