r"""The book's running example: three tokens, :math:`d_{\text{model}} = 4`.

One small example is carried through the book, from the input :math:`X` to the
output of attention, so that every step can be computed by hand and compared
with the package (the book's pages "Query, key and value"
(query-key-value.md), "Scaled dot-product attention" (scaled-dot-product.md),
"Masks" (masks.md), "Self-attention" (self-attention.md) and "Multi-head
attention" (multi-head.md)).

The numbers are chosen to be readable: every entry of :math:`X`, :math:`W_Q`,
:math:`W_K` and :math:`W_V` is 0 or 1, and :math:`d_k = d_v = 4`, so that
:math:`\sqrt{d_k} = 2`. The raw scores :math:`Q K^\top` are

.. math::

    Q K^\top = \begin{pmatrix} 1 & 2 & 1 \\ 1 & 1 & 2 \\ 2 & 1 & 1 \end{pmatrix},

so each token gives its largest score to the next one (the third to the
first), and every row of the attention weights is a permutation of
:math:`\operatorname{softmax}(0.5, 1, 0.5) \approx (0.274, 0.452, 0.274)`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validation import FloatArray

__all__ = ["RunningExample", "running_example"]


class RunningExample(NamedTuple):
    """The input and the three projection matrices of the running example."""

    #: The input :math:`X`, shape (3, 4): one token per row.
    x: FloatArray
    #: The query projection :math:`W_Q`, shape (4, 4).
    w_q: FloatArray
    #: The key projection :math:`W_K`, shape (4, 4).
    w_k: FloatArray
    #: The value projection :math:`W_V`, shape (4, 4).
    w_v: FloatArray


def running_example() -> RunningExample:
    r"""The book's running example, as new float64 arrays.

    Returns
    -------
    RunningExample
        A named tuple ``(x, w_q, w_k, w_v)``: the input ``x`` of shape
        ``(n, d_model) = (3, 4)`` (row vectors, one token per row) and the
        projections ``w_q``, ``w_k``, ``w_v`` of shape
        ``(d_model, d_k) = (4, 4)``. Each call returns new arrays, so a caller
        may change them freely.

    Notes
    -----
    With :math:`Q = X W_Q`, :math:`K = X W_K`, :math:`V = X W_V` (the
    row-vector convention of Vaswani et al., 2017, "Attention Is All You
    Need", section 3.2), the scaled scores are
    :math:`S = Q K^\top / \sqrt{4}`, whose rows are permutations of
    :math:`(0.5, 1, 0.5)`.

    Examples
    --------
    >>> x, w_q, w_k, w_v = running_example()
    >>> print(x)
    [[1. 0. 1. 0.]
     [0. 1. 0. 1.]
     [1. 1. 0. 0.]]
    >>> print(x @ w_q @ (x @ w_k).T)
    [[1. 2. 1.]
     [1. 1. 2.]
     [2. 1. 1.]]
    """
    x = np.array(
        [
            [1, 0, 1, 0],
            [0, 1, 0, 1],
            [1, 1, 0, 0],
        ],
        dtype=np.float64,
    )
    w_q = np.array(
        [
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 1, 0],
        ],
        dtype=np.float64,
    )
    w_k = np.array(
        [
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            [1, 0, 0, 0],
            [1, 0, 0, 1],
        ],
        dtype=np.float64,
    )
    w_v = np.array(
        [
            [1, 0, 0, 0],
            [0, 0, 1, 0],
            [0, 1, 0, 0],
            [0, 0, 0, 1],
        ],
        dtype=np.float64,
    )
    return RunningExample(x, w_q, w_k, w_v)
