r"""Gradients of scaled dot-product attention, derived by hand.

For the output :math:`Z = A V` (the book's name for it) with
:math:`A = \operatorname{softmax}(S)` row by row,
:math:`S = Q K^\top / \sqrt{d_k}` (masked scores excluded) and an upstream
gradient :math:`G = \partial L / \partial Z`:

.. math::

    dV = A^\top G, \qquad dA = G V^\top, \qquad
    dS = A \odot \bigl(dA - \operatorname{rowsum}(dA \odot A)\bigr), \qquad
    dQ = \frac{dS\, K}{\sqrt{d_k}}, \qquad dK = \frac{dS^\top Q}{\sqrt{d_k}} .

The formula for :math:`dS` is the Jacobian of the softmax,
:math:`\partial A_{ij} / \partial S_{il} = A_{ij} (\delta_{jl} - A_{il})`,
applied row by row (the book's page "Softmax" (softmax.md, section
"Derivative")). A masked entry has :math:`A_{ij} = 0`, hence
:math:`dS_{ij} = 0`: no gradient reaches a masked score, and a fully masked
row (all-zero weights, zero output) passes no gradient to ``q`` or ``k``.
Vaswani et al., 2017, "Attention Is All You Need" (arXiv:1706.03762),
Section 3.2.1, defines the forward formula; the backward formulas are the
chain rule, in the form Dao et al., 2022, "FlashAttention" (arXiv:2205.14135),
Appendix B.2, writes them. The book's page "Backpropagation"
(backpropagation.md) derives each of them entry by entry and checks them
against central finite differences.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import ScoresOverflow, fitting_product
from ._validation import (
    FloatArray,
    as_float_array,
    check_mask,
    resolve_scale,
    sum_to_shape,
    validated_qkv,
)
from .attention import attention_kernel

__all__ = ["scaled_dot_product_attention_backward"]


def _ds_centred(
    a: FloatArray, g: FloatArray, v: FloatArray, output: FloatArray
) -> FloatArray:
    """dS in the form of FlashAttention, for values near the float maximum.

    dS = A * (dA - D) with D_i = rowsum(dA * A)_i = g_i . o_i (no product
    dA * A), and both dA and D taken for the values minus the midpoint c of
    each column: dA - D is unchanged (a row of weights sums to 1), and
    V - c cannot overflow. Call inside ``np.errstate``.
    """
    low = v.min(axis=-2, keepdims=True)  # (..., 1, d_v)
    c = low / 2 + v.max(axis=-2, keepdims=True) / 2  # the midpoint, no overflow
    da = g @ np.swapaxes(v - c, -1, -2)  # dA = G (V - c)^T: (..., n_q, n_k)
    d = np.sum(g * (output - c), axis=-1, keepdims=True)  # D: (..., n_q, 1)
    # a fully masked row has A = 0 (and a zero output): dS = 0 there
    return np.where(a > 0, a * (da - d), 0.0)  # dS: (..., n_q, n_k)


def scaled_dot_product_attention_backward(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    grad_output: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Gradients of a loss with respect to ``q``, ``k`` and ``v``.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries, as passed to
        :func:`~attention_docs.attention.scaled_dot_product_attention`.
    k : array_like, shape (..., n_k, d_k)
        Keys.
    v : array_like, shape (..., n_k, d_v)
        Values.
    grad_output : array_like, shape (..., n_q, d_v)
        :math:`G = \partial L / \partial Z`, the gradient of the loss with
        respect to the attention output; its shape is the output's (the
        batch dimensions of ``q``, ``k``, ``v`` and ``mask`` broadcast).
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``. Default: no mask.
    scale : float, optional
        Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.

    Returns
    -------
    dq : ndarray, shape of ``q``
        :math:`\partial L / \partial Q = \text{scale} \cdot dS\, K`.
    dk : ndarray, shape of ``k``
        :math:`\partial L / \partial K = \text{scale} \cdot dS^\top Q`.
    dv : ndarray, shape of ``v``
        :math:`\partial L / \partial V = A^\top G`.

    Each gradient has the shape of its argument: where an argument was
    broadcast over batch dimensions, its gradient is summed over them.

    Raises
    ------
    ValueError
        For every reason of ``scaled_dot_product_attention``; if
        ``grad_output`` does not have the output's shape (the message gives
        both shapes) or contains NaN or infinite values; if a gradient
        overflows the floating-point type (it is never returned as ``inf``).
    TypeError
        If ``mask`` is not boolean, or an argument does not hold real numbers
        or is a numpy masked array.

    Notes
    -----
    .. math::

        dV = A^\top G, \quad dA = G V^\top, \quad
        dS = A \odot \bigl(dA - \operatorname{rowsum}(dA \odot A)\bigr), \quad
        dQ = \text{scale}\cdot dS\, K, \quad dK = \text{scale}\cdot dS^\top Q .

    See the module's docstring for the derivation and its sources. When an
    intermediate of that formula overflows (values near the largest float,
    where :math:`G V^\top` does not fit), the function computes :math:`dS`
    in the form of Dao et al. (2022), Appendix B.2,
    :math:`dS = A \odot (dA - D)` with
    :math:`D = \operatorname{rowsum}(G \odot O)` (:math:`O` the output),
    taking :math:`dA` and :math:`D` for the values minus the midpoint of each
    column: since every row of :math:`A` sums to 1, subtracting the same row
    from every value row changes :math:`dA - D` by nothing, and no
    intermediate overflows (identical value rows then give
    :math:`dQ = dK = 0` exactly). An overflow is reported only when a
    gradient itself does not fit.

    Empty dimensions are kept, as in the forward function: an empty batch,
    ``n_q = 0`` or ``d_v = 0`` give gradients of the arguments' (empty or
    zero) shapes.

    Examples
    --------
    The gradient of :math:`L = \sum Z` (so :math:`G` is all ones), checked
    against a central finite difference in one entry of ``q``:

    >>> from attention_docs import scaled_dot_product_attention as attention
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 4, 2))
    >>> g = np.ones((4, 2))
    >>> dq, dk, dv = scaled_dot_product_attention_backward(q, k, v, g)
    >>> dq.shape, dk.shape, dv.shape
    ((4, 2), (4, 2), (4, 2))
    >>> h = 1e-6
    >>> q_plus, q_minus = q.copy(), q.copy()
    >>> q_plus[1, 0] += h
    >>> q_minus[1, 0] -= h
    >>> def loss(q):
    ...     return attention(q, k, v).sum()
    >>> numeric = (loss(q_plus) - loss(q_minus)) / (2 * h)
    >>> bool(np.isclose(dq[1, 0], numeric, rtol=1e-6, atol=1e-9))
    True

    With :math:`G` all ones, :math:`dV = A^\top G` has in every column the
    total weight each key receives, :math:`\sum_i A_{ij}`:

    >>> _, a = attention(q, k, v, return_weights=True)
    >>> bool(np.allclose(dv[:, 0], a.sum(axis=0)))
    True
    """
    q, k, v, batch = validated_qkv(q, k, v)
    scale = resolve_scale(scale, q.shape[-1])
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = check_mask(mask, (*batch, n_q, n_k))
    try:
        output, a = attention_kernel(q, k, v, scale, mask)  # A: (..., n_q, n_k)
    except ScoresOverflow as overflow:
        raise ValueError(overflow.describe("`q`", "`k`", q.shape, k.shape)) from None
    g = as_float_array("grad_output", grad_output)
    if g.shape != output.shape:
        raise ValueError(
            f"`grad_output` must have the output's shape {output.shape}, "
            f"got shape {g.shape}"
        )
    # each product is recomputed at a smaller scale where a partial sum overflows
    dv = fitting_product(np.swapaxes(a, -1, -2), g)  # dV = A^T G: (..., n_k, d_v)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        da = g @ np.swapaxes(v, -1, -2)  # dA = G V^T: (..., n_q, n_k)
        # dS = A * (dA - rowsum(dA * A)); 0 where A = 0 (masked entries)
        ds = a * (da - np.sum(da * a, axis=-1, keepdims=True))
        if not np.all(np.isfinite(ds)):  # an intermediate overflowed: values
            ds = _ds_centred(a, g, v, output)  # near the float maximum
    dq = fitting_product(ds, k, scale)  # dQ = dS K / sqrt(d_k): (..., n_q, d_k)
    dk = fitting_product(np.swapaxes(ds, -1, -2), q, scale)  # dS^T Q / sqrt(d_k)
    for name, grad in (("q", dq), ("k", dk), ("v", dv)):
        if not np.all(np.isfinite(grad)):
            raise ValueError(
                f"the gradient with respect to `{name}` overflows {grad.dtype}: "
                f"shapes {q.shape}, {k.shape}, {v.shape} and {g.shape}"
            )
    shapes = f"{q.shape}, {k.shape}, {v.shape} and {g.shape}"
    return (
        sum_to_shape(dq, q.shape, "q", shapes),
        sum_to_shape(dk, k.shape, "k", shapes),
        sum_to_shape(dv, v.shape, "v", shapes),
    )
