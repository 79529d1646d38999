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


def scaled_products(q: FloatArray, k: FloatArray, scale: float) -> FloatArray:
    """``(q * scale) @ k^T``, a new array; :class:`ScoresOverflow` if not finite.

    The queries are scaled, not the product: that is ``n_q * d_k``
    multiplications instead of ``n_q * n_k``, no second ``(n_q, n_k)`` array,
    and no overflow reported when only the unscaled product would overflow.
    When ``q * scale`` itself overflows (a ``scale`` above 1), the product is
    scaled instead.
    """
    k_t = np.swapaxes(k, -1, -2)  # (..., n_k, d_k) -> (..., d_k, n_k)
    # float32 queries against float64 keys: scale in float64, not in float32
    q = q.astype(np.result_type(q, k), copy=False)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        q_scaled = q * scale  # Q / sqrt(d_k): (..., n_q, d_k)
        if np.all(np.isfinite(q_scaled)):
            scores = q_scaled @ k_t  # S = (Q / sqrt(d_k)) K^T: (..., n_q, n_k)
        else:
            scores = q @ k_t  # Q K^T, then scaled in place
            scores *= scale
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


def safe_values(v: FloatArray) -> tuple[FloatArray, float]:
    """``v`` and 1, or ``v / 4`` and 4 for values near the dtype's maximum.

    A convex combination of the value rows, computed in floating point, can
    exceed the largest value by a few units in the last place, and its
    partial sums can overflow when the values are within a factor 4 of the
    dtype's maximum. Dividing by 4 is exact (a power of two) and leaves room.
    """
    # initial=0: an empty v (d_v = 0 or an empty batch) has nothing to guard
    if np.max(np.abs(v), initial=0.0) > np.finfo(v.dtype).max / 4:
        return v / 4.0, 4.0
    return v, 1.0


def clipped_output(
    output: FloatArray, v: FloatArray, factor: float, visible: NDArray[np.bool_]
) -> FloatArray:
    """Clip ``output`` (in place) to its columns' range in ``v``, times ``factor``.

    Every component of a convex combination of the rows of ``v`` lies between
    that column's minimum and maximum; rounding may step a few units in the
    last place outside, and this puts it back. Rows that are not ``visible``
    (fully masked, with shape (..., n_q, 1)) stay zero.
    """
    low = v.min(axis=-2, keepdims=True)  # (..., 1, d_v): smallest value per column
    high = v.max(axis=-2, keepdims=True)  # largest value per column
    np.clip(output, low, high, out=output, where=visible)
    if factor != 1.0:
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
