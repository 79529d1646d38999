r"""Drawing helpers of the book's diagrams (``docs_src/diagrams/<name>.py``).

A diagram is a matplotlib figure whose coordinates are SVG units (points):
:func:`canvas` makes a figure ``width`` × ``height`` points large with one
Axes that fills it, y pointing down as in SVG, so that a box drawn 40 units
wide with a 12-point label keeps that proportion in every rendering. The
book's figures are shown at most as wide as the page's column; on a 390 px
phone that column is :data:`PHONE_COLUMN` px wide, so a label of ``size``
units in a figure ``width`` units wide is drawn ``size * PHONE_COLUMN /
width`` px high there. :data:`MIN_PX` is the smallest size the tests allow.

Words come from the diagram's entry of ``docs_src/diagrams/labels.yml``
(the page's language); symbols and code names are written in the scripts.
In any label, ``_{...}`` and ``^{...}`` mark a subscript and a superscript
(``d_{k}``, ``K^{⊤}``, ``W^{Q}``): :func:`markup` turns them into SVG
``<tspan>`` elements after matplotlib has written the figure, so the
browser draws them with the page's fonts like the rest of the text. It also
sets each formula of a label (``Q``, ``W_{Q}``, ``d_{model}``, ``1/√d_{k}``,
``softmax(S + B)``, a lone letter such as the ``n`` of "n 行") as KaTeX sets
the text's maths: a serif, letters italic, words, digits and operators
upright, never bold (an emphasised label's maths keeps its weight, as
KaTeX's does in bold text); ``text(..., math=False)`` keeps a letter that
is data (a token) as it is. A symbol that the text sets bold is written as
the text writes it: ``\mathbf{q}_{i}`` (a vector: bold upright, as KaTeX
sets ``\mathbf``) and ``\boldsymbol{τ}`` (bold italic, as ``\boldsymbol``),
also inside a script (``E_{\boldsymbol{τ}}``). The plots' SVG goes through
:func:`markup` too (``stages/plots.py``), so their labels write ``W_{Q}``
and ``d_{k}`` the same way.

Colours follow :func:`attention_docs.plotting.theme`: :func:`palette`
returns the fills of the theme the figure is drawn in, soft on the light
page and deep on the dark one, one colour per kind of matrix (the same in
every diagram: queries, keys, values, scores, weights, ...).
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Sequence

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle

from attention_docs.plotting import THEMES
from attention_docs.plotting import weights_cmap as plotting_weights_cmap

#: Width in CSS px of the page's column on a 390 px wide phone.
PHONE_COLUMN = 358
#: The smallest text, in CSS px, that a figure may show on that phone.
MIN_PX = 11.0
#: Widest diagram, in SVG units: its 12-unit labels stay >= MIN_PX on a phone.
MAX_WIDTH = 380
#: Size of ordinary labels and of symbols (a subscript is SUB of it).
FONT = 12.5
MATH = 15.0
SUB = 0.75

#: Fills per kind of matrix and per theme: X and Y the inputs (Y the second
#: sequence of cross-attention), W the weight matrices, Q K V S A Z, "exp" the
#: exponentials of softmax (not yet weights), "mask"/"keep" a mask's False and
#: True, "head1" ... "head4" the heads (the heads explorable, explorables.css,
#: draws four). A new kind of thing gets a new fill, never a matrix's (a mask's
#: True and a window are slate, not Z's teal). Pairs that
#: share figures and that colour-blind readers would confuse differ in
#: lightness too (K and V, False and True: tests/docs/test_figure_contrast.py).
FILLS = {
    "light": {
        "x": "#e3e8f0",
        "w": "#f1e4c8",
        "q": "#cfe3f7",
        "k": "#e9cbb6",
        "v": "#ddf5d8",
        "s": "#e6dbf5",
        "a": "#f8d3da",
        "z": "#d9f0ee",
        "y": "#bcc3cf",
        "exp": "#e4efb0",
        "mask": "#b4b4b4",
        "keep": "#475569",
        "box": "#eeeeee",
        "highlight": "#ffe08a",
        "accent": "#c2410c",
        "head1": "#bfdbfe",
        "head2": "#fde68a",
        "head3": "#bbf7d0",
        "head4": "#f5d0fe",
        "token1": "#f3f4f6",
        "token2": "#d1d5db",
        "token3": "#a8aeb8",
    },
    "dark": {
        "x": "#3a4354",
        "w": "#5a4b2c",
        "q": "#284a6b",
        "k": "#613d27",
        "v": "#395f43",
        "s": "#4b3f66",
        "a": "#653b45",
        "z": "#2c5753",
        "y": "#262d3a",
        "exp": "#4b5222",
        "mask": "#4a4a4a",
        "keep": "#64748b",
        "box": "#33363f",
        "highlight": "#76601e",
        "accent": "#fdba74",
        "head1": "#1e4f86",
        "head2": "#6b5412",
        "head3": "#14532d",
        "head4": "#6b2a73",
        "token1": "#2a2d34",
        "token2": "#474c59",
        "token3": "#5d6372",
    },
}


def current_theme() -> str:
    """``"light"`` or ``"dark"``: the :func:`~attention_docs.plotting.theme` in use."""
    return "dark" if mpl.rcParams["text.color"] == THEMES["dark"]["text"] else "light"


def palette() -> dict[str, str]:
    """Fills, text and line colours of the theme the figure is drawn in."""
    name = current_theme()
    return {**FILLS[name], "text": THEMES[name]["text"], "line": THEMES[name]["line"]}


def weights_cmap() -> LinearSegmentedColormap:
    """The colour scale of attention weights in [0, 1], in the current theme:
    the plots' (:data:`attention_docs.plotting.WEIGHTS_RAMP`: the page at 0,
    the book's fill of A, a deep rose at 1), so that every heat map of A,
    plot or diagram, draws one weight in one colour."""
    return plotting_weights_cmap()


def canvas(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure ``width`` × ``height`` SVG units, drawn in those units, y down."""
    if width > MAX_WIDTH:
        raise ValueError(f"a diagram is at most {MAX_WIDTH} units wide, got {width}")
    fig = Figure(figsize=(width / 72, height / 72))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    return fig, ax


