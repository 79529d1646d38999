"""A block of queries (queries 1 and 2 of the running example) against the key
blocks of two keys, one after another: S_b, m, exp(m - m'), l and O at each step."""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import box, canvas, palette, text
from attention_docs import attention_scores, project_qkv, running_example

QUERIES = slice(0, 2)  # the block of queries: queries 1 and 2
BLOCK_SIZE = 2  # keys per block: keys 1-2, then key 3


def steps() -> list[dict]:
    """The page's update, one key block at a time, for the block of queries.

    Each step: the keys of the block (0-based), the scores ``s`` of the block,
    the running maximum before it (``m_before``, -inf before the first block)
    and after it ``m``, ``rescale`` = exp(m_before - m), ``ell`` and the
    unnormalised ``o``, one row per query of the block.
    """
    x, w_q, w_k, w_v = running_example()
    q, k, v = project_qkv(x, w_q, w_k, w_v)  # n = 3, d_k = d_v = 4
    q = q[QUERIES]
    m = np.full(q.shape[0], -np.inf)
    ell = np.zeros(q.shape[0])
    o = np.zeros((q.shape[0], v.shape[1]))
    result = []
    for start in range(0, k.shape[0], BLOCK_SIZE):
        keys = range(start, min(start + BLOCK_SIZE, k.shape[0]))
        # S_b, the rows of queries 1 and 2: (2, 2), then (2, 1)
        s = attention_scores(q, k[keys.start : keys.stop])
        m_new = np.maximum(m, s.max(axis=1))
        p = np.exp(s - m_new[:, None])  # P_b
        rescale = np.exp(m - m_new)  # diagonal of R
        ell = rescale * ell + p.sum(axis=1)
        o = rescale[:, None] * o + p @ v[keys.start : keys.stop]
        result.append(
            {
                "keys": keys,
                "s": s,
                "m_before": m,
                "m": m_new,
                "rescale": rescale,
                "ell": ell,
                "o": o,
            }
        )
        m = m_new
    return result


CELL_H = 20.0
NUM_W = 46.0  # a cell holding a number such as 1.6065
S_W = 30.0  # a cell of S_b
COLUMNS = {"grid": 8, "s": 78, "m": 154, "rescale": 206, "ell": 262}
MINI = 13.0  # a cell of the n x n outline
N = 3  # tokens of the running example


def number(value: float) -> str:
    """4 decimals at most: 1.6065, 0.5, 2, 0."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


def cells(ax, x: float, y: float, rows, width: float, fills) -> None:
    """A little table of numbers, one row per query of the block; a row whose
    fill is the highlight is framed in the accent colour too."""
    for i, row in enumerate(rows):
        for c, value in enumerate(row):
            box(
                ax,
                x + c * width,
                y + i * CELL_H,
                width,
                CELL_H,
                value,
                fill=fills[i],
                rounded=False,
            )
        if fills[i] == "highlight":
            ax.add_patch(
                Rectangle(
                    (x, y + i * CELL_H),
                    len(row) * width,
                    CELL_H,
                    fill=False,
                    edgecolor=palette()["accent"],
                    linewidth=2.2,
                )
            )


def outline(ax, x: float, y: float, keys: range) -> None:
    """The n x n scores, never formed: dashed, with this step's tile filled."""
    colours = palette()
    for i in range(N):
        for j in range(N):
            lit = i in range(QUERIES.start, QUERIES.stop) and j in keys
            ax.add_patch(
                Rectangle(
                    (x + j * MINI, y + i * MINI),
                    MINI,
                    MINI,
                    facecolor=colours["s"] if lit else "none",
                    edgecolor=colours["line"],
                    linewidth=0.9 if lit else 0.6,
                    linestyle="solid" if lit else (0, (2, 2)),
                )
            )


def figure(labels: dict) -> Figure:
    accent = palette()["accent"]
    table = steps()
    fig, ax = canvas(370, 476)
    text(ax, 4, 8, labels["title"], ha="left", va="top")
    top = 42.0
    for step, row in enumerate(table):
        rises = np.isfinite(row["m_before"]) & (row["m"] > row["m_before"])
        fills = ["highlight" if rise else "box" for rise in rises]
        text(ax, 4, top, labels["steps"][step], ha="left", color=accent)
        y = top + 14
        if step == 0:  # the columns' names, once
            for x, head in [
                (COLUMNS["s"] + S_W, "S_{b}"),
                (COLUMNS["m"] + 20, "m"),
                (COLUMNS["rescale"] + NUM_W / 2, "e^{m−m′}"),
                (COLUMNS["ell"] + NUM_W / 2, "ℓ"),
            ]:
                text(ax, x, y + 6, head)
            y += 20
        outline(ax, COLUMNS["grid"], y, row["keys"])
        for i in range(len(rises)):
            text(
                ax,
                COLUMNS["s"] - 4,
                y + (i + 0.5) * CELL_H,
                rf"\mathbf{{q}}_{{{i + 1}}}",
                ha="right",
            )
        cells(
            ax,
            COLUMNS["s"],
            y,
            [[f"{s:g}" for s in r] for r in row["s"]],
            S_W,
            ["s", "s"],
        )
        cells(ax, COLUMNS["m"], y, [[f"{m:g}"] for m in row["m"]], 40, fills)
        cells(
            ax,
            COLUMNS["rescale"],
            y,
            [[number(r)] for r in row["rescale"]],
            NUM_W,
            fills,
        )
        cells(ax, COLUMNS["ell"], y, [[number(e)] for e in row["ell"]], NUM_W, fills)
        for c, j in enumerate(row["keys"]):
            text(
                ax,
                COLUMNS["s"] + (c + 0.5) * S_W,
                y + 2 * CELL_H + 10,
                rf"\mathbf{{k}}_{{{j + 1}}}",
            )
        y += 2 * CELL_H + 26  # k_j's subscript clear of O's top border
        text(ax, COLUMNS["s"] - 4, y + CELL_H, "Õ", ha="right")
        o_fills = ["highlight" if rise else "z" for rise in rises]
        cells(
            ax,
            COLUMNS["s"],
            y,
            [[number(o) for o in r] for r in row["o"]],
            NUM_W,
            o_fills,
        )
        top = y + 2 * CELL_H + 22
    z = table[-1]["o"] / table[-1]["ell"][:, None]  # Z = diag(l)^-1 Õ
    text(ax, 4, top, labels["output"], ha="left", color=accent)
    y = top + 14
    text(ax, COLUMNS["s"] - 4, y + CELL_H, "Õ / ℓ", ha="right")
    cells(ax, COLUMNS["s"], y, [[f"{v:.4f}" for v in r] for r in z], NUM_W, ["z", "z"])
    for line, key in enumerate(("rescaled", "never", "kept")):
        text(ax, 4, y + 2 * CELL_H + 24 + line * 20, labels[key], ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "title": "Queries 1 and 2, the key blocks one after another",
        "steps": ["Key block 1 (keys 1 and 2)", "Key block 2 (key 3)"],
        "output": "After the last block",
        "rescaled": "Framed: the maximum rises (l and Õ shrink, then add)",
        "never": "Dashed: all 3 × 3 scores, never formed",
        "kept": "In memory: 2 queries, 2 keys and values, S_{b}, m, l, Õ",
    }
    print(to_svg(figure(english)))
