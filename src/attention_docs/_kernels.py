r"""Numerical kernels shared by the modules of :mod:`attention_docs` (private).

The public functions check their arguments with :mod:`._validation`, then
compute with the functions of this module, which trust their arguments
(checked, finite float arrays of fitting shapes) and check nothing but their
own results. What lives here is what more than one formula needs, together
with the numerical care that the book's pages leave out:

- :func:`scaled_products`: the scores :math:`S = (Q \cdot \text{scale})
  K^\top`, the one finiteness check of :math:`S`, and :class:`ScoresOverflow`
  when it fails;
- :func:`softmax_rows`: the (masked) softmax of every row of the scores, in
  their own array;
- :func:`weighted_values`: :math:`A V`, each row a convex combination of the
  value rows that stays within their range, also for values near the
  dtype's maximum (:func:`safe_values` and :func:`clipped_output`, which
  blockwise attention also uses directly).

So each public module can write its formula in a few lines (for scaled
dot-product attention, :func:`attention_docs.attention.attention_kernel`).
Nothing here knows the names of the caller's arguments: an overflow of the
scores raises :class:`ScoresOverflow`, and the public function that called
turns it into a ``ValueError`` naming its own arguments and shapes.

The names here have no leading underscore because the module itself is
private: the public modules import them openly, and no module imports a
private name of another (tests/unit/test_package_layout.py checks that).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._validation import BoolArray, FloatArray


class ScoresOverflow(ArithmeticError):
    """The scores overflowed their dtype; internal, never seen by a caller.

    Raised by :func:`scaled_products`. The public function that computed the
    scores catches it and raises ``ValueError(overflow.describe(...)) from
    None``, with the names and shapes of its own arguments.
    """

    def __init__(self, dtype: np.dtype[Any], scale: float) -> None:
        super().__init__(dtype, scale)
        self.dtype = dtype  # the dtype of the scores
        self.scale = scale

    def describe(
        self,
        q_name: str,
        k_name: str,
        q_shape: tuple[int, ...],
        k_shape: tuple[int, ...],
    ) -> str:
        """The error message, naming the caller's queries and keys and their shapes.

        ``q_name`` and ``k_name`` are written as the message shows them, e.g.
        ``"`q`"`` or ``"(`x` @ `w_q`)"``.
        """
        return (
            f"the scores {q_name} @ {k_name}^T * scale overflow {self.dtype}: "
            f"shapes {q_shape} and {k_shape}, scale={self.scale!r}"
        )


def power_of_two(x: FloatArray, axis: int) -> NDArray[np.intc]:
    """The power of two ``e`` of the largest ``|x|`` along ``axis`` (kept as 1).

    ``x * 2**-e`` has entries of magnitude below 1 along that axis; an
    all-zero (or empty) slice gives ``e = 0``.
    """
    top = np.max(np.abs(x), axis=axis, keepdims=True, initial=0.0)
    return np.frexp(top)[1]  # top = f * 2**e with f in [0.5, 1)


def rescaled_product(
    a: FloatArray,
    b: FloatArray,
    factor: float = 1.0,
    bias: FloatArray | None = None,
) -> FloatArray:
    """``(a @ b) * factor + bias`` with every partial sum scaled into range.

    Each row of ``a`` and each column of ``b`` is divided by a power of two
    that brings its largest entry below 1 (exact, unless an entry far below
    the largest becomes subnormal: its contribution is then rounded to
    about the last digit of the partial sums), so no partial sum of the
    product overflows; ``factor`` and ``bias`` join the sum at that scale,
    and the result is multiplied back by the powers of two. An entry is
    infinite only where the result itself exceeds the largest float, or
    where the terms :math:`a_{ip} b_{pj}` themselves do (then their
    rounding errors alone may not fit). The retry of
    :func:`fitting_product`; call inside ``np.errstate``.
    """
    dtype = np.result_type(a, b, *(() if bias is None else (bias,)))
    a = a.astype(dtype, copy=False)
    b = b.astype(dtype, copy=False)
    e_a = power_of_two(a, -1)  # per row of a: (..., m, 1), or (1,) for a vector
    e_b = power_of_two(b, -2 if b.ndim > 1 else -1)  # per column: (..., 1, n)
    core = np.ldexp(a, -e_a) @ np.ldexp(b, -e_b)  # |partial sums| <= k
    if b.ndim == 1 and a.ndim > 1:
        e_a = e_a[..., 0]  # the product has no column axis: (..., m)
    if a.ndim == 1 and b.ndim > 1:
        e_b = e_b[..., 0, :]  # the product has no row axis: (..., n)
    mantissa, exponent = math.frexp(factor)  # factor = mantissa * 2**exponent
    core *= mantissa
    shift = e_a + e_b + exponent  # the product is core * 2**shift
    if bias is not None:
        core = core + np.ldexp(bias, -shift)
    return np.ldexp(core, shift)


def fitting_product(
    a: FloatArray,
    b: FloatArray,
    factor: float = 1.0,
    bias: FloatArray | None = None,
) -> FloatArray:
    """``(a @ b) * factor + bias``, infinite only where the result does not fit.

    Computed as written; where an entry is not finite (a partial sum of
    the product overflowed, although the result may fit), it is computed
    again by :func:`rescaled_product`. The caller checks the result
    (``check_finite_product``); no warning is raised on the way.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        result = a @ b
        if factor != 1.0:
            result *= factor
        if bias is not None:
            result = result + bias
        if np.all(np.isfinite(result)):  # the usual case: one product
            return result
        retry = rescaled_product(a, b, factor, bias)
        return np.where(np.isfinite(result), result, retry)


