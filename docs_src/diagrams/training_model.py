"""The page's model: embeddings plus positions, attention, W_out, the loss; shapes."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import arrow, box, canvas, text
from attention_docs.training import forward, init_params, reversal_task

W, H = 150.0, 26.0


def figure(labels: dict) -> Figure:
    rng = np.random.default_rng(0)
    params = init_params(rng, vocab=8, d_model=16, d_k=16)  # the page's model
    tokens, _ = reversal_task(rng, batch=1, n=6, vocab=8)
    fwd = forward(params, tokens)
    n, d_model = fwd.x.shape[1:]
    vocab = fwd.logits.shape[2]
    steps = [
        (rf"{labels['tokens']} \boldsymbol{{τ}}", "box", f"({n},)"),
        (r"X = E_{\boldsymbol{τ}} + PE", "x", f"({n}, {d_model})"),
        ("Q, K, V", "q", f"({n}, {fwd.q.shape[2]})"),
        ("Z = softmax(Q K^{⊤} / √d_{k}) V", "z", f"({n}, {fwd.output.shape[2]})"),
        ("U = Z W_{out}", "w", f"({n}, {vocab})"),
        (labels["loss"], "a", "L"),
    ]
    fig, ax = canvas(370, 330)
    left = 60.0
    for i, (name, fill, shape) in enumerate(steps):
        y = 12 + i * 52
        box(ax, left, y, W + 40, H, name, fill=fill)
        text(ax, left + W + 52, y + H / 2, shape, ha="left")
        if i:
            arrow(ax, (left + (W + 40) / 2, y - 26), (left + (W + 40) / 2, y))
    text(ax, 4, 12 + 5 * 52 + H + 26, labels["targets"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "tokens": "tokens",
        "loss": "cross-entropy loss",
        "targets": "target: the sequence reversed",
    }
    print(to_svg(figure(english)))
