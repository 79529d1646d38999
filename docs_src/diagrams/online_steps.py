"""Online softmax on the page's four scores (1, 3, 0.5, 4): m, l and o key by key."""

import numpy as np
from matplotlib.figure import Figure

from attention_book.diagrams import box, canvas, palette, text
from attention_docs import softmax

S = np.array([1.0, 3.0, 0.5, 4.0])  # the page's example
V = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 274)
    accent = palette()["accent"]
    # the centres of the columns: the wide exp(…) header apart from its
    # neighbours' (it ran into m_t and ℓ_t)
    columns = [
        (18, "t"),
        (50, "s_{t}"),
        (84, "m_{t}"),
        (158, "exp(m_{t−1} − m_{t})"),
        (238, "ℓ_{t}"),
        (312, r"\mathbf{o}_{t}"),
    ]
    for x, head in columns:
        text(ax, x, 40, head)
    m, ell, o = -np.inf, 0.0, np.zeros(2)
    for j, (s_j, v_j) in enumerate(zip(S, V, strict=True)):
        m_new = max(m, s_j)
        rescale = np.exp(m - m_new)
        ell = rescale * ell + np.exp(s_j - m_new)
        o = rescale * o + np.exp(s_j - m_new) * v_j
        y = 68 + j * 30
        changed = m_new > m and j > 0
        box(
            ax,
            4,
            y - 12,
            362,
            24,
            fill="highlight" if changed else "box",
            rounded=False,
        )
        cells = [
            str(j + 1),
            f"{s_j:g}",
            f"{m_new:g}",
            f"{rescale:.4f}",
            f"{ell:.4f}",
            f"({o[0]:.4f}, {o[1]:.4f})",
        ]
        for (x, _), cell in zip(columns, cells, strict=True):
            text(ax, x, y, cell)
        m = m_new
    z = o / ell
    assert np.allclose(z, softmax(S) @ V)  # no approximation
    # the values that o_t sums, row by row
    rows = ", ".join(f"({a:g}, {b:g})" for a, b in V)
    text(ax, 4, 196, rf"\mathbf{{v}}_{{1}}, …, \mathbf{{v}}_{{4}} = {rows}", ha="left")
    text(
        ax,
        4,
        222,
        rf"\mathbf{{z}} = \mathbf{{o}} / ℓ = ({z[0]:.4f}, {z[1]:.4f})",
        ha="left",
        color=accent,
        fontweight="bold",
    )
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    text(ax, 4, 266, labels["rescale"], ha="left", va="bottom")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "One key at a time",
        "rescale": "highlighted: the maximum rises; l and o shrink, then add",
    }
    print(to_svg(figure(english)))