def scaled_products(q: FloatArray, k: FloatArray, scale: float) -> FloatArray:
    """``(q * scale) @ k^T``, a new array; :class:`ScoresOverflow` if not finite.

    The queries are scaled, not the product: that is ``n_q * d_k``
    multiplications instead of ``n_q * n_k``, no second ``(n_q, n_k)`` array,
    and no overflow reported when only the unscaled product would overflow.
    When scaling first would lose digits (an entry of ``q * scale``
    overflows, or a nonzero one falls below the smallest normal float and
    keeps fewer digits or none), the product is scaled instead. Where a
    partial sum of the product overflows, the entry is computed again with
    :func:`rescaled_product`: only scores that do not fit are an error.
    """
    k_t = np.swapaxes(k, -1, -2)  # (..., n_k, d_k) -> (..., d_k, n_k)
    # float32 queries against float64 keys: scale in float64, not in float32
    q = q.astype(np.result_type(q, k), copy=False)
    tiny = np.finfo(q.dtype).tiny  # the smallest normal float
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        q_scaled = q * scale  # Q / sqrt(d_k): (..., n_q, d_k)
        lost = (np.abs(q_scaled) < tiny) & (q != 0)  # subnormal or 0: digits lost
        if np.all(np.isfinite(q_scaled)) and not np.any(lost):
            scores = q_scaled @ k_t  # S = (Q / sqrt(d_k)) K^T: (..., n_q, n_k)
        else:
            scores = q @ k_t  # Q K^T, then scaled in place
            scores *= scale
        if not np.all(np.isfinite(scores)):  # a partial sum may have overflowed
            retry = rescaled_product(q, k_t, scale)
            scores = np.where(np.isfinite(scores), scores, retry)
    if not np.all(np.isfinite(scores)):  # the one finiteness check of S
        raise ScoresOverflow(scores.dtype, scale)
    return scores


