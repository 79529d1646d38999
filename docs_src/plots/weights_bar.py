import numpy as np
from matplotlib.figure import Figure

from attention_docs import Key, Query, Value
from attention_docs.plotting import plot_weights_bar, to_svg


def figure(labels: dict) -> Figure:
    keys = [
        Key(np.array([1, 0, 0])),
        Key(np.array([0, 1, 0])),
        Key(np.array([0, 0, 1])),
    ]
    values = [
        Value(np.array([0.5, 0.2, 0.1])),
        Value(np.array([0.1, 0.7, 0.3])),
        Value(np.array([0.3, 0.4, 0.6])),
    ]
    query = Query(np.array([0.2, 0.8, 0.1]))
    _, weights = query.retrieve_values(keys, values, scaled=False)  # (3,)
    fig, _ = plot_weights_bar(
        weights,
        labels=labels["keys"],
        xlabel=labels["xlabel"],
        ylabel=labels["ylabel"],
    )
    fig.get_layout_engine().set(h_pad=8 / 72)
    return fig


if __name__ == "__main__":
    symbols = {
        "keys": ["k_1", "k_2", "k_3"],
        "xlabel": "j",
        "ylabel": "a_j",
    }
    print(to_svg(figure(symbols)))