def text(
    ax: Axes,
    x: float,
    y: float,
    label: str,
    *,
    size: float = FONT,
    math: bool = True,
    **kw,
):
    """A label centred on (x, y) unless ``ha``/``va`` say otherwise.

    ``math=False`` keeps :func:`markup` from typesetting the label's letters
    as symbols (a token's characters, a letter that is data, not maths)."""
    kw.setdefault("ha", "center")
    kw.setdefault("va", "center")
    kw.setdefault("color", palette()["text"])
    artist = ax.text(x, y, label, fontsize=size, **kw)
    if not math:
        artist.set_gid(f"plain-{len(ax.texts)}")
    return artist


def box(
    ax: Axes,
    x: float,
    y: float,
    width: float,
    height: float,
    label: str = "",
    *,
    fill: str = "box",
    size: float = FONT,
    dashed: bool = False,
    rounded: bool = True,
) -> None:
    """A box with its top-left corner at (x, y), its label in the middle."""
    colours = palette()
    patch = FancyBboxPatch(
        (x, y),
        width,
        height,
        boxstyle="round,pad=0,rounding_size=5" if rounded else "square,pad=0",
        facecolor=colours.get(fill, fill),
        edgecolor=colours["line"],
        linewidth=1.0,
        linestyle=(0, (4, 3)) if dashed else "solid",
    )
    ax.add_patch(patch)
    if label:
        text(ax, x + width / 2, y + height / 2 + script_shift(label), label, size=size)


def cells(
    ax: Axes,
    corners: Sequence[tuple[float, float]],
    side: float,
    colours: Sequence,
) -> None:
    """Square cells of side ``side`` with their top-left corners at
    ``corners``, filled with ``colours`` and no border: a heat map's cells,
    drawn as one collection (one artist, not one patch per cell: a figure of
    a dozen maps has a thousand cells, and matplotlib adds and draws a
    collection in a fraction of the time)."""
    squares = [Rectangle(corner, side, side) for corner in corners]
    collection = PatchCollection(
        squares, facecolors=list(colours), edgecolors="none", linewidths=0
    )
    ax.add_collection(collection, autolim=False)


def script_shift(label: str) -> float:
    """How far to move a label centred in a box so that its sub- or
    superscripts (drawn below or above its line by ``markup``, after
    matplotlib has centred the plain text) stay clear of the box's edges:
    up for subscripts, down for superscripts, neither for both."""
    sub, sup = "_{" in label, "^{" in label
    return 2.5 * (sup - sub)