def softmax_rows(
    scores: FloatArray, mask: BoolArray | None
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Softmax of every row (last axis) of finite ``scores``, in place.

    Returns the weights and, with shape (..., n_q, 1), the rows that had at
    least one visible key. The weights are ``scores`` itself, unless ``mask``
    has batch dimensions that ``scores`` lacks (a mask with dimensions only
    the values have): then a copy broadcast to them. Masked entries (``mask``
    False) get weight exactly 0; a row with no visible key is all zeros.
    """
    if mask is not None:
        shape = np.broadcast_shapes(scores.shape, mask.shape)
        if shape != scores.shape:  # the mask has batch dimensions only v has
            scores = np.broadcast_to(scores, shape).copy()
    keep = True if mask is None else mask  # where the softmax looks
    with np.errstate(over="ignore", under="ignore"):  # exp and shifts: no warnings
        # m_i, the row maximum over the visible keys; -inf if there is none
        row_max = np.max(scores, axis=-1, keepdims=True, where=keep, initial=-np.inf)
        visible = row_max > -np.inf  # False for a fully masked row
        np.copyto(row_max, 0.0, where=~visible)  # there m = 0 (any finite value)
        scores -= row_max  # s_ij - m_i <= 0 where visible
        # e^{s_ij - m_i}, in [0, 1], then A_ij = 0 where masked. Masked
        # entries are not set to -inf first: np.exp(-inf) is a slow path.
        np.exp(scores, out=scores, where=keep)
        if mask is not None:
            np.copyto(scores, 0.0, where=~mask)
        total = scores.sum(axis=-1, keepdims=True)  # >= 1, or 0 if fully masked
        np.copyto(total, 1.0, where=~visible)  # 0 / 1 = 0 for a fully masked row
        scores /= total  # A_ij = e^{s_ij - m_i} / sum_p e^{s_ip - m_i}
    return scores, visible


def safe_values(v: FloatArray) -> tuple[FloatArray, FloatArray | float]:
    """``v`` and 1, or ``v`` with its columns near the maximum divided by 4, and 4s.

    A convex combination of the value rows, computed in floating point, can
    exceed the largest value by a few units in the last place, and its
    partial sums can overflow when the values are within a factor 4 of the
    dtype's maximum. Dividing such a column by 4 leaves room; it is exact
    for every normal float (a power of two), and an entry of that column
    below 4 times the smallest normal float loses at most its last two bits
    (about 1e-323 in float64, next to values near 1e308). The factors have
    the shape (..., 1, d_v) of a row of ``v``; the other columns keep 1.
    """
    # initial=0: an empty v (d_v = 0 or an empty batch) has nothing to guard
    top = np.max(np.abs(v), axis=-2, keepdims=True, initial=0.0)  # (..., 1, d_v)
    near = top > np.finfo(v.dtype).max / 4
    if not np.any(near):
        return v, 1.0
    factor = np.where(near, 4.0, 1.0).astype(v.dtype)  # 4 or 1 per column
    with np.errstate(under="ignore"):  # tiny entries of such a column: rounding
        return v / factor, factor


def clipped_output(
    output: FloatArray,
    v: FloatArray,
    factor: FloatArray | float,
    visible: NDArray[np.bool_],
) -> FloatArray:
    """Clip ``output`` (in place) to its columns' range in ``v``, times ``factor``.

    Every component of a convex combination of the rows of ``v`` lies between
    that column's minimum and maximum; rounding may step a few units in the
    last place outside, and this puts it back. Rows that are not ``visible``
    (fully masked, with shape (..., n_q, 1)) stay zero. ``v`` and ``factor``
    are what :func:`safe_values` returned.
    """
    low = v.min(axis=-2, keepdims=True)  # (..., 1, d_v): smallest value per column
    high = v.max(axis=-2, keepdims=True)  # largest value per column
    np.clip(output, low, high, out=output, where=visible)
    if not isinstance(factor, float):
        output *= factor  # back from v / 4: exact, and at most max|v|
    return output


def weighted_values(
    weights: FloatArray, v: FloatArray, visible: NDArray[np.bool_]
) -> FloatArray:
    """``weights @ v`` (rows of ``weights`` sum to 1 or are 0), never ``inf``.

    Each output row is a convex combination of the rows of ``v``, so it stays
    within the range of the values, as :func:`safe_values` and
    :func:`clipped_output` ensure. ``visible`` is what :func:`softmax_rows`
    returned with ``weights``.
    """
    v, factor = safe_values(v)
    with np.errstate(under="ignore"):
        output = weights @ v  # A V: (..., n_q, n_k) @ (..., n_k, d_v)
    return clipped_output(output, v, factor, visible)


def with_batch(weights: FloatArray, batch: tuple[int, ...]) -> FloatArray:
    """``weights`` (..., n_q, n_k) with the batch dimensions ``batch`` of the output.

    The weights of :func:`softmax_rows` have the batch dimensions of the
    scores (those of ``q``, ``k`` and the mask); the values ``v`` may add
    some. Then each row of weights serves every copy of the values, and the
    weights returned to a caller are copied along those dimensions, so that
    their batch dimensions are those of the output. Otherwise ``weights``
    itself is returned.
    """
    shape = (*batch, *weights.shape[-2:])
    if weights.shape == shape:
        return weights
    return np.broadcast_to(weights, shape).copy()  # (..., n_q, n_k) -> (*batch, ...)
