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
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatArray,
    as_float_array,
    broadcast_batch,
    check_ndim,
    check_same_size,
    resolve_scale,
)
from .softmax import masked_softmax, softmax

__all__ = ["attention_scores", "attention_weights", "scaled_dot_product_attention"]


def _validated_qk(q: ArrayLike, k: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Convert and check ``q`` and ``k``; return them as float arrays."""
    q = as_float_array("q", q)
    k = as_float_array("k", k)
    check_ndim("q", q, 2, "(..., n_q, d_k)")
    check_ndim("k", k, 2, "(..., n_k, d_k)")
    check_same_size("d_k", ("q", q, -1), ("k", k, -1))
    if q.shape[-1] == 0:
        raise ValueError(f"`q` and `k` have d_k=0: shapes {q.shape} and {k.shape}")
    if k.shape[-2] == 0:
        raise ValueError(f"`k` has n_k=0 keys: shape {k.shape}")
    broadcast_batch(("q", q), ("k", k))
    return q, k


def _validated_qkv(
    q: ArrayLike, k: ArrayLike, v: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray, tuple[int, ...]]:
    """Convert and check ``q``, ``k`` and ``v``; return them and the batch shape."""
    q, k = _validated_qk(q, k)
    v = as_float_array("v", v)
    check_ndim("v", v, 2, "(..., n_k, d_v)")
    check_same_size("n_k", ("k", k, -2), ("v", v, -2))
    batch = broadcast_batch(("q", q), ("k", k), ("v", v))
    return q, k, v, batch


def _scaled_products(
    q: FloatArray, k: FloatArray, scale: float, k_shape: tuple[int, ...]
) -> FloatArray:
    """``q @ k^T * scale``; ValueError if it overflows.

    ``k`` may be a block of the caller's keys, whose full shape ``k_shape``
    the message gives.
    """
    with np.errstate(over="ignore"):  # overflow is reported below, as ValueError
        k_t = np.swapaxes(k, -1, -2)  # (..., n_k, d_k) -> (..., d_k, n_k)
        qk = q @ k_t  # (..., n_q, d_k) @ (..., d_k, n_k) -> (..., n_q, n_k)
        scores = qk * scale  # S = Q K^T / sqrt(d_k)
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            f"the scores `q` @ `k`^T * scale overflow {scores.dtype}: shapes "
            f"{q.shape} and {k_shape}, scale={scale!r}"
        )
    return scores


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
        dimensions are those of ``q`` and ``k`` broadcast together.

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
        objects).

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
    q, k = _validated_qk(q, k)
    scale = resolve_scale(scale, q.shape[-1])
    return _scaled_products(q, k, scale, k.shape)


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
        polarity would be ambiguous), or ``q``/``k`` do not hold real numbers.

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
    scores = attention_scores(q, k, scale=scale)  # (..., n_q, n_k)
    if mask is None:
        return softmax(scores, axis=-1)  # softmax(QK^T / sqrt(d_k))
    return masked_softmax(scores, mask, axis=-1)  # softmax(QK^T / sqrt(d_k) + B)


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
        a convex combination of them (weights non-negative, summing to 1). A
        fully masked query gets a zero row. The batch dimensions of ``q``,
        ``k`` and ``v`` broadcast.
    weights : ndarray, shape (..., n_q, n_k)
        Only if ``return_weights``: the weights of :func:`attention_weights`.

    Raises
    ------
    ValueError
        For every reason of :func:`attention_weights`; if ``v`` has fewer than
        2 dimensions, contains NaN or infinite values, has a different number
        of rows (``n_k``) than ``k``, or batch dimensions that do not broadcast
        with those of ``q`` and ``k`` (the message names the arguments and
        gives their shapes).
    TypeError
        If ``mask`` is not boolean, or ``q``, ``k`` or ``v`` does not hold real
        numbers.

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
    """
    q, k, v, _ = _validated_qkv(q, k, v)
    weights = attention_weights(q, k, mask=mask, scale=scale)  # (..., n_q, n_k)
    output = weights @ v  # A V: (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    if return_weights:
        return output, weights
    return output