def plus(ax: Axes, x: float, y: float) -> None:
    """A residual sum: a "+" in a circle of radius 10 centred at (x, y)."""
    colours = palette()
    ax.add_patch(
        Circle(
            (x, y),
            10,
            facecolor=colours["box"],
            edgecolor=colours["line"],
            linewidth=1.0,
        )
    )
    text(ax, x, y, "+", size=15)


def arrow(
    ax: Axes,
    start: tuple[float, float],
    end: tuple[float, float],
    *,
    colour: str | None = None,
    style: str = "-|>",
    dashed: bool = False,
) -> None:
    """An arrow from ``start`` to ``end``."""
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle=style,
            mutation_scale=12,
            color=colour or palette()["line"],
            linewidth=1.2,
            linestyle=(0, (4, 3)) if dashed else "solid",
            shrinkA=0,
            shrinkB=0,
        )
    )


def label_gap(label: str) -> float:
    """How far above a grid its column label sits: a subscript hangs below
    the baseline (``markup``), so a label with one is lifted clear of the
    grid's top border."""
    return 9.0 if "_{" in label else 4.0


def matrix(
    ax: Axes,
    x: float,
    y: float,
    rows: int,
    cols: int,
    *,
    cell: float = 12.0,
    name: str = "",
    fill: str = "box",
    row_label: str | None = None,
    col_label: str | None = None,
    values: Sequence[Sequence[str]] | None = None,
    highlight_rows: Sequence[int] = (),
    highlight_cols: Sequence[int] = (),
    accent: str = "",
    col_fills: Sequence[str] | None = None,
    size: float = MATH,
) -> tuple[float, float]:
    """A ``rows`` × ``cols`` grid with its top-left corner at (x, y).

    ``name`` is written in the middle (unless ``values`` fill the cells),
    ``row_label`` left of the grid (its number of rows) and ``col_label``
    above it (its number of columns); ``accent`` ("row", "col" or both) draws
    those labels in the accent colour, for dimensions that must agree;
    ``col_fills`` gives each column its own fill (the heads' blocks).
    Returns the grid's width and height.
    """
    colours = palette()
    width, height = cols * cell, rows * cell
    for i in range(rows):
        for j in range(cols):
            lit = i in highlight_rows or j in highlight_cols
            base = colours[col_fills[j]] if col_fills else colours[fill]
            ax.add_patch(
                Rectangle(
                    (x + j * cell, y + i * cell),
                    cell,
                    cell,
                    facecolor=colours["highlight"] if lit else base,
                    edgecolor=colours["line"],
                    linewidth=0.5,
                )
            )
    ax.add_patch(
        Rectangle(
            (x, y), width, height, fill=False, edgecolor=colours["line"], linewidth=1.2
        )
    )
    if values is not None:
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                text(ax, x + (j + 0.5) * cell, y + (i + 0.5) * cell, value, size=FONT)
    elif name:
        text(ax, x + width / 2, y + height / 2, name, size=size)
    if row_label:
        style = (
            {"color": colours["accent"], "fontweight": "bold"}
            if "row" in accent
            else {}
        )
        text(ax, x - 4, y + height / 2, row_label, ha="right", **style)
    if col_label:
        style = (
            {"color": colours["accent"], "fontweight": "bold"}
            if "col" in accent
            else {}
        )
        text(
            ax, x + width / 2, y - label_gap(col_label), col_label, va="bottom", **style
        )
    return width, height


#: A bold symbol, as the text's TeX writes it: ``\mathbf{q}``, ``\boldsymbol{τ}``.
_BOLD = re.compile(r"\\(mathbf|boldsymbol)\{([^{}]*)\}")
#: What a script may hold: characters, and bold symbols (``E_{\boldsymbol{τ}}``).
_SCRIPT_BODY = r"(?:[^{}\\]|\\(?:mathbf|boldsymbol)\{[^{}]*\})*"
_MARK = re.compile(r"([_^])\{(" + _SCRIPT_BODY + r")\}")
_TEXT = re.compile(
    r'(?P<plain><g id="plain-\d+">\s*)?'
    r'(<text style="(?P<style>[^"]*)"(?P<attrs>[^>]*)>)(?P<body>[^<]*)(</text>)'
)
_SIZE = re.compile(r"font-size: ([\d.]+)px")

