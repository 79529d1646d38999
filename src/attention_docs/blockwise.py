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

:func:`blockwise_attention_backward` is the backward pass of the same
computation, FlashAttention's (Dao et al., 2022, Algorithm 4 and
Appendix B; Dao, 2023, "FlashAttention-2", arXiv:2307.08691, Algorithm 2):
from the output and the log-sum-exp
:math:`\operatorname{lse}_i = m_i + \log \ell_i` that
``blockwise_attention(..., return_lse=True)`` returns, it recomputes the
weights :math:`A_{ij} = e^{S_{ij} - \operatorname{lse}_i}` one tile of
queries by keys at a time, with :math:`D = \operatorname{rowsum}(dZ \odot Z)`
in place of the row sums of :math:`dA \odot A`. The book derives it on the
same page, section "Blockwise backward pass".
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import ScoresOverflow, clipped_output, safe_values, scaled_products
from ._validation import (
    FloatArray,
    as_array,
    as_float_array,
    check_bool,
    check_mask,
    check_positive_int,
    resolve_scale,
    sum_to_shape,
    validated_qkv,
)

__all__ = [
    "blockwise_attention",
    "blockwise_attention_backward",
    "blockwise_tile_counts",
]


@overload
def blockwise_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = ...,
    scale: float | None = ...,
    block_size: int = ...,
    return_lse: Literal[False] = ...,
) -> FloatArray: ...


@overload
def blockwise_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = ...,
    scale: float | None = ...,
    block_size: int = ...,
    return_lse: Literal[True],
) -> tuple[FloatArray, FloatArray]: ...


