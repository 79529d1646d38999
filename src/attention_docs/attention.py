r"""Scaled dot-product attention, step by step.

.. math::

    \operatorname{Attention}(Q, K, V)
        = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

(Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
Section 3.2.1, Equation 1 and Figure 2, left). The three functions of this
module are the three stages of that formula:

- :func:`attention_scores`: MatMul and Scale, :math:`Q K^\top / \sqrt{d_k}`;
- :func:`attention_weights`: the optional Mask and the SoftMax;
- :func:`scaled_dot_product_attention`: the final MatMul with :math:`V`.

Shapes, in the row-vector convention of the paper: ``q (..., n_q, d_k)``,
``k (..., n_k, d_k)``, ``v (..., n_k, d_v)``, weights ``(..., n_q, n_k)``,
output ``(..., n_q, d_v)``; leading ``...`` are batch dimensions and broadcast
(the book's page "Symbols and shapes" (notation.md, section "Shapes")).
The book derives the formula step by step on its page "Scaled dot-product
attention" (scaled-dot-product.md).

The formula itself is :func:`attention_kernel`, a few lines that check
nothing; the public functions below check their arguments first.
Multi-head attention, self-attention, the KV cache and the backward pass call
the same kernel after checks of their own. The numerical care (one
finiteness check of the scores, a softmax in place, outputs that stay within
the values' range) lives in the package's private module ``_kernels``.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np  # noqa: F401 (the docstrings' examples use np)
from numpy.typing import ArrayLike

from ._kernels import (
    ScoresOverflow,
    scaled_products,
    softmax_rows,
    weighted_values,
    with_batch,
)
from ._validation import (
    FloatArray,
    broadcast_batch,
    check_mask,
    resolve_scale,
    validated_qk,
    validated_qkv,
)

__all__ = ["attention_scores", "attention_weights", "scaled_dot_product_attention"]


# -- the computation, as the book can show it ------------------------------------


# --8<-- [start:attention]
def attention_kernel(q, k, v, scale, mask):
    """softmax(Q K^T * scale + B) V and the weights A; checks nothing.

    q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v): checked float
    arrays; scale: usually 1 / sqrt(d_k); mask: bool, broadcastable to
    (..., n_q, n_k), or None (B = 0 where True, -inf where False).
    """
    scores = scaled_products(q, k, scale)  # S = (Q * scale) K^T: (..., n_q, n_k)
    weights, visible = softmax_rows(scores, mask)  # A = softmax(S + B), in S's array
    output = weighted_values(weights, v, visible)  # A V: (..., n_q, d_v)
    return output, weights


# --8<-- [end:attention]


# -- the checked public functions -------------------------------------------------


def attention_scores(
    q: ArrayLike, k: ArrayLike, *, scale: float | None = None
) -> FloatArray:
    r"""Scores :math:`Q K^\top \cdot \text{scale}` of every query against every key.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries, one row per query.
    k : array_like, shape (..., n_k, d_k)
        Keys, one row per key.
    scale : float, optional
        Positive finite factor applied to the dot products; default
        :math:`1/\sqrt{d_k}`.

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        ``scores[..., i, j] = scale * (q[..., i, :] @ k[..., j, :])``, the
        (scaled) dot product of query ``i`` and key ``j``; finite. The batch
        dimensions are those of ``q`` and ``k`` broadcast together. float32
        when ``q`` and ``k`` are float32 or float16, float64 otherwise. The
        queries are scaled before the product, so the result can differ from
        ``scale * (q @ k.T)`` by rounding, and a product that overflows only
        before scaling is no error. Empty dimensions are kept: an empty
        batch dimension or ``n_q = 0`` gives an empty array of this shape, as
        numpy's ``matmul`` does.

    Raises
    ------
    ValueError
        If a shape does not fit: ``q`` or ``k`` has fewer than 2 dimensions,
        their last dimensions (``d_k``) differ or are 0, ``k`` has no rows, or
        their leading dimensions do not broadcast (the message names the
        argument(s) and gives both shapes). If ``scale`` is not a positive
        finite number. If ``q`` or ``k`` contains NaN or infinite values. If
        the scores overflow the floating-point type (they are never returned
        as ``inf``).
    TypeError
        If ``q`` or ``k`` does not hold real numbers (complex, strings,
        objects) or is a numpy masked array.

    Notes
    -----
    .. math::

        S = \frac{Q K^\top}{\sqrt{d_k}}, \qquad
        S_{ij} = \frac{1}{\sqrt{d_k}} \sum_{p=1}^{d_k} q_{ip} k_{jp} .

    Vaswani et al. (2017), Section 3.2.1 and its footnote 4: if the components
    of a query and a key are independent with mean 0 and variance 1 (a model of
    random initialisation, not a property of a trained model), their dot
    product has variance :math:`d_k`; dividing by :math:`\sqrt{d_k}` brings it
    back to 1 and keeps the softmax out of its saturated, small-gradient
    regime. See the book's page "Scaled dot-product attention"
    (scaled-dot-product.md, sections "Scores" and "Scaling") and, for the
    saturation, the page "Softmax" (softmax.md, section "Saturation").

    Examples
    --------
    >>> q = [[1.0, 0.0], [1.0, 1.0]]
    >>> k = [[2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]
    >>> attention_scores(q, k, scale=1.0).tolist()
    [[2.0, 0.0, 2.0], [2.0, 2.0, 4.0]]
    >>> attention_scores(q, k, scale=0.5).tolist()
    [[1.0, 0.0, 1.0], [1.0, 1.0, 2.0]]

    The default scale is :math:`1/\sqrt{d_k}`, here :math:`1/\sqrt{4} = 0.5`:

    >>> attention_scores([[1.0, 1.0, 1.0, 1.0]], [[1.0, 2.0, 3.0, 4.0]]).tolist()
    [[5.0]]
    """
    q, k = validated_qk(q, k)
    scale = resolve_scale(scale, q.shape[-1])
    try:
        return scaled_products(q, k, scale)  # S = QK^T / sqrt(d_k): (..., n_q, n_k)
    except ScoresOverflow as overflow:
        raise ValueError(overflow.describe("`q`", "`k`", q.shape, k.shape)) from None


def attention_weights(
    q: ArrayLike,
    k: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> FloatArray:
    r"""Attention weights: the row-wise (masked) softmax of the scaled scores.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries.
    k : array_like, shape (..., n_k, d_k)
        Keys.
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``. Default: no mask.
    scale : float, optional
        Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        Non-negative weights; masked entries are exactly 0. Every row sums to 1,
        except a fully masked row, which is all zeros.

    Raises
    ------
    ValueError
        For every reason of :func:`attention_scores`, and if ``mask`` does not
        broadcast to the scores' shape (..., n_q, n_k) (the message gives both
        shapes).
    TypeError
        If ``mask`` is not boolean (0/1 integers or floats are refused: their
        polarity would be ambiguous), ``q``/``k`` do not hold real numbers, or
        an argument is a numpy masked array.

    Notes
    -----
    .. math::

        A = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + B\right),
        \qquad B_{ij} = \begin{cases} 0 & M_{ij} \text{ (may attend)} \\
                                      -\infty & \text{otherwise,} \end{cases}

    softmax along the keys (the last axis). Vaswani et al. (2017),
    Section 3.2.1 and the Mask / SoftMax boxes of Figure 2. A fully masked row
    has no finite score; instead of NaN it gets all-zero weights, as in current
    PyTorch's ``torch.nn.functional.scaled_dot_product_attention``; see
    :func:`~attention_docs.softmax.masked_softmax` and the book's pages
    "Scaled dot-product attention" (scaled-dot-product.md, section "Attention
    weights") and "Masks" (masks.md, section "Fully masked rows").

    Examples
    --------
    >>> q = [[1.0, 0.0], [0.0, 0.0]]
    >>> k = [[1.0, 0.0], [0.0, 1.0]]
    >>> w = attention_weights(q, k, scale=np.log(3.0))
    >>> np.round(w, 6).tolist()
    [[0.75, 0.25], [0.5, 0.5]]
    >>> w.sum(axis=-1).tolist()
    [1.0, 1.0]

    With a mask, the second query may see nothing:

    >>> mask = np.array([[True, False], [False, False]])
    >>> attention_weights(q, k, mask=mask).tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    q, k = validated_qk(q, k)
    scale = resolve_scale(scale, q.shape[-1])
    if mask is not None:
        batch = broadcast_batch(("q", q), ("k", k))
        mask = check_mask(mask, (*batch, q.shape[-2], k.shape[-2]))
    try:
        scores = scaled_products(q, k, scale)  # S = QK^T / sqrt(d_k)
    except ScoresOverflow as overflow:
        raise ValueError(overflow.describe("`q`", "`k`", q.shape, k.shape)) from None
    weights, _ = softmax_rows(scores, mask)  # A = softmax(S + B), row by row
    return weights


@overload
def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = ...,
    scale: float | None = ...,
    return_weights: Literal[False] = ...,
) -> FloatArray: ...