#: The face of a figure's symbols: a serif close to KaTeX's (Computer Modern)
#: where the reader has one, any serif otherwise (the SVG is an image: it
#: cannot use the page's web fonts).
MATH_FAMILIES = (
    "'KaTeX_Main', 'Latin Modern Roman', 'CMU Serif', 'STIX Two Text', "
    "'Cambria', 'Times New Roman', 'Noto Serif', 'DejaVu Serif', serif"
)
#: Words set upright inside a formula: functions and the words of a
#: subscript (d_{model}, n_{vocab}), as ``\operatorname`` / ``\text`` set them.
_WORD = r"MultiHead|[a-z]{2,}"
#: One atom of a label: a script, a symbol (one Latin letter alone, not
#: after a hyphen as in a name like DeepSeek-V3; a gradient dQ; or a few
#: before a script: dW_{Q}, QK^{⊤}, XW_{Q}), a function or word before "(",
#: maths that is no letter (digits, operators, a thin space between two
#: letters multiplied, as 4n d^{2}; Greek capitals, a capital's
#: index word E[ids], as the text's E[\mathrm{ids}]), or other text.
_ATOM = re.compile(
    r"(?P<script>[_^]\{" + _SCRIPT_BODY + r"\})"
    r"|(?P<bold>\\(?:mathbf|boldsymbol)\{[^{}]*\})"
    r"|(?P<symbol>(?<![A-Za-z.\-])(?:[A-Za-z]|[a-z]?[A-Z]{1,2}(?=[_^]\{)|d[A-Z]|[α-ωℓÕ])"
    r"(?![A-Za-z.]|(?<=[a-z])\[)|[Σ∑](?=[_^]\{))"
    r"|(?P<function>(?<![A-Za-z.])(?:softmax|exp|concat|max|log|sin|cos|rowsum|MultiHead)(?=[(_]))"
    r"|(?P<neutral>[0-9.,=+−\-·×/√()⊤′'⊙∞|‖ \u2009]+|[Α-Ω]|(?<=[A-Z])\[[a-z]+\])"
    r"|(?P<other>.)",
    re.DOTALL,
)


def _math_body(piece: str) -> str:
    r"""A piece of a formula as SVG: Latin and Greek lowercase letters italic,
    words, digits and operators upright (KaTeX's defaults); ``\mathbf{q}``
    bold upright and ``\boldsymbol{τ}`` bold italic (KaTeX's ``\mathbf`` and
    ``\boldsymbol``)."""
    out, last = [], 0
    for bold in _BOLD.finditer(piece):
        out.append(_math_words(piece[last : bold.start()]))
        out.append(_bold(bold))
        last = bold.end()
    out.append(_math_words(piece[last:]))
    return "".join(out)


def _bold(match: re.Match) -> str:
    r"""``\mathbf{...}`` or ``\boldsymbol{...}`` as a bold ``<tspan>``."""
    if match[1] == "mathbf":
        return f'<tspan font-weight="bold">{html.escape(match[2], quote=False)}</tspan>'
    return f'<tspan font-weight="bold">{_italic(match[2])}</tspan>'


def _plain_body(piece: str) -> str:
    """A piece of text that is not maths, as SVG (a bold symbol still bold)."""
    out, last = [], 0
    for bold in _BOLD.finditer(piece):
        out.append(html.escape(piece[last : bold.start()], quote=False))
        out.append(_bold(bold))
        last = bold.end()
    out.append(html.escape(piece[last:], quote=False))
    return "".join(out)


def _math_words(piece: str) -> str:
    out, last = [], 0
    for word in re.finditer(_WORD, piece):
        out.append(_italic(piece[last : word.start()]))
        out.append(html.escape(word[0], quote=False))
        last = word.end()
    out.append(_italic(piece[last:]))
    return "".join(out)


def _italic(piece: str) -> str:
    return re.sub(
        r"[A-Za-zα-ωℓÕ]+",
        lambda m: f'<tspan font-style="italic">{m[0]}</tspan>',
        html.escape(piece, quote=False),
    )


