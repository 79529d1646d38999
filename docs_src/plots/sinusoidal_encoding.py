from matplotlib.figure import Figure

from attention_docs import sinusoidal_positional_encoding
from attention_docs.plotting import to_svg


def figure(labels: dict) -> Figure:
    # PE[pos, 2i] = sin, PE[pos, 2i + 1] = cos
    pe = sinusoidal_positional_encoding(64, 64)
    fig = Figure(figsize=(4.8, 4.0), layout="constrained")
    fig.get_layout_engine().set(w_pad=6 / 72)
    ax = fig.subplots()
    # -1 <= PE <= 1
    image = ax.imshow(pe, cmap="viridis", vmin=-1.0, vmax=1.0, interpolation="nearest")
    fig.suptitle(labels["title"])
    ax.set_xlabel(labels["xlabel"])
    ax.set_ylabel(labels["ylabel"])
    fig.colorbar(image, ax=ax).set_label(labels["value"])
    return fig


if __name__ == "__main__":
    symbols = {
        "title": "PE (n = 64, d_model = 64)",
        "xlabel": "2i, 2i + 1",
        "ylabel": "pos",
        "value": "PE",
    }
    print(to_svg(figure(symbols)))
