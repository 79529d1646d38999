r"""Plots of attention weights: bar chart, heat maps, causal mask, heads.

Requires matplotlib, an optional dependency: ``pip install attention_docs[plot]``
(the rest of the package needs numpy only and never imports this module).

Every function draws with matplotlib's object API (:class:`matplotlib.figure.Figure`,
no pyplot state, never ``plt.show()``) and returns ``(fig, ax)``; ``ax`` is an
array of Axes when the figure has several panels. Titles and axis labels are
arguments, so the caller chooses the language. The weights are those of
:mod:`attention_docs.attention`: a row of ``n_k`` weights for one query, or a
matrix ``(n_q, n_k)`` whose row ``i`` holds the weights of query ``i`` over
the keys, every entry in :math:`[0, 1]` (the book's page "Scaled dot-product
attention" (scaled-dot-product.md, section "Attention weights")).

:func:`theme` and :func:`to_svg` make the book's figures: SVG whose text stays
text, so that the browser draws Japanese and Chinese labels in the page's own
fonts, on a transparent background readable in light and dark mode.

>>> import numpy as np
>>> from attention_docs.plotting import plot_heatmap, theme, to_svg
>>> with theme("dark"):
...     fig, ax = plot_heatmap(np.eye(3), title="identity")
...     svg = to_svg(fig)
>>> print(type(fig).__name__, ax.get_title(), svg.count("<text") > 0)
Figure identity True
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import (
    FloatArray,
    as_float_array,
    check_bool,
    check_exact_ndim,
    check_positive_int,
    check_same_size,
)

try:
    import matplotlib as mpl
    from cycler import cycler
    from matplotlib.axes import Axes
    from matplotlib.colors import LinearSegmentedColormap, ListedColormap, to_rgb
    from matplotlib.figure import Figure
    from matplotlib.image import AxesImage
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import MaxNLocator
    from matplotlib.transforms import ScaledTranslation
except ModuleNotFoundError as error:  # pragma: no cover - depends on the install
    raise ModuleNotFoundError(
        "attention_docs.plotting needs matplotlib: pip install 'attention_docs[plot]'",
        name=error.name,
    ) from error

__all__ = [
    "FONT_FAMILIES",
    "MASKED_HATCH",
    "THEMES",
    "hatch_masked",
    "plot_causal_mask",
    "plot_heads",
    "plot_heatmap",
    "plot_weights_bar",
    "set_upright_ylabel",
    "theme",
    "to_svg",
    "weights_cmap",
]

#: Font stacks written into the SVG for the browser, by page language (None:
#: any page). They mirror the book's stylesheet, so a figure's labels use the
#: fonts of the text around it.
FONT_FAMILIES: dict[str | None, tuple[str, ...]] = {
    None: (
        "Hiragino Sans",
        "Noto Sans CJK JP",
        "Noto Sans CJK TC",
        "PingFang TC",
        "Microsoft JhengHei",
        "sans-serif",
    ),
    "ja": (
        "Hiragino Kaku Gothic ProN",
        "Hiragino Sans",
        "BIZ UDPGothic",
        "Yu Gothic UI",
        "Yu Gothic",
        "Meiryo",
        "Noto Sans CJK JP",
        "Noto Sans JP",
        "IPAexGothic",
        "sans-serif",
    ),
    "zh-Hant": (
        "PingFang TC",
        "Heiti TC",
        "Microsoft JhengHei UI",
        "Microsoft JhengHei",
        "Noto Sans CJK TC",
        "Noto Sans TC",
        "Source Han Sans TC",
        "sans-serif",
    ),
    "zh-Hans": (
        "PingFang SC",
        "Heiti SC",
        "Microsoft YaHei UI",
        "Microsoft YaHei",
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Source Han Sans SC",
        "sans-serif",
    ),
}

#: Colours of :func:`theme`: text and lines readable on Material's light page
#: (white, text rgba(0, 0, 0, 0.87)) and on its dark "slate" page (background
#: hsl(225, 15%, 14%)); bars and curves in the deep rose of the book's
#: figures (the far end of their weights' colour scale, the attention
#: weights' colour), lighter on the dark page; a second curve in the book's
#: orange accent (the diagrams' and the explorables' accent), after the rose
#: in the colour cycle.
THEMES: dict[str, dict[str, str]] = {
    "light": {
        "text": "#212121",
        "line": "#616161",
        "bar": "#9f1239",
        "accent": "#c2410c",
    },
    "dark": {
        "text": "#e2e4ea",
        "line": "#a3a8b8",
        "bar": "#fda4af",
        "accent": "#fdba74",
    },
}

#: The colour scale of attention weights, 0 to 1, per theme: the page at 0,
#: the book's fill of A (the diagrams' and the explorables' pink) in the
#: middle, the deep rose of :data:`THEMES` ("bar") at 1. Every heat map of
#: weights uses it, on the same 0-1 range, so that one colour means one
#: weight in every figure.
WEIGHTS_RAMP: dict[str, tuple[str, str, str]] = {
    "light": ("#ffffff", "#f8d3da", THEMES["light"]["bar"]),
    "dark": ("#1e2029", "#653b45", THEMES["dark"]["bar"]),
}

# Cell colours of a boolean mask: False (may not attend), True (may attend).
# The diagrams' colours (attention_book.diagrams.FILLS, light): a light grey
# and a dark slate, apart in lightness too for colour-blind readers, and no
# matrix's colour (Z is teal).
_MASK_COLOURS = ("#b4b4b4", "#475569")  # grey, slate
#: The stripes' colour of a masked cell (where a boolean mask is False) per
#: theme, the grey of False that the masks explorable hatches its masked cells
#: in (explorables.css, --explorable-false): a cue beyond colour that tells a
#: masked cell from a weight near 0, which the weights' colours draw in the
#: page's own colour too.
MASKED_HATCH: dict[str, str] = {"light": "#b4b4b4", "dark": "#6a6a6a"}
# What matplotlib warns when its measuring font lacks a glyph (see to_svg).
_MISSING_GLYPH = r"Glyph \d+ \(.*\) missing from font\(s\)"
_FONT_FAMILY = re.compile(r'(?P<before>style="[^"]*?)font-family:[^;"]*')
_SVG_HASH_SALT = "attention_docs"


def _as_weights(name: str, x: ArrayLike, ndim: int, layout: str) -> FloatArray:
    """``x`` as a finite float array of ``ndim`` dimensions with values in [0, 1]."""
    array = as_float_array(name, x)
    check_exact_ndim(name, array, ndim, layout)
    if array.size == 0:
        raise ValueError(f"`{name}` is empty: shape {array.shape}")
    low, high = float(array.min()), float(array.max())
    if low < 0.0 or high > 1.0:
        raise ValueError(
            f"`{name}` must hold attention weights in [0, 1], got values from "
            f"{low} to {high}"
        )
    return array


def _check_count(
    name: str, items: Sequence[Any] | None, n: int, what: str
) -> list[Any] | None:
    """``items`` as a list; ValueError unless it is None or a sequence of ``n``.

    A value that is no sequence at all (a number, None inside a pair) is a
    wrong count too: ValueError, as the docstrings say, never the TypeError
    of ``len()``.
    """
    if items is None:
        return None
    try:
        items = list(items)
    except TypeError:  # not iterable: no entries to count
        raise ValueError(
            f"`{name}` must be a sequence of {n} entries ({what}), got "
            f"{type(items).__name__}"
        ) from None
    if len(items) != n:
        raise ValueError(f"`{name}` has {len(items)} entries but there are {n} {what}")
    return items


def _figure_and_axes(ax: Axes | None, figsize: tuple[float, float]):
    """A new constrained-layout figure with one Axes, or ``ax`` and its figure."""
    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.subplots()
    if not isinstance(ax, Axes):
        raise TypeError(f"`ax` must be a matplotlib Axes, got {type(ax).__name__}")
    fig = ax.figure
    while not isinstance(fig, Figure):  # an Axes of a SubFigure
        fig = fig.figure
    return fig, ax


def set_upright_ylabel(
    ax: Axes, ylabel: str, *, y: float = 1.0, lift: float = 0.5
) -> Any:
    r"""Write the y axis label horizontally, above the top of the axis.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The Axes whose y axis is labelled.
    ylabel : str
        The label, in the reader's language.
    y : float, optional
        Height of the label's baseline corner in axes coordinates: 0 at the
        bottom of the axis, 1 (default) at its top.
    lift : float, optional
        How far to raise the label above ``y``, in lines of its own font
        size; default half a line, which keeps it clear of a tick label at
        the top of the axis. Must be finite and not negative.

    Returns
    -------
    matplotlib.text.Text
        The label: unrotated, its lower left corner at the left edge of the
        y axis' label area, ``y`` up the axis and ``lift`` lines higher.

    Raises
    ------
    TypeError
        If ``ax`` is not a matplotlib Axes.
    ValueError
        If ``y`` is not finite, or ``lift`` is negative or not finite.

    Notes
    -----
    Japanese and Chinese read upright: a label turned by 90 degrees, as
    matplotlib draws a y label by default, makes the reader tilt their head.
    Every figure of the book with a y label sets it this way, the plots of
    this module and the scripts that draw with Axes of their own alike.

    Examples
    --------
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> label = set_upright_ylabel(ax, "weight")
    >>> label.get_text(), label.get_rotation(), label.get_ha(), label.get_va()
    ('weight', 0.0, 'left', 'bottom')
    >>> print(ax.yaxis.label is label)
    True
    """
    if not isinstance(ax, Axes):
        raise TypeError(f"`ax` must be a matplotlib Axes, got {type(ax).__name__}")
    if not math.isfinite(y):
        raise ValueError(f"`y` must be finite, got {y}")
    if not math.isfinite(lift) or lift < 0:
        raise ValueError(f"`lift` must be finite and not negative, got {lift}")
    label = ax.set_ylabel(ylabel, rotation=0, y=y, ha="left", va="bottom")
    if lift:
        up = ScaledTranslation(
            0.0, lift * label.get_size() / 72, ax.figure.dpi_scale_trans
        )
        label.set_transform(label.get_transform() + up)
    return label


def _set_labels(
    ax: Axes,
    title: str | None,
    xlabel: str | None,
    ylabel: str | None,
    *,
    room: bool | None = None,
) -> None:
    """Title and axis labels; the y label written horizontally above the top
    of the y axis, so that Japanese and Chinese read upright, and the title
    raised above it. ``room``: raise the title as if there were a y label
    (the panels of one row keep their titles level); default: if there is."""
    label = None if ylabel is None else set_upright_ylabel(ax, ylabel)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if title is not None:
        pad = mpl.rcParams["axes.titlepad"]
        if label is not None or room:
            size = mpl.rcParams["font.size"] if label is None else label.get_size()
            pad += 1.9 * size
        ax.set_title(title, pad=pad)


def _integer_ticks(ax: Axes, n_q: int, n_k: int) -> None:
    """Tick every row and column index (0-based) of a small matrix."""
    for axis, n in ((ax.xaxis, n_k), (ax.yaxis, n_q)):
        if n <= 16:
            axis.set_ticks(range(n))
        else:
            axis.set_major_locator(MaxNLocator(integer=True))


def hatch_masked(
    ax: Axes,
    mask: ArrayLike,
    *,
    origin: tuple[float, float] = (-0.5, -0.5),
    cell: float = 1.0,
) -> list[Any]:
    r"""Hatch the cells of a matrix drawing where a boolean mask is False.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The Axes that draws the matrix.
    mask : array_like of bool, shape (n_q, n_k)
        True where query ``i`` may attend to key ``j`` (e.g.
        :func:`~attention_docs.masks.causal_mask`); the False cells are hatched.
    origin : pair of float, optional
        The corner of cell (0, 0) in data coordinates; default (-0.5, -0.5),
        the corner of an image drawn by ``imshow`` (as :func:`plot_heads` does).
    cell : float, optional
        The side of one cell in data coordinates; default 1.

    Returns
    -------
    list of matplotlib.patches.Rectangle
        One patch per False cell, in row-major order: no fill, no border,
        diagonal stripes in the :data:`MASKED_HATCH` colour of the
        :func:`theme` in use (light outside any).

    Raises
    ------
    ValueError
        If ``mask`` is not 2-D, or ``cell`` is not positive and finite.
    TypeError
        If ``mask`` is not boolean, or ``ax`` is not an Axes.

    Notes
    -----
    A masked weight is exactly 0 and a weight far from the query's largest is
    near 0: the weights' colours draw both in nearly the page's colour. The
    stripes say which cells the mask took away, in both themes and for a
    reader who does not see colours; the masks explorable hatches its masked
    cells the same way.

    Examples
    --------
    >>> from attention_docs import causal_mask
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> patches = hatch_masked(ax, causal_mask(3))
    >>> [(float(p.get_x()), float(p.get_y())) for p in patches]
    [(0.5, -0.5), (1.5, -0.5), (1.5, 0.5)]
    >>> patches[0].get_hatch(), patches[0].get_fill()
    ('//', False)
    """
    if not isinstance(ax, Axes):
        raise TypeError(f"`ax` must be a matplotlib Axes, got {type(ax).__name__}")
    m = check_bool("mask", mask)
    check_exact_ndim("mask", m, 2, "(n_q, n_k)")
    if not (math.isfinite(cell) and cell > 0):
        raise ValueError(f"`cell` must be positive and finite, got {cell}")
    name = "dark" if mpl.rcParams["text.color"] == THEMES["dark"]["text"] else "light"
    x0, y0 = origin
    patches = []
    for i, j in zip(*np.nonzero(~m), strict=True):
        patch = Rectangle(
            (x0 + j * cell, y0 + i * cell),
            cell,
            cell,
            fill=False,
            hatch="//",
            edgecolor=MASKED_HATCH[name],
            linewidth=0.0,
        )
        ax.add_patch(patch)
        patches.append(patch)
    return patches


def weights_cmap() -> LinearSegmentedColormap:
    """The colour scale of attention weights in [0, 1] (:data:`WEIGHTS_RAMP`)
    of the :func:`theme` in use (light outside any)."""
    name = "dark" if mpl.rcParams["text.color"] == THEMES["dark"]["text"] else "light"
    return LinearSegmentedColormap.from_list("weights", list(WEIGHTS_RAMP[name]))


def _text_colour_on(rgb: Sequence[float]) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgb``."""
    luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    return "#000000" if luminance > 0.45 else "#ffffff"