def _math_spans(body: str) -> list[tuple[bool, str]]:
    """``body`` cut into (is maths, text): a formula runs from its first
    symbol to its last one, over the digits and operators between them."""
    atoms = [(m.lastgroup, m[0]) for m in _ATOM.finditer(body)]
    marks = [kind in ("symbol", "bold", "function") for kind, _ in atoms]
    # scripts and neutral atoms join the formula they touch
    inside = list(marks)
    changed = True
    while changed:
        changed = False
        for i, (kind, value) in enumerate(atoms):
            if inside[i] or kind not in ("script", "neutral"):
                continue
            left = i > 0 and inside[i - 1]
            right = i + 1 < len(atoms) and inside[i + 1]
            if kind == "script" and left:
                inside[i] = changed = True
            elif kind == "neutral" and (left or right):
                # an operator run binds; a bare space or comma ends the formula
                # unless maths follows it too
                bound = left and right if value.strip(" ,") == "" else True
                if bound or _reaches_symbol(atoms, marks, i, left):
                    inside[i] = changed = True
    spans: list[tuple[bool, str]] = []
    for flag, (_, value) in zip(inside, atoms, strict=True):
        if spans and spans[-1][0] == flag:
            spans[-1] = (flag, spans[-1][1] + value)
        else:
            spans.append((flag, value))
    # spaces at a formula's ends are the sentence's
    result: list[tuple[bool, str]] = []
    for flag, value in spans:
        if flag:
            core = value.strip(" ")
            lead = value[: len(value) - len(value.lstrip(" "))]
            tail = value[len(value.rstrip(" ")) :]
            for part in ((False, lead), (True, core), (False, tail)):
                if part[1]:
                    result.append(part)
        else:
            result.append((flag, value))
    return result


def _reaches_symbol(atoms, marks, i: int, leftward: bool) -> bool:
    """Whether a neutral run (digits, operators) next to a formula carries on
    to another symbol or ends the text: "1/√d_{k}", "= 3", "n_{q} = n_{k}"."""
    step = 1 if leftward else -1
    j = i + step
    while 0 <= j < len(atoms) and atoms[j][0] in ("neutral", "script"):
        j += step
    return not (0 <= j < len(atoms)) or marks[j]


def markup(svg: str) -> str:
    r"""``svg`` with its text typeset as the page's maths: each ``_{...}`` /
    ``^{...}`` as a sub- or superscript ``<tspan>``, and each formula of a
    label (a symbol such as ``Q``, ``x_{2}``, ``d_{model}``, ``QK^{⊤}``,
    ``1/√d_{k}``, ``softmax(S + B)``) in :data:`MATH_FAMILIES` with its
    letters italic and its words, digits and operators upright, as KaTeX
    sets them in the text; ``\mathbf{q}`` bold upright and
    ``\boldsymbol{τ}`` bold italic. A formula is never bold otherwise: in a
    label drawn bold for emphasis, its maths keeps the normal weight (KaTeX
    resets it too), so that bold means a vector there as in the text. The
    text's characters are :func:`plain`'s: the label without its marks.

    The sub- or superscript is ``SUB`` times the text's size, but never below
    the size that :data:`MIN_PX` asks of a figure :data:`MAX_WIDTH` wide.
    """

    def replace(match: re.Match) -> str:
        body = html.unescape(match["body"])
        spans = [(False, body)] if match["plain"] else _math_spans(body)
        if (
            not any(flag for flag, _ in spans)
            and not _MARK.search(body)
            and not _BOLD.search(body)
        ):
            return match[0]
        size = float(_SIZE.search(match["style"])[1])
        small = max(round(SUB * size, 2), round(MIN_PX * MAX_WIDTH / PHONE_COLUMN, 2))
        # maths is never bold for emphasis: only \mathbf and \boldsymbol are
        weight = "; font-weight: normal" if "font-weight" in match["style"] else ""
        pieces, pen = [], (0.0, 0.0)
        for is_math, value in spans:
            if not is_math:
                typeset, pen = _scripts(value, small, size, pen, _plain_body)
                pieces.append(typeset)
                continue
            typeset, pen = _scripts(value, small, size, pen, _math_body)
            pieces.append(
                f'<tspan style="font-family: {MATH_FAMILIES}{weight}">{typeset}</tspan>'
            )
        return (match["plain"] or "") + match[2] + "".join(pieces) + match[6]

    return _TEXT.sub(replace, svg)


#: The advance of one script character, in em of its size (about KaTeX's
#: italic capitals, small letters and the rest): how far a script moves back
#: to stand over or under the one before it (``d_{h}^{R}``, ``W^{UQ}_{i}``).
SCRIPT_ADVANCE = {"capital": 0.75, "other": 0.55, "narrow": 0.3}

