import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from attention_docs import sinusoidal_positional_encoding
from attention_docs.plotting import set_upright_ylabel, to_svg

D_MODEL = 64
COMPONENTS = (4, 16, 32)  # PE[pos, 2i] = sin(pos omega_i), i = 2, 8, 16
QUERIES = ((0, 1), (40, 1), (100, -1))  # (m, ±1): r = m ± t, t = |m - r|
DISTANCE = 64  # t = 0, ..., 63


def figure(labels: dict) -> Figure:
    pe = sinusoidal_positional_encoding(128, D_MODEL)  # (n, d_model) = (128, 64)
    colours = (
        mpl.rcParams["text.color"],
        mpl.rcParams["axes.prop_cycle"].by_key()["color"][0],
        mpl.rcParams["axes.prop_cycle"].by_key()["color"][1],
    )
    styles = ("-", "--", ":")
    widths = (2, 2.4, 3.2)
    fig = Figure(figsize=(4.8, 6.6), layout="constrained")
    fig.get_layout_engine().set(h_pad=8 / 72)
    curves, dots = fig.subplots(2, 1)
    positions = np.arange(64)
    for c, colour, style, width in zip(
        COMPONENTS, colours, styles, widths, strict=True
    ):
        curves.plot(
            positions,
            pe[positions, c],
            color=colour,
            linestyle=style,
            linewidth=width,
            label=f"{labels['component']} {c}",
        )
    curves.set_title(labels["curves_title"], pad=28)
    curves.set_xlabel(labels["position"])
    set_upright_ylabel(curves, labels["value"], y=1.07, lift=0)
    curves.set_xlim(0, 63)
    curves.set_ylim(-1.1, 1.1)  # -1 <= PE <= 1
    curves.set_yticks([-1, 0, 1])
    curves.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.25), ncols=3, frameon=False
    )
    curves.grid(True, alpha=0.3)
    t = np.arange(DISTANCE)
    markers = (None, "o", "x")
    for k, ((m, step), marker) in enumerate(zip(QUERIES, markers, strict=True)):
        r = m + step * t
        dot = pe[r] @ pe[m]  # PE_r . PE_m
        dots.plot(
            t,
            dot,
            color=colours[k],
            linestyle="-" if marker is None else "none",
            linewidth=2,
            marker=marker,
            markevery=(k, 3),
            markerfacecolor="none",
            markersize=6,
            label=labels["earlier"] if step < 0 else f"m = {m}",
        )
    dots.set_title(labels["dot_title"], pad=36)
    dots.set_xlabel(labels["distance"])
    set_upright_ylabel(dots, labels["dot"], y=1.07, lift=0)
    dots.set_xlim(0, 63)
    dots.set_ylim(0, D_MODEL / 2 + 2)  # PE_m . PE_m = d_model / 2
    dots.legend(loc="lower left", frameon=False)
    dots.grid(True, alpha=0.3)
    return fig


if __name__ == "__main__":
    symbols = {
        "curves_title": "PE (d_model = 64)",
        "component": "c =",
        "position": "pos",
        "value": "PE",
        "dot_title": "PE_{m} PE_{r}^{⊤}",
        "distance": "|m − r|",
        "dot": "PE_{m} PE_{r}^{⊤}",
        "earlier": "m = 100 (r < m)",
    }
    print(to_svg(figure(symbols)))
