"""The blockwise backward pass: which tiles a pass of the outer loop recomputes.

n = 8 queries and keys under a causal mask, tiles of 2 x 2. The outer loop
is at key block b = 2: the inner loop recomputes A_ab = e^(S_ab - lse_a) in
the tiles of query blocks a = 2, 3, 4 (tile 1 of that column is masked
everywhere and skipped), adds to dK_2 and dV_2 below the column, and adds
one term to each dQ_a on the right.
"""

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import arrow, box, canvas, palette, text
from attention_docs import causal_mask

N = 8  # queries and keys
B = 2  # rows and columns of a tile
T = N // B  # tiles per side
CELL = 17.0
CURRENT = 1  # the outer loop's key block (0-based): keys 3 and 4


def figure(labels: dict) -> Figure:
    fig, ax = canvas(370, 316)
    colours = palette()
    left, top = 60.0, 64.0
    side = N * CELL
    mask = causal_mask(N)  # True where query i may attend to key j
    for i in range(N):  # cells: empty where masked
        for j in range(N):
            if not mask[i, j]:
                fill = "none"
            elif j // B == CURRENT:
                fill = colours["a"]  # recomputed in this pass
            else:
                # recomputed in another pass: a grey that stands apart from the
                # page (the empty, masked cells) in both schemes
                fill = colours["token3"]
            ax.add_patch(
                Rectangle(
                    (left + j * CELL, top + i * CELL),
                    CELL,
                    CELL,
                    facecolor=fill,
                    edgecolor=colours["line"],
                    linewidth=0.4,
                )
            )
    for t in range(T):  # tile boundaries
        for u in range(T):
            ax.add_patch(
                Rectangle(
                    (left + u * B * CELL, top + t * B * CELL),
                    B * CELL,
                    B * CELL,
                    fill=False,
                    edgecolor=colours["line"],
                    linewidth=1.2,
                )
            )
    x0 = left + CURRENT * B * CELL  # the current column of tiles
    ax.add_patch(
        Rectangle(
            (x0, top),
            B * CELL,
            side,
            fill=False,
            edgecolor=colours["accent"],
            linewidth=2.2,
        )
    )
    # outer loop: key blocks b, left to right; inner loop: query blocks a, down
    text(ax, left + side / 2, 14, labels["outer"])
    arrow(ax, (left, top - 22), (left + side, top - 22), colour=colours["accent"])
    # "b =" once, in the corner above the a labels, and each block's number
    # over its block: four "b = u" labels are wider than a block and ran
    # together ("b = 1b = 2 ...")
    text(ax, left - 18, top - 9, "b =")
    for u in range(T):
        text(ax, left + (u + 0.5) * B * CELL, top - 9, f"{u + 1}")
    arrow(ax, (left - 36, top), (left - 36, top + side), colour=colours["accent"])
    for t in range(T):
        text(ax, left - 18, top + (t + 0.5) * B * CELL, f"a = {t + 1}")
    # dQ_a on the right: one term from each tile of row a in this pass
    qx = left + side + 46
    for t in range(T):
        y = top + t * B * CELL + 5
        box(ax, qx, y, 50, B * CELL - 10, f"dQ_{{{t + 1}}}", fill="q")
        tile = mask[t * B : (t + 1) * B, CURRENT * B : (CURRENT + 1) * B]
        if tile.any():  # a tile with a visible position adds to dQ_a
            arrow(
                ax,
                (left + side + 4, y + (B * CELL - 10) / 2),
                (qx - 2, y + (B * CELL - 10) / 2),
                colour=colours["accent"],
            )
    text(ax, qx + 25, top - 9, "dQ_{a}")
    # dK_b, dV_b below the column: every tile of the column adds to them
    by = top + side + 20
    arrow(
        ax,
        (x0 + B * CELL / 2, top + side + 2),
        (x0 + B * CELL / 2, by - 2),
        colour=colours["accent"],
    )
    box(ax, x0 - 22, by, B * CELL + 44, 24, "dK_{2}, dV_{2}", fill="k")
    text(ax, x0 + B * CELL + 30, by + 12, labels["kv"], ha="left")
    text(ax, 8, 265, labels["legend"], ha="left")
    text(ax, 8, 286, labels["others"], ha="left")
    text(ax, 8, 305, labels["once"], ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "outer": "outer loop: key blocks b",
        "kv": "kept, written once",
        "legend": "coloured: A_{ab} recomputed in this pass",
        "others": "grey: in other passes; empty: masked",
        "once": "once: D = rowsum(G ⊙ Z); lse from the forward pass",
    }
    print(to_svg(figure(english)))