#: How far a script's baseline moves from the text's, in em of the text's
#: size (about TeX's and KaTeX's: a subscript 0.2 em down, a superscript
#: 0.38 em up). An explicit ``dy``, not ``baseline-shift``: Chromium and
#: some viewers set ``baseline-shift="sub"`` far lower, onto the frame of
#: the matrix under a label.
SCRIPT_SHIFT = {"_": 0.2, "^": -0.38}
#: The same for a sub- and a superscript stacked (``d_{h}^{R}``): set
#: further apart, as TeX does, so that they do not touch.
STACKED_SHIFT = {"_": 0.28, "^": -0.44}


def _advance(script: str, small: float) -> float:
    """About how wide ``script`` is set ``small`` px (:data:`SCRIPT_ADVANCE`)."""
    kinds = [
        "capital" if c.isupper() else "other" if c.isalnum() else "narrow"
        for c in plain(script)
    ]
    return sum(SCRIPT_ADVANCE[kind] for kind in kinds) * small


def _shifted(typeset: str, dy: float, dx: float = 0.0) -> str:
    """``typeset`` moved ``dy`` down (and ``dx`` right) from where the text
    before it left off (``dy`` moves the text's pen, so it stays moved for
    what follows)."""
    if not typeset or (abs(dy) < 1e-9 and abs(dx) < 1e-9):
        return typeset
    right = f' dx="{round(dx, 2):g}"' if abs(dx) >= 1e-9 else ""
    return f'<tspan dy="{round(dy, 2):g}"{right}>{typeset}</tspan>'


def _scripts(
    body: str, small: float, size: float, pen: tuple[float, float], render
) -> tuple[str, tuple[float, float]]:
    """``body`` with its ``_{...}`` and ``^{...}`` set as scripts ``small``
    px in a text ``size`` px, and where it leaves the pen: how far (px) off
    the text's baseline, down, and how far the text after it must move
    right to clear the longer of two stacked scripts. ``pen`` is where the
    text before left it: the first text of ``body`` that is not a script
    moves back onto the baseline and past the scripts."""
    raised, ahead = pen
    pieces, last, previous = [], 0, None
    marks = list(_MARK.finditer(body))
    in_pair = {
        k
        for k, (one, two) in enumerate(itertools.pairwise(marks))
        if one.end() == two.start() and one[1] != two[1]
        for k in (k, k + 1)
    }
    for index, mark in enumerate(marks):
        before = render(body[last : mark.start()])
        if before:
            pieces.append(_shifted(before, -raised, ahead))
            raised = ahead = 0.0
        shifts = STACKED_SHIFT if index in in_pair else SCRIPT_SHIFT
        shift = round(shifts[mark[1]] * size, 2)
        # a sub- and a superscript in a row (d_{h}^{R}, W^{UQ}_{i}): stacked,
        # the second moved back under (or over) the first, as TeX sets them
        stacked = (
            previous is not None
            and previous.end() == mark.start()
            and previous[1] != mark[1]
        )
        back, ahead = "", 0.0
        if stacked:
            first, second = _advance(previous[2], small), _advance(mark[2], small)
            back = f' dx="-{round(first, 2)}"'
            # and the text after them clears the longer one (and its slant)
            ahead = max(first - second + 0.1 * small, 0.0) if first > second else 0.0
        kind = "sub" if mark[1] == "_" else "super"
        pieces.append(
            f'<tspan style="font-size: {small}px" data-script="{kind}"'
            f' dy="{round(shift - raised, 2):g}"{back}>'
            f"{render(mark[2])}</tspan>"
        )
        raised = shift
        last, previous = mark.end(), mark
    after = render(body[last:])
    if after:
        pieces.append(_shifted(after, -raised, ahead))
        raised = ahead = 0.0
    return "".join(pieces), (raised, ahead)


def smallest_text_px(svg: str) -> float:
    """The smallest text of a figure's SVG, in CSS px, on a phone.

    The SVG is ``width`` pt wide (4/3 px each) and shown at most
    :data:`PHONE_COLUMN` px wide; its text sizes are in its own units.
    """
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg)[1])
    shown = min(PHONE_COLUMN, width * 4 / 3)
    sizes = [float(size) for size in re.findall(r"font-size: ?([\d.]+)px", svg)]
    return min(sizes) * shown / width


