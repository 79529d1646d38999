r"""Exact attention without the n_q x n_k matrix: keys in blocks, online softmax.

:func:`blockwise_attention` computes the same output as
:func:`~attention_docs.attention.scaled_dot_product_attention`, to rounding,
but never holds the scores or weights of all keys at once: it walks through
the keys ``block_size`` at a time and keeps, for every query, a running
maximum :math:`m`, a running sum :math:`\ell` of exponentials and a running
(unnormalised) output :math:`\vec{o}`. When a block :math:`B` of keys arrives,

.. math::

    m' = \max\bigl(m, \max_{j \in B} s_j\bigr), \qquad
    \ell' = e^{m - m'} \ell + \sum_{j \in B} e^{s_j - m'}, \qquad
    \vec{o}\,' = e^{m - m'} \vec{o} + \sum_{j \in B} e^{s_j - m'} \vec{v}_j ,

and after the last block the output is :math:`\vec{o} / \ell`. The rescaling
by :math:`e^{m - m'}` is the softmax's invariance to a shift of its inputs
(the book's page "Softmax" (softmax.md, section "Numerical stability")).
Memory: O(n_q * block_size) for the scores of one block instead of
O(n_q * n_k).

The function keeps the running output normalised instead, as Algorithm 1 of
Dao et al. (2022) does: it holds :math:`\vec{o} / \ell` and updates it as

.. math::

    \frac{\vec{o}\,'}{\ell'} = \frac{e^{m - m'} \ell}{\ell'}
        \cdot \frac{\vec{o}}{\ell}
        + \sum_{j \in B} \frac{e^{s_j - m'}}{\ell'} \vec{v}_j ,

whose weights sum to 1 after every block. The running output is then always
a convex combination of value rows, so it cannot overflow even when the
values are close to the largest floating-point number (the unnormalised
:math:`\vec{o}` can grow to :math:`\ell` times the largest value).

Sources: the online softmax of Milakov and Gimelshein, 2018, "Online
normalizer calculation for softmax" (arXiv:1805.02867); attention in blocks
of keys, Rabe and Staats, 2021, "Self-attention Does Not Need O(n^2) Memory"
(arXiv:2112.05682), and Dao et al., 2022, "FlashAttention: Fast and
Memory-Efficient Exact Attention with IO-Awareness" (arXiv:2205.14135),
Algorithm 1. The book derives the recurrence, the rule that merges two blocks
and the handling of masks on its page "Blockwise attention"
(efficient-attention.md, sections "Online softmax", "Merging two blocks",
"Blockwise computation" and "Masks").
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import ScoresOverflow, clipped_output, safe_values, scaled_products
from ._validation import (
    FloatArray,
    check_mask,
    check_positive_int,
    resolve_scale,
    validated_qkv,
)

__all__ = ["blockwise_attention"]


def blockwise_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    block_size: int = 128,
) -> FloatArray:
    r"""Scaled dot-product attention computed over blocks of keys.

    Equal, to rounding, to
    :func:`~attention_docs.attention.scaled_dot_product_attention` with the
    same arguments, but the scores are only ever held for ``block_size`` keys
    at a time.

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
    block_size : int, optional
        How many keys each step processes (default 128). Any positive
        integer; it need not divide ``n_k`` (the last block is shorter).

    Returns
    -------
    ndarray, shape (..., n_q, d_v)
        Row ``i`` is :math:`\sum_j A_{ij} \vec{v}_j` with
        :math:`A = \operatorname{softmax}(Q K^\top \cdot \text{scale})` over
        the keys query ``i`` may attend to. A fully masked query gets a zero
        row, as in ``scaled_dot_product_attention``. Batch dimensions of
        ``q``, ``k``, ``v`` and ``mask`` broadcast; empty dimensions (an
        empty batch, ``n_q = 0``, ``d_v = 0``) give an empty output of this
        shape, as there.

    Raises
    ------
    ValueError
        For every reason of ``scaled_dot_product_attention`` (shapes that do
        not match or broadcast, NaN or infinite input, scores that overflow,
        a mask that does not broadcast to (..., n_q, n_k)); and if
        ``block_size`` is not a positive integer.
    TypeError
        If ``mask`` is not boolean, ``q``, ``k`` or ``v`` does not hold real
        numbers, or an argument is a numpy masked array.

    Notes
    -----
    See the module's docstring for the recurrence and its sources. In numpy
    the loop over blocks is slower than one matrix product; what it saves is
    memory. On a GPU the same recurrence (FlashAttention) is faster, because
    keeping a block in fast on-chip memory saves traffic to the slow one.

    Examples
    --------
    >>> from attention_docs import scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> q = rng.standard_normal((5, 4))
    >>> k = rng.standard_normal((7, 4))
    >>> v = rng.standard_normal((7, 3))
    >>> out = blockwise_attention(q, k, v, block_size=3)  # blocks of 3, 3, 1 keys
    >>> out.shape
    (5, 3)
    >>> bool(np.allclose(out, scaled_dot_product_attention(q, k, v)))
    True

    A fully masked query gets a zero row:

    >>> mask = np.ones((5, 7), dtype=bool)
    >>> mask[0] = False
    >>> blockwise_attention(q, k, v, mask=mask, block_size=2)[0].tolist()
    [0.0, 0.0, 0.0]
    """
    q, k, v, batch = validated_qkv(q, k, v)
    block_size = check_positive_int("block_size", block_size)
    scale = resolve_scale(scale, q.shape[-1])
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    scores_shape = (*batch, n_q, n_k)
    if mask is not None:
        mask = np.broadcast_to(check_mask(mask, scores_shape), scores_shape)

    dtype = np.result_type(q, k, v)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)  # running maximum
    ell = np.zeros((*batch, n_q, 1), dtype=dtype)  # running sum of exponentials
    o = np.zeros((*batch, n_q, d_v), dtype=dtype)  # running output, normalised
    v_scaled, factor = safe_values(v)
    with np.errstate(over="ignore", under="ignore"):  # shifts and exp: no warnings
        for start in range(0, n_k, block_size):
            k_block = k[..., start : start + block_size, :]
            v_block = v_scaled[..., start : start + block_size, :]
            try:
                s = scaled_products(q, k_block, scale)  # (..., n_q, B)
            except ScoresOverflow as overflow:
                message = overflow.describe("`q`", "`k`", q.shape, k.shape)
                raise ValueError(message) from None
            keep = True if mask is None else mask[..., start : start + block_size]
            if mask is not None:  # the mask may have batch dimensions only v has
                s = np.broadcast_to(s, keep.shape)
            block_max = np.max(s, axis=-1, keepdims=True, where=keep, initial=-np.inf)
            m_new = np.maximum(m, block_max)  # over the visible keys only
            # A query with no visible key so far keeps m = -inf; shift by 0
            # there, so that exp(-inf - 0) = 0 and nothing becomes NaN.
            shift = np.where(np.isfinite(m_new), m_new, 0.0)
            p = s - shift  # s_j - m'
            np.exp(p, out=p, where=keep)  # e^{s_j - m'} where visible
            if mask is not None:  # and 0 where masked (not via exp(-inf): slow)
                np.copyto(p, 0.0, where=~keep)
            correction = np.exp(m - shift)  # e^{m - m'}, 0 before the first key
            ell_new = correction * ell + p.sum(axis=-1, keepdims=True)
            # o' = (e^{m - m'} l o + sum_j e^{s_j - m'} v_j) / l': the weights of
            # o' sum to 1, so o' stays within the range of the values.
            safe = np.where(ell_new > 0, ell_new, 1.0)  # l' = 0: nothing seen yet
            o = (correction * ell / safe) * o + (p / safe) @ v_block
            m, ell = m_new, ell_new
    return clipped_output(o, v_scaled, factor, ell > 0)