@overload
def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = ...,
    scale: float | None = ...,
    return_weights: Literal[True],
) -> tuple[FloatArray, FloatArray]: ...


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    return_weights: bool = False,
) -> FloatArray | tuple[FloatArray, FloatArray]:
    r"""Scaled dot-product attention :math:`\mathrm{softmax}(QK^\top / \sqrt{d_k}) V`.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries, one row per query.
    k : array_like, shape (..., n_k, d_k)
        Keys, one row per key.
    v : array_like, shape (..., n_k, d_v)
        Values, one row per key.
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``. Default: no mask.
    scale : float, optional
        Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.
    return_weights : bool, optional
        Also return the attention weights (default False).

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
        Row ``i`` is the weighted sum :math:`\sum_j A_{ij} v_j` of the value rows,
        a convex combination of them (weights non-negative, summing to 1):
        each component lies between the smallest and the largest value in its
        column, also in floating point and for values near the dtype's
        maximum (never ``inf``). A fully masked query gets a zero row. The
        batch dimensions of ``q``, ``k``, ``v`` and ``mask`` broadcast (a mask
        may have batch dimensions that only ``v`` has, as the output does).
        float32 when every input is float32 or float16 (float16 is computed
        in float32, not rounded back), float64 otherwise. Empty dimensions
        are kept, as in numpy's ``matmul`` and current PyTorch's
        ``scaled_dot_product_attention``: an empty batch dimension (in any
        argument), ``n_q = 0`` or ``d_v = 0`` give an empty output of this
        shape. (``n_k = 0`` and ``d_k = 0`` are errors: a query with no key,
        or scores without components, have no softmax.)
    weights : ndarray, shape (..., n_q, n_k)
        Only if ``return_weights``: the weights of :func:`attention_weights`,
        with the batch dimensions of the output (also those that only ``v``
        has: the same weights for every copy of the values).

    Raises
    ------
    ValueError
        For every reason of :func:`attention_weights`; if ``v`` has fewer than
        2 dimensions, contains NaN or infinite values, has a different number
        of rows (``n_k``) than ``k``, or batch dimensions that do not broadcast
        with those of ``q`` and ``k`` (the message names the arguments and
        gives their shapes).
    TypeError
        If ``mask`` is not boolean, ``q``, ``k`` or ``v`` does not hold real
        numbers, or an argument is a numpy masked array (its hidden entries
        would be used: pass plain arrays and a boolean ``mask``).

    Notes
    -----
    .. math::

        \operatorname{Attention}(Q, K, V)
            = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V,
        \qquad \text{output}_i = \sum_{j=1}^{n_k} A_{ij} \, v_j .

    Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
    Section 3.2.1, Equation 1, and Figure 2 (left): MatMul, Scale, Mask
    (optional), SoftMax, MatMul; the book's page "Scaled dot-product
    attention" (scaled-dot-product.md, sections "Definition", "Output" and
    "Figure 2 (left)"). The paper compares this dot-product attention with the
    additive attention of Bahdanau et al., 2015, "Neural Machine Translation by
    Jointly Learning to Align and Translate" (arXiv:1409.0473), which scores a
    query against a key with a one-hidden-layer feed-forward network.

    The rows of the output are weighted sums of the rows of :math:`V`, because
    :math:`\vec{x} A = \sum_i x_i \vec{a}_i` (see :mod:`attention_docs.linalg`
    and the book's page "Row vectors and matrix products" (linear-algebra.md,
    section "A weighted sum of rows")). A fully masked row has all-zero
    weights and hence a zero output, as in current PyTorch's
    ``torch.nn.functional.scaled_dot_product_attention`` (masks.md, section
    "Fully masked rows").

    The computation holds one ``(..., n_q, n_k)`` array: the queries are
    scaled before the product (:math:`(Q / \sqrt{d_k}) K^\top`, equal to
    :math:`Q K^\top / \sqrt{d_k}` up to rounding), and the scores become the
    weights in place (shift by the row maximum, exponentiate, normalise).
    :func:`~attention_docs.blockwise.blockwise_attention` computes the same
    output without holding all scores at once.

    Examples
    --------
    One query that matches the first key three times as well as the second
    (:math:`e^{\ln 3} = 3`), so it takes 3/4 of the first value:

    >>> q = [[1.0, 0.0]]
    >>> k = [[1.0, 0.0], [0.0, 1.0]]
    >>> v = [[4.0, 0.0], [0.0, 8.0]]
    >>> out = scaled_dot_product_attention(q, k, v, scale=np.log(3.0))
    >>> np.round(out, 6).tolist()
    [[3.0, 2.0]]

    A fully masked query gets zero weights and a zero output:

    >>> q = np.zeros((2, 2))
    >>> mask = np.array([[True, True], [False, False]])
    >>> out, w = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    >>> w.tolist()
    [[0.5, 0.5], [0.0, 0.0]]
    >>> out.tolist()
    [[2.0, 4.0], [0.0, 0.0]]

    Batch dimensions broadcast: 2 sequences x 3 heads of queries against one
    shared set of keys and values.

    >>> rng = np.random.default_rng(0)
    >>> q = rng.standard_normal((2, 3, 5, 4))
    >>> k = rng.standard_normal((7, 4))
    >>> v = rng.standard_normal((7, 6))
    >>> scaled_dot_product_attention(q, k, v).shape
    (2, 3, 5, 6)

    An empty batch gives an empty output, and values without components
    (``d_v = 0``) an output without components:

    >>> scaled_dot_product_attention(q[0, 0], k, np.ones((0, 7, 6))).shape
    (0, 5, 6)
    >>> scaled_dot_product_attention(q, k, np.ones((7, 0))).shape
    (2, 3, 5, 0)
    """
    q, k, v, batch = validated_qkv(q, k, v)
    scale = resolve_scale(scale, q.shape[-1])
    if mask is not None:
        mask = check_mask(mask, (*batch, q.shape[-2], k.shape[-2]))
    try:
        output, weights = attention_kernel(q, k, v, scale, mask)
    except ScoresOverflow as overflow:
        raise ValueError(overflow.describe("`q`", "`k`", q.shape, k.shape)) from None
    if return_weights:
        return output, with_batch(weights, output.shape[:-2])
    return output