def _annotate_cells(ax: Axes, image: AxesImage, labels: NDArray[np.str_]) -> None:
    """Write ``labels[i, j]`` in the middle of cell (i, j) of ``image``."""
    data = np.asarray(image.get_array())
    size = mpl.rcParams["font.size"]  # as large as the labels: read on a phone
    for (i, j), label in np.ndenumerate(labels):
        colour = _text_colour_on(to_rgb(image.cmap(image.norm(data[i, j]))))
        ax.text(j, i, label, ha="center", va="center", color=colour, fontsize=size)


def _heat_image(ax: Axes, weights: FloatArray) -> AxesImage:
    """``weights`` (n_q, n_k) as an image: row i = query i, column j = key j,
    in the weights' colours from 0 to 1."""
    image = ax.imshow(
        weights, cmap=weights_cmap(), vmin=0.0, vmax=1.0, interpolation="nearest"
    )
    _integer_ticks(ax, *weights.shape)
    return image


def plot_weights_bar(
    weights: ArrayLike,
    *,
    labels: Sequence[str] | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    ax: Axes | None = None,
) -> tuple[Figure, Axes]:
    r"""Bar chart of one query's attention weights, one bar per key.

    Parameters
    ----------
    weights : array_like, shape (n_k,)
        The weights :math:`w_j` of one query over ``n_k`` keys, each in
        :math:`[0, 1]` (e.g. those of
        :meth:`~attention_docs.qkv.Query.compute_attention_weights`).
    labels : sequence of str, optional
        One tick label per key; default ``"0"``, ``"1"``, ...
    title, xlabel, ylabel : str, optional
        Title and axis labels, in the reader's language. Default: none.
    ax : matplotlib.axes.Axes, optional
        Draw into this Axes; default: a new 4.8 x 3.4 inch figure.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure (the one of ``ax`` if given).
    ax : matplotlib.axes.Axes
        The Axes: bar ``j`` has height ``weights[j]``, its value written above
        it with two decimals; the y axis runs from 0 to 1.

    Raises
    ------
    ValueError
        If ``weights`` is not 1-D, is empty, contains NaN or infinite values or
        values outside [0, 1]; if ``labels`` does not have ``n_k`` entries.
    TypeError
        If ``weights`` does not hold real numbers, or ``ax`` is not an Axes.

    Notes
    -----
    A fixed y range of 0 to 1 shows the weights as shares of a whole: they sum
    to 1 (Vaswani et al., 2017, Section 3.2.1, softmax over the keys). The
    book's page "Attention through objects"
    (object-view.md, section "Example: three keys and one query") shows this
    chart for the weights of one query over three keys.

    Examples
    --------
    >>> fig, ax = plot_weights_bar([0.2, 0.5, 0.3], labels=["a", "b", "c"],
    ...                            title="weights")
    >>> [float(bar.get_height()) for bar in ax.patches]
    [0.2, 0.5, 0.3]
    >>> [float(y) for y in ax.get_ylim()], [t.get_text() for t in ax.get_xticklabels()]
    ([0.0, 1.0], ['a', 'b', 'c'])
    """
    w = _as_weights("weights", weights, 1, "(n_k,)")
    n_k = w.shape[0]
    labels = _check_count("labels", labels, n_k, f"weights: shape {w.shape}")
    fig, ax = _figure_and_axes(ax, (4.8, 3.4))
    ticks = [str(j) for j in range(n_k)] if labels is None else labels
    bars = ax.bar(np.arange(n_k), w, tick_label=ticks)  # colour: axes.prop_cycle
    ax.bar_label(bars, labels=[f"{value:.2f}" for value in w], padding=3)
    ax.set_ylim(0.0, 1.0)
    _set_labels(ax, title, xlabel, ylabel)
    return fig, ax


