import matplotlib as mpl
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure

from attention_docs import sinusoidal_positional_encoding
from attention_docs.plotting import THEMES, set_upright_ylabel, to_svg

# PE = -1, 0, 1
SIGNED = {
    "light": ("#542788", "#ffffff", "#b35806"),
    "dark": ("#b2abd2", "#1e2029", "#fdb863"),
}


def figure(labels: dict) -> Figure:
    # PE[pos, 2i] = sin, PE[pos, 2i + 1] = cos
    pe = sinusoidal_positional_encoding(64, 64)
    dark = mpl.rcParams["text.color"] == THEMES["dark"]["text"]
    cmap = LinearSegmentedColormap.from_list("pe", SIGNED["dark" if dark else "light"])
    fig = Figure(figsize=(4.8, 4.0), layout="constrained")
    fig.get_layout_engine().set(w_pad=6 / 72)
    ax = fig.subplots()
    # -1 <= PE <= 1
    image = ax.imshow(pe, cmap=cmap, vmin=-1.0, vmax=1.0, interpolation="nearest")
    ax.set_xlabel(labels["xlabel"])
    set_upright_ylabel(ax, labels["ylabel"], y=1.02, lift=0)
    colorbar = fig.colorbar(image, ax=ax, ticks=[-1, -0.5, 0, 0.5, 1])
    colorbar.ax.set_title(labels["value"], loc="left", pad=8)
    return fig


if __name__ == "__main__":
    symbols = {
        "xlabel": "2i, 2i + 1",
        "ylabel": "pos",
        "value": "PE",
    }
    print(to_svg(figure(symbols)))
