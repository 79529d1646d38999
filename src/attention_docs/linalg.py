r"""The row-vector view of a matrix product.

A row vector times a matrix is a weighted sum of the matrix's rows:

.. math::

    \vec{x} B = \sum_{i=1}^{m} x_i \vec{b}_i,
    \qquad B = \begin{pmatrix} \vec{b}_1 \\ \vdots \\ \vec{b}_m \end{pmatrix} .

This is why the last step of attention, :math:`A V`, mixes the value vectors:
row ``i`` of the output is :math:`\sum_j A_{ij} \vec{v}_j`. The two functions
compute the two sides of the identity, so that they can be compared. The paper
writes vectors as rows too: a query is a row of :math:`Q` in
:math:`Q K^\top` and :math:`Q W^Q_i` (Vaswani et al., 2017, "Attention Is All
You Need", arXiv:1706.03762, Sections 3.2.1 and 3.2.2). The book explains the
identity on its page "Row vectors and matrix products" (linear-algebra.md).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import fitting_product
from ._validation import (
    FloatArray,
    as_float_array,
    check_exact_ndim,
    check_finite_product,
    check_same_size,
)

__all__ = ["row_times_matrix", "weighted_sum_of_rows"]


def _validated(x: ArrayLike, b: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Convert ``x`` (m,) and ``b`` (m, d) and check that they fit."""
    x = as_float_array("x", x)
    b = as_float_array("b", b)
    check_exact_ndim("x", x, 1, "(m,)")
    check_exact_ndim("b", b, 2, "(m, d)")
    check_same_size("m", ("x", x, 0), ("b", b, 0))
    return x, b


def row_times_matrix(x: ArrayLike, b: ArrayLike) -> FloatArray:
    r"""Row vector times matrix, :math:`\vec{x} B`, as one matrix product.

    Parameters
    ----------
    x : array_like, shape (m,)
        The row vector :math:`\vec{x} = (x_1, \dots, x_m)`.
    b : array_like, shape (m, d)
        The matrix :math:`B` with rows :math:`\vec{b}_1, \dots, \vec{b}_m`.

    Returns
    -------
    ndarray, shape (d,)
        :math:`\vec{x} B`; entry ``j`` is :math:`\sum_i x_i b_{ij}` (row of
        ``x`` times column ``j`` of ``b``). Equal to
        :func:`weighted_sum_of_rows` up to rounding.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D, ``b`` is not 2-D or ``len(x) != b.shape[0]`` (the
        message names the argument and gives the shapes); if an input contains
        NaN or infinite values; if the product overflows the floating-point
        type.
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    .. math::

        (\vec{x} B)_j = \sum_{i=1}^{m} x_i b_{ij}, \qquad j = 1, \dots, d .

    The book's page "Row vectors and matrix products" (linear-algebra.md,
    sections "The product rule" and "Worked example"), with
    :math:`\vec{x} = (5, 6)` and :math:`B = \begin{pmatrix} 1 & 2 \\ 3 & 4
    \end{pmatrix}`: :math:`(5 \cdot 1 + 6 \cdot 3, 5 \cdot 2 + 6 \cdot 4) =
    (23, 34)`.

    Examples
    --------
    >>> row_times_matrix([5, 6], [[1, 2], [3, 4]]).tolist()
    [23.0, 34.0]
    """
    x, b = _validated(x, b)
    product = fitting_product(x, b)  # (m,) @ (m, d) -> (d,); see below
    check_finite_product(product, ("x", x), ("b", b))
    return product


def weighted_sum_of_rows(x: ArrayLike, b: ArrayLike) -> FloatArray:
    r"""The weighted sum of the rows of ``b``, :math:`\sum_i x_i \vec{b}_i`.

    Parameters
    ----------
    x : array_like, shape (m,)
        The weights :math:`x_1, \dots, x_m`, one per row of ``b``.
    b : array_like, shape (m, d)
        The matrix whose rows :math:`\vec{b}_i` are added up.

    Returns
    -------
    ndarray, shape (d,)
        :math:`x_1 \vec{b}_1 + \dots + x_m \vec{b}_m`, which equals
        :math:`\vec{x} B` (:func:`row_times_matrix`) up to rounding.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D, ``b`` is not 2-D or ``len(x) != b.shape[0]`` (the
        message names the argument and gives the shapes); if an input contains
        NaN or infinite values; if the sum overflows the floating-point type.
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    .. math::

        \vec{x} B = \sum_{i=1}^{m} x_i \vec{b}_i
                  = x_1 \vec{b}_1 + x_2 \vec{b}_2 + \dots + x_m \vec{b}_m .

    The book's page "Row vectors and matrix products" (linear-algebra.md,
    sections "A weighted sum of rows" and "Worked example"). The sum is computed
    literally, one scaled row at a time, to show the identity; use
    :func:`row_times_matrix` (one matrix product) for real work.

    Examples
    --------
    >>> weighted_sum_of_rows([5, 6], [[1, 2], [3, 4]]).tolist()
    [23.0, 34.0]

    Term by term: :math:`5 (1, 2) + 6 (3, 4) = (5, 10) + (18, 24)`.

    >>> (5 * np.array([1, 2]) + 6 * np.array([3, 4])).tolist()
    [23, 34]
    """
    x, b = _validated(x, b)
    total = _sum_of_rows(x, b)  # (d,)
    if not np.all(np.isfinite(total)):  # a partial sum may have overflowed:
        # the same sum with x / 2**e and each column of b / 2**f (|terms| < 1),
        # then times 2**(e + f); exact unless an entry becomes subnormal
        e = np.frexp(np.max(np.abs(x), initial=0.0))[1]  # x = (x / 2**e) 2**e
        f = np.frexp(np.max(np.abs(b), axis=0, initial=0.0))[1]  # per column
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            scaled = _sum_of_rows(np.ldexp(x, -e), np.ldexp(b, -f))
            total = np.where(np.isfinite(total), total, np.ldexp(scaled, e + f))
    check_finite_product(total, ("x", x), ("b", b))
    return total


def _sum_of_rows(x: FloatArray, b: FloatArray) -> FloatArray:
    """``sum_i x_i b_i``, one row at a time, without warnings (may be ``inf``)."""
    total = np.zeros(b.shape[1], dtype=np.result_type(x, b))  # (d,)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for x_i, b_i in zip(x, b, strict=True):  # one term per row: x_i, b_i (d,)
            total = total + x_i * b_i  # sum_i x_i b_i
    return total