def plot_heatmap(
    weights: ArrayLike,
    *,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    ax: Axes | None = None,
    colorbar: bool = True,
    annotate: bool = False,
) -> tuple[Figure, Axes]:
    r"""Heat map of an attention-weight matrix: one row per query.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
        ``weights[i, j]`` is the weight of query ``i`` on key ``j``, in
        :math:`[0, 1]`.
    title, xlabel, ylabel : str, optional
        Title and axis labels (keys along x, queries along y). Default: none.
    ax : matplotlib.axes.Axes, optional
        Draw into this Axes; default: a new 4.8 x 4 inch figure.
    colorbar : bool, optional
        Add a colour bar (default True).
    annotate : bool, optional
        Write each weight, with two decimals, in its cell (default False).

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure.
    ax : matplotlib.axes.Axes
        The Axes; its image (``ax.images[0]``) holds ``weights``, coloured
        with :func:`weights_cmap` from 0 (``vmin``) to 1 (``vmax``), with
        a tick at every row and column index (0-based) up to 16 of them.

    Raises
    ------
    ValueError
        If ``weights`` is not 2-D, is empty, contains NaN or infinite values or
        values outside [0, 1].
    TypeError
        If ``weights`` does not hold real numbers, or ``ax`` is not an Axes.

    Notes
    -----
    Starting the colour scale at 0 rather than at the smallest weight keeps the
    colours comparable between matrices: a weight of 0 (a masked key) is always
    the darkest colour. The book's page "Self-attention" (self-attention.md,
    section "From scratch") shows the weights of its five-token example this
    way.

    Examples
    --------
    >>> fig, ax = plot_heatmap(np.eye(3), title="identity", annotate=True)
    >>> print(type(fig).__name__, ax.get_title())
    Figure identity
    >>> ax.images[0].get_array().shape, ax.images[0].get_clim()
    ((3, 3), (0.0, 1.0))
    >>> [t.get_text() for t in ax.texts][:3]
    ['1.00', '0.00', '0.00']
    """
    w = _as_weights("weights", weights, 2, "(n_q, n_k)")
    fig, ax = _figure_and_axes(ax, (4.8, 4.0))
    image = _heat_image(ax, w)
    if colorbar:
        fig.colorbar(image, ax=ax)
    if annotate:
        _annotate_cells(ax, image, np.vectorize("{:.2f}".format)(w))
    _set_labels(ax, title, xlabel, ylabel)
    return fig, ax