def blockwise_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    block_size: int = 128,
    return_lse: bool = False,
) -> FloatArray | tuple[FloatArray, FloatArray]:
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
    return_lse : bool, optional
        Also return the log-sum-exp of each query's scores, which
        :func:`blockwise_attention_backward` needs (default False).

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
        Row ``i`` is :math:`\sum_j A_{ij} \vec{v}_j` with
        :math:`A = \operatorname{softmax}(Q K^\top \cdot \text{scale})` over
        the keys query ``i`` may attend to. A fully masked query gets a zero
        row, as in ``scaled_dot_product_attention``. Batch dimensions of
        ``q``, ``k``, ``v`` and ``mask`` broadcast; empty dimensions (an
        empty batch, ``n_q = 0``, ``d_v = 0``) give an empty output of this
        shape, as there.
    lse : ndarray, shape (..., n_q)
        Only with ``return_lse=True``:
        :math:`\operatorname{lse}_i = m_i + \log \ell_i
        = \log \sum_j e^{S_{ij}}` over the keys query ``i`` may attend to
        (:math:`S = Q K^\top \cdot \text{scale}`, unitless, the dtype of the
        output), so that :math:`A_{ij} = e^{S_{ij} - \operatorname{lse}_i}`;
        ``-inf`` for a fully masked query (the logarithm of an empty sum).
        It costs :math:`n_q` numbers, where the weights would cost
        :math:`n_q n_k`.

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
    With a mask, the queries too are taken ``block_size`` at a time, and a
    tile (a block of queries by a block of keys) whose every entry the mask
    hides is skipped: its scores are never computed. For a causal mask
    nearly half the tiles are such, for a sliding window most of them;
    :func:`blockwise_tile_counts` gives how many tiles are computed. Without
    a mask, all queries form one block. See the module's docstring for the
    recurrence and its sources. In numpy
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

    The log-sum-exp of each query's scores, kept for the backward pass:

    >>> out, lse = blockwise_attention(q, k, v, block_size=3, return_lse=True)
    >>> lse.shape
    (5,)
    >>> s = q @ k.T / 2.0  # the scores, scale = 1 / sqrt(4)
    >>> bool(np.allclose(lse, np.log(np.exp(s).sum(axis=1))))
    True
    >>> float(blockwise_attention(q, k, v, mask=mask, return_lse=True)[1][0])
    -inf
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
    # Without a mask, all queries form one block; with one, blocks of
    # block_size queries, so that a tile the mask empties can be skipped.
    q_step = block_size if mask is not None else max(n_q, 1)
    with np.errstate(over="ignore", under="ignore"):  # shifts and exp: no warnings
        for q_start in range(0, n_q, q_step):
            qa = slice(q_start, q_start + q_step)
            q_a, m_a, ell_a, o_a = (
                q[..., qa, :],
                m[..., qa, :],
                ell[..., qa, :],
                o[..., qa, :],
            )
            for start in range(0, n_k, block_size):
                keep = (
                    True if mask is None else mask[..., qa, start : start + block_size]
                )
                if mask is not None and not keep.any():
                    continue  # the tile is fully masked: nothing to add
                k_block = k[..., start : start + block_size, :]
                v_block = v_scaled[..., start : start + block_size, :]
                try:
                    s = scaled_products(q_a, k_block, scale)  # (..., B_q, B)
                except ScoresOverflow as overflow:
                    message = overflow.describe("`q`", "`k`", q.shape, k.shape)
                    raise ValueError(message) from None
                if mask is not None:  # the mask may have batch dimensions only v has
                    s = np.broadcast_to(s, keep.shape)
                block_max = np.max(
                    s, axis=-1, keepdims=True, where=keep, initial=-np.inf
                )
                m_new = np.maximum(m_a, block_max)  # over the visible keys only
                # A query with no visible key so far keeps m = -inf; shift by 0
                # there, so that exp(-inf - 0) = 0 and nothing becomes NaN.
                shift = np.where(np.isfinite(m_new), m_new, 0.0)
                p = s - shift  # s_j - m'
                np.exp(p, out=p, where=keep)  # e^{s_j - m'} where visible
                if mask is not None:  # and 0 where masked (not via exp(-inf): slow)
                    np.copyto(p, 0.0, where=~keep)
                correction = np.exp(m_a - shift)  # e^{m - m'}, 0 before the first key
                ell_new = correction * ell_a + p.sum(axis=-1, keepdims=True)
                # o' = (e^{m - m'} l o + sum_j e^{s_j - m'} v_j) / l': the weights of
                # o' sum to 1, so o' stays within the range of the values.
                safe = np.where(ell_new > 0, ell_new, 1.0)  # l' = 0: nothing seen yet
                o_a = (correction * ell_a / safe) * o_a + (p / safe) @ v_block
                m_a, ell_a = m_new, ell_new
            m[..., qa, :], ell[..., qa, :], o[..., qa, :] = m_a, ell_a, o_a
    output = clipped_output(o, v_scaled, factor, ell > 0)
    if not return_lse:
        return output
    # lse_i = m_i + log l_i; -inf where no key was visible (l_i = 0)
    seen = ell > 0
    lse = np.where(seen, m + np.log(np.where(seen, ell, 1.0)), -np.inf)
    return output, lse[..., 0]


def _log_sum_exp(lse: ArrayLike, shape: tuple[int, ...]) -> FloatArray:
    """The caller's ``lse`` as a float array of ``shape``; -inf is allowed.

    -inf is the log-sum-exp of a fully masked query (an empty sum); NaN and
    +inf are errors, and so is every other reason of ``as_float_array``.
    """
    array = as_array("lse", lse)
    if array.dtype.kind == "f":
        if np.any(np.isnan(array) | (array == np.inf)):
            raise ValueError(
                "`lse` contains NaN or infinite values other than -inf (the "
                "log-sum-exp of a query that may attend to no key)"
            )
        empty = array == -np.inf
        finite = as_float_array("lse", np.where(empty, 0, array))
        array = np.where(empty, -np.inf, finite).astype(finite.dtype)
    else:
        array = as_float_array("lse", array)
    if array.shape != shape:
        raise ValueError(
            f"`lse` must have shape (..., n_q) = {shape}, one log-sum-exp per "
            f"query, got shape {array.shape}"
        )
    return array


