r"""Softmax along one axis, with and without a boolean mask.

The softmax turns a row of scores into weights that are non-negative and sum to
1. Attention applies it to every row of the scores
:math:`Q K^\top / \sqrt{d_k}` (Vaswani et al., 2017, "Attention Is All You
Need", arXiv:1706.03762, Section 3.2.1). See the book's page "Softmax"
(softmax.md).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import softmax_rows
from ._validation import BoolArray, FloatArray, as_float_array, check_mask

__all__ = ["masked_softmax", "softmax"]


def _check_axis(x: FloatArray, axis: int) -> int:
    """Return ``axis`` as a non-negative index; ValueError if out of range or empty.

    TypeError unless ``axis`` is an integer: ``True`` would silently mean 1,
    and numpy would read ``None`` as "all axes", which is not a softmax along
    one axis.
    """
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"`axis` must be an integer, got {axis!r}")
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"`axis`={axis} is out of range for `x` with shape {x.shape}")
    axis %= x.ndim
    if x.shape[axis] == 0:
        raise ValueError(f"`x` has no entries along axis {axis}: shape {x.shape}")
    return axis


def _softmax_along(x: FloatArray, mask: BoolArray | None, axis: int) -> FloatArray:
    """Softmax of a copy of ``x`` along ``axis``: the rows of that axis, in place."""
    rows = np.moveaxis(x, axis, -1).copy()  # a new array, ``axis`` last
    if mask is not None:
        mask = np.moveaxis(mask, axis, -1)
    rows, _ = softmax_rows(rows, mask)  # in place: the same array
    return np.moveaxis(rows, -1, axis)


def softmax(x: ArrayLike, axis: int = -1) -> FloatArray:
    r"""Softmax of ``x`` along ``axis``, computed without overflow.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Finite real scores. Integers and bools are converted to float64, float16
        to float32.
    axis : int, optional
        Axis along which the entries are normalised (default: the last one).

    Returns
    -------
    ndarray, same shape as ``x``
        Entries in :math:`[0, 1]` that sum to 1 along ``axis``. float32 input gives
        float32 output; everything else gives float64.

    Raises
    ------
    ValueError
        If ``x`` contains NaN or infinite values (use :func:`masked_softmax` to
        exclude entries), if ``axis`` is out of range, or if ``x`` has no
        entries along ``axis`` (the message gives the shape of ``x``).
    TypeError
        If ``x`` does not hold real numbers (complex, strings, objects) or is
        a numpy masked array; if ``axis`` is not an integer (``True``, ``1.5``,
        ``None`` and strings are refused).

    See Also
    --------
    masked_softmax : the same with a boolean mask (True = keep).

    Notes
    -----
    .. math::

        \operatorname{softmax}(x)_j = \frac{e^{x_j}}{\sum_p e^{x_p}}
                                    = \frac{e^{x_j - m}}{\sum_p e^{x_p - m}},
        \qquad m = \max_p x_p .

    Both fractions are equal (multiply numerator and denominator by
    :math:`e^{-m}`), but the second one never overflows: every exponent is
    :math:`\le 0`, so every term is in :math:`(0, 1]` and the denominator is at
    least 1. This max-shift trick is the standard way to evaluate the softmax:
    ``scipy.special.softmax`` does the same, and Goodfellow, Bengio and
    Courville, *Deep Learning* (MIT Press, 2016), Section 4.1, explain it. The
    softmax is therefore invariant to adding a constant to every entry. See
    the book's page "Softmax" (softmax.md, sections "Definition", "Row-wise"
    and "Numerical stability").

    Examples
    --------
    >>> import numpy as np
    >>> w = softmax([1.0, 2.0, 3.0])
    >>> np.round(w, 4).tolist()
    [0.09, 0.2447, 0.6652]
    >>> print(np.round(w.sum(), 12))
    1.0

    Scores far too large for ``np.exp`` are no problem, and adding a constant to
    a row changes nothing:

    >>> softmax([1000.0, 1000.0]).tolist()
    [0.5, 0.5]
    >>> bool(np.allclose(softmax([1.0, 2.0, 3.0]), softmax([101.0, 102.0, 103.0])))
    True

    Along the last axis of a matrix, every row sums to 1; float32 stays float32:

    >>> x = np.array([[0.0, 0.0], [0.0, np.log(3.0)]], dtype=np.float32)
    >>> w = softmax(x)
    >>> w.dtype
    dtype('float32')
    >>> np.round(w, 2).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    x = as_float_array("x", x)
    axis = _check_axis(x, axis)
    return _softmax_along(x, None, axis)


def masked_softmax(x: ArrayLike, mask: ArrayLike, axis: int = -1) -> FloatArray:
    r"""Softmax of ``x`` along ``axis`` over the entries where ``mask`` is True.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Finite real scores.
    mask : array_like of bool, broadcastable to ``x.shape``
        True = keep (may attend), False = masked out.
    axis : int, optional
        Axis along which the entries are normalised (default: the last one).

    Returns
    -------
    ndarray, same shape as ``x``
        Masked entries are exactly 0. Along ``axis``, the kept entries sum to 1;
        a slice with no True entry (a fully masked row) is all zeros, never NaN
        and never a uniform average. float32 input gives float32 output.

    Raises
    ------
    TypeError
        If ``mask`` is not boolean (0/1 integers are refused, because the
        polarity would be ambiguous), if ``x`` does not hold real numbers, if
        ``x`` or ``mask`` is a numpy masked array, or if ``axis`` is not an
        integer.
    ValueError
        If ``mask`` does not broadcast to ``x.shape`` (the message gives both
        shapes); if ``x`` contains NaN or infinite values (mask a score with
        ``mask``, never with ``-inf``); if ``axis`` is out of range or ``x`` is
        empty along it.

    See Also
    --------
    softmax : the unmasked softmax.

    Notes
    -----
    Masked scores are replaced by :math:`-\infty` before the softmax
    (Vaswani et al., 2017, arXiv:1706.03762, Section 3.2.3 and Figure 2, the
    optional "Mask" step), so that :math:`e^{-\infty} = 0`:

    .. math::

        \operatorname{softmax}_M(x)_j =
            \frac{M_j \, e^{x_j - m}}{\sum_p M_p \, e^{x_p - m}},
        \qquad m = \max_{p : M_p} x_p ,

    with the max-shift trick of :func:`softmax` taken over the kept entries only.
    When no entry is kept the denominator is 0 and ``0 / 0`` would be NaN; this
    function returns 0 for that row instead, as current PyTorch's
    ``torch.nn.functional.scaled_dot_product_attention`` does for a fully
    masked row. See the book's page "Masks" (masks.md, sections "Boolean
    masks" and "Fully masked rows").

    Examples
    --------
    >>> import numpy as np
    >>> x = np.zeros((3, 3))
    >>> mask = np.array([[True, True, True],
    ...                  [True, False, True],
    ...                  [False, False, False]])
    >>> np.round(masked_softmax(x, mask), 4).tolist()
    [[0.3333, 0.3333, 0.3333], [0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    >>> masked_softmax(x, mask).sum(axis=-1).tolist()
    [1.0, 1.0, 0.0]
    """
    x = as_float_array("x", x)
    mask = np.broadcast_to(check_mask(mask, x.shape), x.shape)
    axis = _check_axis(x, axis)
    return _softmax_along(x, mask, axis)
