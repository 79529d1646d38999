r"""Additive (Bahdanau) attention: scores from a one-hidden-layer network.

Bahdanau, Cho and Bengio, 2015, "Neural Machine Translation by Jointly
Learning to Align and Translate" (ICLR 2015, arXiv:1409.0473), Section 3.1,
Equations 5 and 6, score the previous decoder state :math:`s_{i-1}` against
the annotation :math:`h_j` of source position :math:`j` with the alignment
model of their Appendix A.1.2,

.. math::

    e_{ij} = a(s_{i-1}, h_j) = v_a^\top \tanh(W_a s_{i-1} + U_a h_j),

in column vectors. In the book's row vectors, with a query row :math:`q_i`,
a key row :math:`k_j`, :math:`W_q = W_a^\top`, :math:`W_k = U_a^\top` and the
column :math:`w_a = v_a`,

.. math::

    S_{ij} = \tanh(q_i W_q + k_j W_k)\, w_a, \qquad
    A = \operatorname{softmax}(S), \qquad \text{output} = A V .

Bahdanau et al. take the annotations themselves as the values
(:math:`c_i = \sum_j \alpha_{ij} h_j`); :func:`additive_attention` accepts any
values ``v``, as scaled dot-product attention does. Vaswani et al., 2017,
"Attention Is All You Need" (arXiv:1706.03762), Section 3.2.1, compare the
two: similar in theoretical complexity, but dot-product attention is faster
and more space-efficient in practice. See the book's page "Scaled dot-product
attention" (scaled-dot-product.md, section "Additive attention").
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import fitting_product, softmax_rows, weighted_values, with_batch
from ._validation import (
    FloatArray,
    as_float_array,
    broadcast_batch,
    check_exact_ndim,
    check_finite_product,
    check_mask,
    check_ndim,
    check_same_size,
)

__all__ = ["additive_attention"]


@overload
def additive_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_a: ArrayLike,
    *,
    mask: ArrayLike | None = ...,
    return_weights: Literal[False] = ...,
) -> FloatArray: ...


@overload
def additive_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_a: ArrayLike,
    *,
    mask: ArrayLike | None = ...,
    return_weights: Literal[True],
) -> tuple[FloatArray, FloatArray]: ...


def additive_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_a: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    return_weights: bool = False,
) -> FloatArray | tuple[FloatArray, FloatArray]:
    r"""Additive attention: scores :math:`\tanh(q_i W_q + k_j W_k)\, w_a`, then softmax.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_q)
        Queries, one row per query (Bahdanau et al.: decoder states).
    k : array_like, shape (..., n_k, d_k)
        Keys, one row per key (Bahdanau et al.: the source annotations).
        ``d_k`` need not equal ``d_q``.
    v : array_like, shape (..., n_k, d_v)
        Values, one row per key.
    w_q : array_like, shape (d_q, d_a)
        Projection of the queries into the hidden layer of width ``d_a``.
    w_k : array_like, shape (d_k, d_a)
        Projection of the keys into the same hidden layer.
    w_a : array_like, shape (d_a,)
        The column vector :math:`w_a` that turns a hidden row into a score.
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``. Default: no mask.
    return_weights : bool, optional
        Also return the attention weights (default False).

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
        Row ``i`` is :math:`\sum_j A_{ij} v_j`, a convex combination of the
        value rows (each component between its column's smallest and largest
        value); a fully masked query gets a zero row. Empty dimensions are
        kept, as in :func:`~attention_docs.attention.scaled_dot_product_attention`:
        an empty batch dimension, ``n_q = 0`` or ``d_v = 0`` give an empty
        output of this shape.
    weights : ndarray, shape (..., n_q, n_k)
        Only if ``return_weights``: non-negative, masked entries exactly 0,
        every row sums to 1 except a fully masked row (all zeros); with the
        batch dimensions of the output.

    Raises
    ------
    ValueError
        If a shape does not fit: ``q``, ``k`` or ``v`` has fewer than 2
        dimensions; ``k`` has no rows or a different number of rows than
        ``v``; the batch dimensions do not broadcast; ``w_q`` or ``w_k`` is
        not 2-D or its rows do not match ``d_q`` or ``d_k``; ``w_a`` is not
        1-D; ``w_q``, ``w_k`` and ``w_a`` disagree on ``d_a`` (each message
        names the arguments and gives their shapes). If ``mask`` does not
        broadcast to (..., n_q, n_k). If an input contains NaN or infinite
        values. If a projection or the scores overflow.
    TypeError
        If ``mask`` is not boolean, an input does not hold real numbers, or
        an input is a numpy masked array.

    Notes
    -----
    .. math::

        S_{ij} = \tanh(q_i W_q + k_j W_k)\, w_a, \qquad
        A = \operatorname{softmax}(S) \text{ row by row}, \qquad
        \text{output} = A V .

    Bahdanau, Cho and Bengio, 2015, arXiv:1409.0473, Section 3.1 (Equations
    5 and 6) and Appendix A.1.2, :math:`e_{ij} = v_a^\top \tanh(W_a s_{i-1} +
    U_a h_j)`, written here in row vectors (:math:`W_q = W_a^\top`,
    :math:`W_k = U_a^\top`, :math:`w_a = v_a`). There is no scale factor:
    :math:`|S_{ij}| \le \sum_p |w_{a,p}|` whatever the queries and keys,
    because :math:`|\tanh| < 1`. Masks work as in
    :func:`~attention_docs.attention.scaled_dot_product_attention` (masked
    scores count as :math:`-\infty`; a fully masked row gives zero weights
    and a zero output). The projections :math:`q W_q` and :math:`k W_k` are
    computed once, but the hidden array
    :math:`\tanh(q_i W_q + k_j W_k)` has one row of width ``d_a`` for every
    pair ``(i, j)``: shape ``(..., n_q, n_k, d_a)``, ``d_a`` times the size
    of the scores. Vaswani et al., 2017, Section 3.2.1, on the comparison
    with dot-product attention. See the book's page "Scaled dot-product
    attention" (scaled-dot-product.md, section "Additive attention").

    Examples
    --------
    Two keys and one query; the hidden layer has width 2:

    >>> q = [[1.0, 0.0]]
    >>> k = [[1.0, 0.0], [0.0, 1.0]]
    >>> v = [[1.0, 0.0], [0.0, 1.0]]
    >>> w_q = w_k = np.eye(2)
    >>> w_a = [1.0, 1.0]
    >>> out, w = additive_attention(q, k, v, w_q, w_k, w_a, return_weights=True)
    >>> np.round(w, 4).tolist()  # scores tanh(2) + tanh(0) and tanh(1) + tanh(1)
    [[0.3637, 0.6363]]
    >>> np.round(out, 4).tolist()
    [[0.3637, 0.6363]]
    """
    q = as_float_array("q", q)
    k = as_float_array("k", k)
    v = as_float_array("v", v)
    check_ndim("q", q, 2, "(..., n_q, d_q)")
    check_ndim("k", k, 2, "(..., n_k, d_k)")
    check_ndim("v", v, 2, "(..., n_k, d_v)")
    if k.shape[-2] == 0:
        raise ValueError(f"`k` has n_k=0 keys: shape {k.shape}")
    check_same_size("n_k", ("k", k, -2), ("v", v, -2))
    batch = broadcast_batch(("q", q), ("k", k), ("v", v))
    w_q = as_float_array("w_q", w_q)
    w_k = as_float_array("w_k", w_k)
    w_a = as_float_array("w_a", w_a)
    check_exact_ndim("w_q", w_q, 2, "(d_q, d_a)")
    check_exact_ndim("w_k", w_k, 2, "(d_k, d_a)")
    check_exact_ndim("w_a", w_a, 1, "(d_a,)")
    check_same_size("d_q", ("q", q, -1), ("w_q", w_q, 0))
    check_same_size("d_k", ("k", k, -1), ("w_k", w_k, 0))
    check_same_size("d_a", ("w_q", w_q, 1), ("w_k", w_k, 1))
    check_same_size("d_a", ("w_q", w_q, 1), ("w_a", w_a, 0))
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = check_mask(mask, (*batch, n_q, n_k))

    # (computed again at a smaller scale where a partial sum overflows)
    q_proj = fitting_product(q, w_q)  # q_i W_q: (..., n_q, d_q) @ (d_q, d_a)
    k_proj = fitting_product(k, w_k)  # k_j W_k: (..., n_k, d_k) @ (d_k, d_a)
    check_finite_product(q_proj, ("q", q), ("w_q", w_q))
    check_finite_product(k_proj, ("k", k), ("w_k", w_k))
    with np.errstate(over="ignore", under="ignore"):  # tanh(+-inf) = +-1
        # tanh(q_i W_q + k_j W_k) for every pair (i, j):
        # (..., n_q, 1, d_a) + (..., 1, n_k, d_a) -> (..., n_q, n_k, d_a)
        hidden = np.tanh(q_proj[..., :, np.newaxis, :] + k_proj[..., np.newaxis, :, :])
    scores = fitting_product(hidden, w_a)  # S_ij: (..., n_q, n_k, d_a) @ (d_a,)
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            f"the scores tanh(`q` @ `w_q` + `k` @ `w_k`) @ `w_a` overflow "
            f"{scores.dtype}: `w_a` of shape {w_a.shape}"
        )
    weights, visible = softmax_rows(scores, mask)  # A = softmax(S), in S's array
    output = weighted_values(weights, v, visible)  # A V: (..., n_q, d_v)
    if return_weights:
        return output, with_batch(weights, output.shape[:-2])
    return output