def blockwise_attention_backward(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    output: ArrayLike,
    lse: ArrayLike,
    grad_output: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    block_size: int = 128,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Gradients of attention with respect to ``q``, ``k``, ``v``, block by block.

    Equal, to rounding, to
    :func:`~attention_docs.backward.scaled_dot_product_attention_backward`
    with the same ``q``, ``k``, ``v``, ``grad_output``, ``mask`` and
    ``scale``, but the weights are never stored: they are recomputed, one
    tile of ``block_size`` queries by ``block_size`` keys at a time, from the
    scores and the log-sum-exp that :func:`blockwise_attention` returns with
    ``return_lse=True``.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries, as passed to :func:`blockwise_attention`.
    k : array_like, shape (..., n_k, d_k)
        Keys.
    v : array_like, shape (..., n_k, d_v)
        Values.
    output : array_like, shape (..., n_q, d_v)
        :math:`Z`, the output of the forward pass for these arguments.
    lse : array_like, shape (..., n_q)
        :math:`\operatorname{lse}_i = \log \sum_j e^{S_{ij}}` over the keys
        query ``i`` may attend to, as the forward pass returns it; ``-inf``
        for a fully masked query.
    grad_output : array_like, shape (..., n_q, d_v)
        :math:`dZ = \partial L / \partial Z`, the gradient of the loss with
        respect to the output.
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``; the forward pass's.
    scale : float, optional
        Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.
    block_size : int, optional
        How many queries and how many keys a tile holds (default 128). Any
        positive integer; it need not divide ``n_q`` or ``n_k``.

    Returns
    -------
    dq : ndarray, shape of ``q``
        :math:`\partial L / \partial Q = \text{scale} \cdot dS\, K`.
    dk : ndarray, shape of ``k``
        :math:`\partial L / \partial K = \text{scale} \cdot dS^\top Q`.
    dv : ndarray, shape of ``v``
        :math:`\partial L / \partial V = A^\top dZ`.

    As in ``scaled_dot_product_attention_backward``, a gradient is summed
    over the batch dimensions its argument was broadcast along, and empty
    dimensions give gradients of the arguments' (empty or zero) shapes.

    Raises
    ------
    ValueError
        For every reason of :func:`blockwise_attention`; if ``output`` or
        ``grad_output`` does not have the output's shape or ``lse`` the
        shape (..., n_q) (the message gives both shapes); if ``output`` or
        ``grad_output`` contains NaN or infinite values, or ``lse`` NaN or
        +inf; if ``lse`` is not the log-sum-exp of these scores so that a
        recomputed weight overflows; if a gradient overflows the
        floating-point type.
    TypeError
        If ``mask`` is not boolean, or an argument does not hold real numbers
        or is a numpy masked array.

    Notes
    -----
    With :math:`D_i = \operatorname{rowsum}(dZ \odot Z)_i
    = \sum_j A_{ij}\, dA_{ij}`, computed once, each tile of query block
    :math:`a` and key block :math:`b` is

    .. math::

        A_{ab} = e^{S_{ab} - \operatorname{lse}_a}, \quad
        dV_b \mathrel{+}= A_{ab}^\top dZ_a, \quad
        dS_{ab} = A_{ab} \odot \bigl(dZ_a V_b^\top - D_a\bigr), \quad
        dQ_a \mathrel{+}= \text{scale} \cdot dS_{ab} K_b, \quad
        dK_b \mathrel{+}= \text{scale} \cdot dS_{ab}^\top Q_a ,

    with masked entries of :math:`A_{ab}` set to 0; a tile whose every
    entry is masked adds nothing and is skipped. The outer loop runs over the
    blocks of keys, the inner one over the blocks of queries, as in Dao et
    al., 2022, "FlashAttention" (arXiv:2205.14135), Algorithm 4 and
    Appendix B.2 (where :math:`Z` is :math:`O`), and Dao, 2023,
    "FlashAttention-2" (arXiv:2307.08691), Algorithm 2, which keeps the
    log-sum-exp instead of :math:`m` and :math:`\ell`. Memory besides the
    arguments and the gradients: :math:`O(\text{block\_size}^2)` for a tile
    and :math:`O(n_q)` for :math:`D`, where the dense backward pass holds
    :math:`n_q \times n_k` weights. The values and the output are taken minus
    the midpoint of each value column before :math:`dZ_a V_b^\top` and
    :math:`D` are formed: :math:`dA - D` is unchanged (a row of weights sums
    to 1) and no intermediate overflows for values near the largest float.
    The book derives :math:`D` and the loop on its page "Blockwise attention"
    (efficient-attention.md, section "Blockwise backward pass"); the
    dense formulas on its page "Backpropagation" (backpropagation.md).

    Examples
    --------
    >>> from attention_docs import scaled_dot_product_attention_backward
    >>> rng = np.random.default_rng(0)
    >>> q = rng.standard_normal((5, 4))
    >>> k = rng.standard_normal((7, 4))
    >>> v = rng.standard_normal((7, 3))
    >>> g = rng.standard_normal((5, 3))  # dL/dZ
    >>> z, lse = blockwise_attention(q, k, v, block_size=3, return_lse=True)
    >>> dq, dk, dv = blockwise_attention_backward(q, k, v, z, lse, g, block_size=3)
    >>> dq.shape, dk.shape, dv.shape
    ((5, 4), (7, 4), (7, 3))
    >>> dense = scaled_dot_product_attention_backward(q, k, v, g)
    >>> all(np.allclose(a, b) for a, b in zip((dq, dk, dv), dense))
    True

    The log-sum-exp must belong to the same arguments:

    >>> blockwise_attention_backward(q, k, v, z, lse[:4], g)
    Traceback (most recent call last):
    ...
    ValueError: `lse` must have shape (..., n_q) = (5,), one log-sum-exp per query, got shape (4,)
    """  # noqa: E501
    q, k, v, batch = validated_qkv(q, k, v)
    block_size = check_positive_int("block_size", block_size)
    scale = resolve_scale(scale, q.shape[-1])
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    scores_shape = (*batch, n_q, n_k)
    if mask is not None:
        mask = np.broadcast_to(check_mask(mask, scores_shape), scores_shape)
    out_shape = (*batch, n_q, d_v)
    z = as_float_array("output", output)
    if z.shape != out_shape:
        raise ValueError(
            f"`output` must have the output's shape {out_shape}, got shape {z.shape}"
        )
    lse = _log_sum_exp(lse, (*batch, n_q))
    g = as_float_array("grad_output", grad_output)
    if g.shape != out_shape:
        raise ValueError(
            f"`grad_output` must have the output's shape {out_shape}, "
            f"got shape {g.shape}"
        )

    dtype = np.result_type(q, k, v, z, lse, g)
    dq = np.zeros(
        (*batch, n_q, q.shape[-1]), dtype=dtype
    )  # accumulated per query block
    dk = np.zeros((*batch, n_k, k.shape[-1]), dtype=dtype)  # and per key block
    dv = np.zeros((*batch, n_k, d_v), dtype=dtype)
    shapes = f"{q.shape}, {k.shape}, {v.shape} and {g.shape}"
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # V - c and Z - c, c the midpoint of each value column: no overflow
        c = v.min(axis=-2, keepdims=True) / 2 + v.max(axis=-2, keepdims=True) / 2
        v_c = v - c  # (..., n_k, d_v)
        d = np.sum(g * (z - c), axis=-1, keepdims=True)  # D_i: (..., n_q, 1)
        lse_col = lse[..., None]  # (..., n_q, 1)
        for k_start in range(0, n_k, block_size):  # outer loop: key blocks b
            kb = slice(k_start, k_start + block_size)
            k_b, v_b = k[..., kb, :], v_c[..., kb, :]
            for q_start in range(0, n_q, block_size):  # inner loop: query blocks a
                qa = slice(q_start, q_start + block_size)
                keep = True if mask is None else mask[..., qa, kb]
                if mask is not None and not keep.any():
                    continue  # every entry masked: A_ab = 0, the tile adds nothing
                q_a = q[..., qa, :]
                try:
                    s = scaled_products(q_a, k_b, scale)  # S_ab: (..., B_q, B_k)
                except ScoresOverflow as overflow:
                    message = overflow.describe("`q`", "`k`", q.shape, k.shape)
                    raise ValueError(message) from None
                a = s - lse_col[..., qa, :]  # S_ij - lse_i: (..., B_q, B_k)
                np.exp(a, out=a, where=keep)  # A_ij = e^{S_ij - lse_i} where visible
                if mask is not None:
                    np.copyto(a, 0.0, where=~keep)
                if not np.all(np.isfinite(a)):
                    raise ValueError(
                        "`lse` is not the log-sum-exp of the scores of `q` and `k`: "
                        f"a recomputed weight overflows {a.dtype}: shapes {shapes}"
                    )
                g_a = g[..., qa, :]  # dZ_a: (..., B_q, d_v)
                # dV_b += A_ab^T dZ_a: (..., B_k, B_q) @ (..., B_q, d_v)
                dv[..., kb, :] += np.swapaxes(a, -1, -2) @ g_a
                # dA_ab = dZ_a V_b^T: (..., B_q, d_v) @ (..., d_v, B_k)
                da = g_a @ np.swapaxes(v_b, -1, -2)
                ds = a * (da - d[..., qa, :])  # dS_ab = A_ab * (dA_ab - D_a)
                # dQ_a += dS_ab K_b scale: (..., B_q, B_k) @ (..., B_k, d_k)
                dq[..., qa, :] += (ds @ k_b) * scale
                # dK_b += dS_ab^T Q_a scale: (..., B_k, B_q) @ (..., B_q, d_k)
                dk[..., kb, :] += (np.swapaxes(ds, -1, -2) @ q_a) * scale
    for name, grad in (("q", dq), ("k", dk), ("v", dv)):
        if not np.all(np.isfinite(grad)):
            raise ValueError(
                f"the gradient with respect to `{name}` overflows {grad.dtype}: "
                f"shapes {shapes}"
            )
    return (
        sum_to_shape(dq, q.shape, "q", shapes),
        sum_to_shape(dk, k.shape, "k", shapes),
        sum_to_shape(dv, v.shape, "v", shapes),
    )


def blockwise_tile_counts(mask: ArrayLike, *, block_size: int = 128) -> tuple[int, int]:
    r"""Tiles of scores that the blockwise passes compute under ``mask``, and all tiles.

    Parameters
    ----------
    mask : array_like of bool, shape (..., n_q, n_k)
        True where query ``i`` may attend to key ``j``.
    block_size : int, optional
        Queries and keys per tile, as given to :func:`blockwise_attention`
        and :func:`blockwise_attention_backward` (default 128).

    Returns
    -------
    computed : int
        Tiles (``block_size`` queries by ``block_size`` keys) in which the
        mask allows at least one entry, for some batch entry: the tiles whose
        scores :func:`blockwise_attention` (given this mask) and
        :func:`blockwise_attention_backward` compute.
    total : int
        :math:`\lceil n_q / B \rceil \cdot \lceil n_k / B \rceil`, every tile.

    Raises
    ------
    TypeError
        If ``mask`` is not boolean.
    ValueError
        If ``mask`` has fewer than 2 dimensions or ``block_size`` is not a
        positive integer.

    Notes
    -----
    The other tiles are fully masked; they add nothing to the output nor to
    a gradient, and both passes skip them, as FlashAttention-2 skips the
    blocks above the diagonal of a causal mask (Dao, 2023,
    arXiv:2307.08691, Section 3.1.1). With :math:`n = T B` and a causal mask
    :math:`T(T+1)/2` of the :math:`T^2` tiles are computed; with a sliding
    window of :math:`W` keys each block of queries meets about
    :math:`W / B + 1` blocks of keys, so the work grows as :math:`n W`,
    not :math:`n^2`. See the book's pages "Blockwise attention"
    (efficient-attention.md, section "Masks") and "Sliding windows and
    attention sinks" (sliding-window.md, section "skipping-tiles").

    Examples
    --------
    >>> from attention_docs import causal_mask, sliding_window_mask
    >>> blockwise_tile_counts(causal_mask(8), block_size=2)
    (10, 16)
    >>> blockwise_tile_counts(sliding_window_mask(8, window=2), block_size=2)
    (7, 16)
    """
    mask = check_bool("mask", mask)
    block_size = check_positive_int("block_size", block_size)
    if mask.ndim < 2:
        raise ValueError(
            f"`mask` must have shape (..., n_q, n_k), got shape {mask.shape}"
        )
    n_q, n_k = mask.shape[-2:]
    flat = mask.reshape(-1, n_q, n_k).any(axis=0)  # any batch entry
    computed = sum(
        bool(flat[a : a + block_size, b : b + block_size].any())
        for a in range(0, n_q, block_size)
        for b in range(0, n_k, block_size)
    )
    total = -(-n_q // block_size) * -(-n_k // block_size)  # ceil * ceil
    return computed, total