def plain(label: str) -> str:
    """``label`` as the SVG's text reads: the marks of :func:`markup` removed."""
    return _MARK.sub(r"\2", _BOLD.sub(r"\2", label))


def bool_grid(
    ax: Axes,
    x: float,
    y: float,
    mask,
    *,
    cell: float = 14.0,
    row_label: str | None = None,
    col_label: str | None = None,
    on: str = "keep",
    off: str = "mask",
) -> tuple[float, float]:
    """A boolean mask as a grid: True ("may attend") filled, False grey.

    ``on`` and ``off`` name the palette's fills of True and False cells
    (``"none"`` leaves a cell empty). Returns the grid's width and height.
    """
    colours = {**palette(), "none": "none"}
    rows, cols = len(mask), len(mask[0])
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(
                Rectangle(
                    (x + j * cell, y + i * cell),
                    cell,
                    cell,
                    facecolor=colours[on] if mask[i][j] else colours[off],
                    edgecolor=colours["line"],
                    linewidth=0.6,
                )
            )
    ax.add_patch(
        Rectangle(
            (x, y),
            cols * cell,
            rows * cell,
            fill=False,
            edgecolor=colours["line"],
            linewidth=1.2,
        )
    )
    if row_label:
        text(ax, x - 4, y + rows * cell / 2, row_label, ha="right")
    if col_label:
        text(ax, x + cols * cell / 2, y - label_gap(col_label), col_label, va="bottom")
    return cols * cell, rows * cell


def legend(ax: Axes, x: float, y: float, entries: Sequence[tuple[str, str]]) -> None:
    """Colour swatches with their words, in a row starting at (x, y)."""
    colours = palette()
    for fill, label in entries:
        ax.add_patch(
            Rectangle(
                (x, y - 6),
                12,
                12,
                facecolor=colours.get(fill, fill),
                edgecolor=colours["line"],
                linewidth=0.6,
            )
        )
        drawn = text(ax, x + 17, y, label, ha="left")
        x += 17 + 9 + FONT * _width_in_em(label)
    del drawn


def _width_in_em(label: str) -> float:
    """A label's width in em, as the page's fonts draw it (CJK 1 em, else ~0.6)."""
    plain_label = plain(label)
    wide = sum(1 for c in plain_label if ord(c) > 0x2E80)
    return wide + 0.6 * (len(plain_label) - wide)


def vector(
    ax: Axes,
    x: float,
    y: float,
    values: Sequence[str],
    *,
    width: float = 24.0,
    height: float = 20.0,
    fill: str = "box",
) -> float:
    """A row vector as a strip of cells holding ``values``; returns its width."""
    for j, value in enumerate(values):
        box(ax, x + j * width, y, width, height, value, fill=fill, rounded=False)
    return len(values) * width


def shown_value(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals; a positive value too small to show
    one is "<0.01", not a 0.00 that reads as exactly zero."""
    smallest = 10.0**-digits
    if 0 < value < smallest / 2:
        return f"<{smallest:.{digits}f}"
    return f"{value:.{digits}f}"


def bars(
    ax: Axes,
    x: float,
    baseline: float,
    values: Sequence[float],
    *,
    top: float,
    height: float,
    width: float = 22.0,
    gap: float = 6.0,
    fill: str | Sequence[str] = "a",
    digits: int = 2,
    names: Sequence[str] | None = None,
) -> float:
    """Bars standing on ``baseline``, ``height`` units tall at value ``top``,
    each value written above its bar (:func:`shown_value`) and its name (if
    any) below; ``fill`` is one fill or one per bar. Returns the width of
    the group."""
    colours = palette()
    fills = [fill] * len(values) if isinstance(fill, str) else list(fill)
    for j, value in enumerate(values):
        left = x + j * (width + gap)
        tall = height * value / top
        ax.add_patch(
            Rectangle(
                (left, baseline - tall),
                width,
                tall,
                facecolor=colours[fills[j]],
                edgecolor=colours["line"],
                linewidth=0.8,
            )
        )
        text(
            ax,
            left + width / 2,
            baseline - tall - 3,
            shown_value(value, digits),
            va="bottom",
        )
        if names is not None:
            text(ax, left + width / 2, baseline + 4, names[j], va="top")
    group = len(values) * (width + gap) - gap
    ax.plot(
        [x - 3, x + group + 3],
        [baseline, baseline],
        color=colours["line"],
        linewidth=1.0,
    )
    return group
