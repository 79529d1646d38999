"""The generation loop: prefill the prompt, then one new row per step."""

from matplotlib.figure import Figure

from attention_book.diagrams import bool_grid, canvas, legend, matrix, text
from attention_docs import causal_mask, load_pretrained

CELL = 14.0
N0 = 4  # prompt tokens drawn


def _step(ax, top, n_q, n_k, labels):
    """Queries, mask, and one layer's cached keys and values at ``top``."""
    rows_top = top + (n_k - n_q) * CELL  # the queries are the last rows
    for i in range(n_q):  # position of each query
        y = rows_top + (i + 0.5) * CELL
        text(ax, 34, y, str(n_k - n_q + i + 1), ha="right")
    matrix(ax, 40, rows_top, n_q, 3, cell=CELL, fill="q", name="")
    text(ax, 40 + 1.5 * CELL, top - 10, "Q")
    bool_grid(ax, 110, rows_top, causal_mask(n_q, n_k), cell=CELL)
    for j in range(n_k):  # key positions 1..n_k
        text(ax, 110 + (j + 0.5) * CELL, top - 10, str(j + 1))
    new = list(range(n_k - n_q, n_k))  # rows this step appends
    for x, fill, name in [(240, "k", "K_{cache}"), (300, "v", "V_{cache}")]:
        matrix(ax, x, top, n_k, 3, cell=CELL, fill=fill, highlight_rows=new)
        text(ax, x + 1.5 * CELL, top - 16, name)
    text(ax, 270 + 1.5 * CELL, top + n_k * CELL + 12, labels["cache"])


def figure(labels: dict) -> Figure:
    config = load_pretrained(labels["edition"]).config
    h, d_k, n_layers = config.n_heads, config.d_k, config.n_layers
    fig, ax = canvas(370, 384)
    text(ax, 4, 10, f"{labels['prefill']} (n_{{0}} = {N0})", ha="left")
    _step(ax, 50, N0, N0, labels)
    shape = f"(h, n_{{0}}, d_{{k}}) = ({h}, {N0}, {d_k})"
    text(ax, 4, 140, f"Q, K_{{cache}}, V_{{cache}}: {shape}", ha="left")
    text(ax, 4, 178, labels["decode"], ha="left")
    _step(ax, 218, 1, N0 + 1, labels)
    cached = f"K_{{cache}}, V_{{cache}}: ({h}, {N0 + 1}, {d_k})"
    text(ax, 4, 323, f"Q: ({h}, 1, {d_k}),   {cached}", ha="left")
    text(ax, 4, 345, f"{labels['layers']} N = {n_layers}", ha="left")
    legend(
        ax, 10, 370, [("keep", "True"), ("mask", "False"), ("highlight", labels["new"])]
    )
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "caption": "The generation loop",
        "prefill": "Prefill: the prompt's rows at once",
        "decode": "Decode step: one new row",
        "cache": "cache",
        "layers": "layers, each with its own cache:",
        "new": "the step's new rows",
    }
    print(to_svg(figure(english)))