def plot_causal_mask(
    mask: ArrayLike,
    weights: ArrayLike,
    *,
    titles: tuple[str | None, str | None] = (None, None),
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> tuple[Figure, NDArray[np.object_]]:
    r"""A boolean mask beside the attention weights computed with it.

    Parameters
    ----------
    mask : array_like of bool, shape (n_q, n_k)
        True where query ``i`` may attend to key ``j`` (e.g.
        :func:`~attention_docs.masks.causal_mask`).
    weights : array_like, shape (n_q, n_k)
        The weights computed with ``mask`` (e.g.
        :func:`~attention_docs.attention.attention_weights` with
        ``mask=mask``): 0 wherever ``mask`` is False.
    titles : pair of str or None, optional
        Titles of the mask panel and of the weights panel. Default: none.
    xlabel, ylabel : str, optional
        Axis labels: keys along x, queries along y (both panels).

    Returns
    -------
    fig : matplotlib.figure.Figure
        A new 4.8 x 7 inch figure, one panel above the other (narrow
        enough to be read on a phone).
    ax : ndarray of matplotlib.axes.Axes, shape (2,)
        Top: the mask, each cell coloured and labelled ``True`` or ``False``.
        Bottom: the weights as in :func:`plot_heatmap`, every cell annotated,
        so the zeros where the mask is False are visible.

    Raises
    ------
    ValueError
        If ``mask`` or ``weights`` is not 2-D; if their shapes differ (the
        message gives both); if ``weights`` is empty, contains NaN or infinite
        values or values outside [0, 1], or is not 0 where ``mask`` is False
        (it was not computed with this mask); if ``titles`` is not a pair.
    TypeError
        If ``mask`` is not boolean, or ``weights`` does not hold real numbers.

    Notes
    -----
    A masked score becomes :math:`-\infty` before the softmax, so its weight is
    exactly :math:`e^{-\infty} = 0` (Vaswani et al., 2017, Section 3.2.3 and the
    "Mask (opt.)" box of Figure 2). With the causal mask the zeros fill the
    triangle above the diagonal: query ``i`` sees keys ``0..i`` only. The
    book's page "Masks" (masks.md, section "Causal mask") shows this figure.

    Examples
    --------
    >>> from attention_docs import attention_weights, causal_mask
    >>> mask = causal_mask(3)
    >>> w = attention_weights(np.ones((3, 2)), np.ones((3, 2)), mask=mask)
    >>> fig, ax = plot_causal_mask(mask, w, titles=("mask", "weights"))
    >>> ax.shape, [a.get_title() for a in ax]
    ((2,), ['mask', 'weights'])
    >>> [t.get_text() for t in ax[0].texts][:3]
    ['True', 'False', 'False']
    >>> print(ax[1].images[0].get_array()[0].tolist())
    [1.0, 0.0, 0.0]
    """
    m = check_bool("mask", mask)
    check_exact_ndim("mask", m, 2, "(n_q, n_k)")
    w = _as_weights("weights", weights, 2, "(n_q, n_k)")
    check_same_size("n_q", ("mask", m, 0), ("weights", w, 0))
    check_same_size("n_k", ("mask", m, 1), ("weights", w, 1))
    if np.any(w[~m] != 0.0):
        raise ValueError("`weights` must be 0 wherever `mask` is False")
    titles = _check_count("titles", titles, 2, "panels: `titles` must be a pair")
    titles = [None, None] if titles is None else titles  # None: no titles
    fig = Figure(figsize=(4.8, 7.0), layout="constrained")
    axes = fig.subplots(2, 1)
    mask_image = axes[0].imshow(
        m.astype(np.int8),  # False -> 0, True -> 1
        cmap=ListedColormap(_MASK_COLOURS),
        vmin=0,
        vmax=1,
        interpolation="nearest",
    )
    _integer_ticks(axes[0], *m.shape)
    _annotate_cells(axes[0], mask_image, np.where(m, "True", "False"))
    image = _heat_image(axes[1], w)
    _annotate_cells(axes[1], image, np.vectorize("{:.2f}".format)(w))
    fig.colorbar(image, ax=axes[1])
    for ax, title in zip(axes, titles, strict=True):
        _set_labels(ax, title, xlabel, ylabel)
    return fig, axes


def plot_heads(
    weights: ArrayLike,
    *,
    titles: Sequence[str] | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    ncols: int | None = None,
    mask: ArrayLike | None = None,
) -> tuple[Figure, NDArray[np.object_]]:
    r"""One heat map per head, on one shared colour scale.

    Parameters
    ----------
    weights : array_like, shape (h, n_q, n_k)
        Attention weights of ``h`` heads (e.g. the second result of
        :class:`~attention_docs.multihead.MultiHeadAttention`), in
        :math:`[0, 1]`.
    titles : sequence of str, optional
        One title per head. Default: none.
    xlabel, ylabel : str, optional
        Axis labels: keys along x (bottom row), queries along y (left column).
    ncols : int, optional
        Panels per row; default ``min(h, 4)``.
    mask : array_like of bool, shape (n_q, n_k), optional
        The mask the weights were computed with (the same for every head);
        its False cells are hatched (:func:`hatch_masked`), and their weights
        must be 0. Default: none.

    Returns
    -------
    fig : matplotlib.figure.Figure
        A new figure with one colour bar for all heads.
    ax : ndarray of matplotlib.axes.Axes, shape (h,)
        ``ax[i]`` shows ``weights[i]``; every image has the same colour
        scale, :func:`weights_cmap` from 0 (``vmin``) to 1 (``vmax``).

    Raises
    ------
    ValueError
        If ``weights`` is not 3-D, is empty, contains NaN or infinite values or
        values outside [0, 1]; if ``titles`` does not have ``h`` entries; if
        ``ncols`` is not a positive integer; if ``mask`` is not
        (n_q, n_k), or ``weights`` is not 0 wherever it is False.
    TypeError
        If ``weights`` does not hold real numbers, or ``mask`` is not boolean.

    Notes
    -----
    Each head computes its own
    :math:`\operatorname{softmax}(Q W^Q_i (K W^K_i)^\top / \sqrt{d_k})`
    (Vaswani et al., 2017, Section 3.2.2): the heads look at the same tokens
    through different projections, so their weight matrices differ. One colour
    scale for all heads makes their colours comparable. The book's page
    "Multi-head attention" (multi-head.md) shows four heads this way.

    Examples
    --------
    >>> from attention_docs import MultiHeadAttention
    >>> rng = np.random.default_rng(0)
    >>> mha = MultiHeadAttention(d_model=8, h=4, rng=rng)
    >>> _, weights = mha(rng.standard_normal((5, 8)))  # (h, n_q, n_k)
    >>> fig, ax = plot_heads(weights, titles=["1", "2", "3", "4"])
    >>> weights.shape, ax.shape
    ((4, 5, 5), (4,))
    >>> len({a.images[0].get_clim() for a in ax})  # one shared colour scale
    1
    """
    w = _as_weights("weights", weights, 3, "(h, n_q, n_k)")
    h = w.shape[0]
    titles = _check_count("titles", titles, h, f"heads: `weights` has shape {w.shape}")
    ncols = min(h, 4) if ncols is None else check_positive_int("ncols", ncols)
    if mask is not None:
        mask = check_bool("mask", mask)
        check_exact_ndim("mask", mask, 2, "(n_q, n_k)")
        check_same_size("n_q", ("mask", mask, 0), ("weights", w, 1))
        check_same_size("n_k", ("mask", mask, 1), ("weights", w, 2))
        if np.any(w[:, ~mask] != 0.0):
            raise ValueError("`weights` must be 0 wherever `mask` is False")
    ncols = min(ncols, h)
    nrows = math.ceil(h / ncols)
    fig = Figure(figsize=(1.9 * ncols + 1.0, 1.9 * nrows + 0.6), layout="constrained")
    grid = fig.subplots(nrows, ncols, squeeze=False)
    axes = grid.ravel()[:h]
    for extra in grid.ravel()[h:]:
        extra.remove()
    for i, ax in enumerate(axes):
        image = _heat_image(ax, w[i])
        if mask is not None:
            hatch_masked(ax, mask)
        bottom_of_column = i + ncols >= h
        _set_labels(
            ax,
            None if titles is None else titles[i],
            xlabel if bottom_of_column else None,
            ylabel if i % ncols == 0 else None,
            room=ylabel is not None,
        )
    fig.colorbar(image, ax=list(axes), shrink=0.8)
    return fig, np.asarray(axes, dtype=object)


@contextlib.contextmanager
def theme(name: Literal["light", "dark"]) -> Iterator[None]:
    """Colours for a figure shown on the book's light or dark page.

    Parameters
    ----------
    name : {"light", "dark"}
        "light" for Material's white page, "dark" for its "slate" page.

    Yields
    ------
    None
        Inside the ``with`` block, matplotlib's rcParams give a transparent
        background and text, axes and tick colours of :data:`THEMES`. Create
        the figure *and* call :func:`to_svg` inside the block: artists take
        their colours when they are created.

    Raises
    ------
    ValueError
        If ``name`` is neither "light" nor "dark".

    Notes
    -----
    Material for MkDocs shows an image whose address ends in ``#only-light``
    in the light scheme and one ending in ``#only-dark`` in the dark scheme;
    the book renders each figure once per theme. The heat maps' colours
    (:func:`weights_cmap`) run from the page's own colour at 0 to a deep rose
    (light) or a light pink (dark) at 1.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> with theme("dark"):
    ...     print(mpl.rcParams["text.color"], mpl.rcParams["figure.facecolor"])
    #e2e4ea none
    """
    if not isinstance(name, str) or name not in THEMES:
        raise ValueError(f"`name` must be 'light' or 'dark', got {name!r}")
    colours = THEMES[name]
    rc = {
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.transparent": True,
        "text.color": colours["text"],
        "axes.labelcolor": colours["text"],
        "axes.titlecolor": colours["text"],
        "axes.edgecolor": colours["line"],
        "xtick.color": colours["line"],
        "ytick.color": colours["line"],
        "xtick.labelcolor": colours["text"],
        "ytick.labelcolor": colours["text"],
        "axes.prop_cycle": cycler(color=[colours["bar"], colours["accent"]]),
        "font.size": 11.0,
    }
    with mpl.rc_context(rc):
        yield


def to_svg(fig: Figure, *, language: str | None = None) -> str:
    r"""The figure as a self-contained, deterministic SVG whose text is text.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write.
    language : {None, "ja", "zh-Hant", "zh-Hans"}, optional
        Language of the page that shows the figure: chooses the font stack of
        :data:`FONT_FAMILIES` and is written as ``xml:lang`` on the ``<svg>``.

    Returns
    -------
    str
        The SVG document: every label a ``<text>`` element (``svg.fonttype``
        "none") whose ``font-family`` is the language's font stack; images
        inline; no date, no creator, no reference to another file or host
        (the only URLs are the SVG and XLink namespaces and the SVG 1.1 DTD);
        identical for identical figures (fixed ``svg.hashsalt``).

    Raises
    ------
    ValueError
        If ``language`` is not a key of :data:`FONT_FAMILIES`.
    TypeError
        If ``fig`` is not a matplotlib Figure.

    Notes
    -----
    With text kept as text, the reader's browser draws the glyphs, with the
    page's fonts, in the page's language; matplotlib only measures the text to
    lay the figure out. It measures with its own font (DejaVu Sans by default,
    shipped with matplotlib, so every machine lays a figure out the same way).
    DejaVu Sans has no kana or Han characters: matplotlib measures each one
    with the font's .notdef box, 1.15 em wide, wider than the 1 em of a CJK
    glyph, so the space it leaves is enough, and warns "Glyph ... missing from
    font(s)". That warning concerns glyphs matplotlib would draw; here it
    draws none, so :func:`to_svg` ignores exactly that warning while it writes
    the SVG. Drawing the same figure any other way (PNG, a notebook) still
    warns.

    Examples
    --------
    >>> fig, ax = plot_weights_bar([0.25, 0.75], title="重み")
    >>> svg = to_svg(fig, language="ja")
    >>> svg.startswith("<?xml"), ">重み</text>" in svg
    (True, True)
    >>> svg == to_svg(fig, language="ja")  # deterministic
    True
    >>> "'Hiragino Sans'" in svg, 'xml:lang="ja"' in svg
    (True, True)
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"`fig` must be a matplotlib Figure, got {type(fig).__name__}")
    if not (language is None or isinstance(language, str)) or (
        language not in FONT_FAMILIES
    ):
        raise ValueError(
            f"`language` must be one of {sorted(map(str, FONT_FAMILIES))}, "
            f"got {language!r}"
        )
    families = ", ".join(
        name if name == "sans-serif" else f"'{name}'"
        for name in FONT_FAMILIES[language]
    )
    rc = {
        "svg.fonttype": "none",
        "svg.hashsalt": _SVG_HASH_SALT,
        "svg.image_inline": True,
    }
    buffer = io.StringIO()
    with mpl.rc_context(rc), warnings.catch_warnings():
        warnings.filterwarnings("ignore", _MISSING_GLYPH, UserWarning)
        fig.savefig(
            buffer,
            format="svg",
            dpi=200,  # resolution of the heat maps' pixels only
            metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
        )
    svg = buffer.getvalue()
    texts = svg.count("<text ")
    svg, replaced = _FONT_FAMILY.subn(rf"\g<before>font-family: {families}", svg)
    if replaced != texts:  # pragma: no cover - guards a change of matplotlib
        raise RuntimeError(
            f"matplotlib wrote {texts} <text> elements but {replaced} font-family "
            "declarations; cannot set the browser's fonts"
        )
    if language is not None:
        svg = svg.replace("<svg ", f'<svg xml:lang="{language}" ', 1)
    return svg
