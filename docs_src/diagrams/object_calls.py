"""The objects and their calls: a Query, a list of Keys and a list of Values."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, palette, text
from attention_docs import Key, Query, Value


def figure(labels: dict) -> Figure:
    keys = [Key(np.eye(3)[j]) for j in range(3)]  # the page's example
    values = [
        Value(np.array(v)) for v in ([0.5, 0.2, 0.1], [0.1, 0.7, 0.3], [0.3, 0.4, 0.6])
    ]
    query = Query(np.array([0.2, 0.8, 0.1]))
    output, weights = query.retrieve_values(keys, values, scaled=False)
    fig, ax = canvas(370, 300)
    line = palette()["line"]
    box(ax, 130, 14, 110, 28, "Query", fill="q")
    # each call takes the whole list: a dashed frame around the three keys
    # and around the three values, which the call's arrow reaches
    box(ax, 14, 122, 164, 40, fill="none", dashed=True)
    box(ax, 204, 122, 164, 40, fill="none", dashed=True)
    for j in range(3):
        box(ax, 20 + j * 52, 129, 46, 26, f"Key {j + 1}", fill="k", size=11.7)
        box(ax, 210 + j * 52, 129, 46, 26, f"Value {j + 1}", fill="v", size=11.7)
    # the arrows leave the query sideways and go down beside their calls'
    # names, so that no name is crossed
    ax.plot([130, 93], [28, 28], color=line, linewidth=1.2)
    arrow(ax, (93, 28), (93, 121))
    text(
        ax,
        100,
        62,
        "compute_attention_weights(keys)",
        ha="left",
        family="monospace",
        size=11.7,
    )
    ax.plot([240, 344], [28, 28], color=line, linewidth=1.2)
    arrow(ax, (344, 28), (344, 121))
    text(
        ax,
        337,
        96,
        "retrieve_values(keys, values)",
        ha="right",
        family="monospace",
        size=11.7,
    )
    text(ax, 4, 194, labels["weights"], ha="left")
    text(ax, 4, 216, "(" + ", ".join(f"{w:.3f}" for w in weights) + ")", ha="left")
    text(ax, 4, 248, labels["output"], ha="left")
    text(ax, 4, 270, "(" + ", ".join(f"{o:.3f}" for o in output) + ")", ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "weights": "weights (one per key)",
        "output": "output (a value-sized vector)",
    }
    print(to_svg(figure(english)))
