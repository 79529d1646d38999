r"""Self-attention: queries, keys and values are projections of the same input.

.. math::

    Q = X W_Q, \quad K = X W_K, \quad V = X W_V, \qquad
    \operatorname{SelfAttention}(X)
        = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

(Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
Sections 3.2.1 and 3.2.3). Row-vector convention, as in the paper: ``X`` has
shape ``(n, d_model)`` and ``W_Q`` shape ``(d_model, d_k)``, so that each
token's row is multiplied on the right (the book's page "Notation and
conventions" (notation.md, section "Row vectors")). See the book's pages
"Query, key and value" (query-key-value.md, section "Projections") and
"Self-attention" (self-attention.md).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import ScoresOverflow, fitting_product
from ._validation import (
    FloatArray,
    as_float_array,
    as_projection,
    check_finite_product,
    check_mask,
    check_ndim,
    check_same_size,
    resolve_scale,
)
from .attention import attention_kernel

__all__ = ["project_qkv", "self_attention"]


def project_qkv(
    x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, w_v: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Project the input rows to queries, keys and values.

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
        Input sequence, one row (token embedding) per position.
    w_q : array_like, shape (d_model, d_k)
        Query projection :math:`W_Q`.
    w_k : array_like, shape (d_model, d_k)
        Key projection :math:`W_K`.
    w_v : array_like, shape (d_model, d_v)
        Value projection :math:`W_V`.

    Returns
    -------
    q : ndarray, shape (..., n, d_k)
        :math:`Q = X W_Q`.
    k : ndarray, shape (..., n, d_k)
        :math:`K = X W_K`.
    v : ndarray, shape (..., n, d_v)
        :math:`V = X W_V`. Row ``i`` of each depends only on row ``i`` of ``x``.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions; if a weight matrix is not 2-D or
        its number of rows differs from ``d_model`` (the last dimension of
        ``x``); if ``w_q`` and ``w_k`` have different numbers of columns
        (``d_k``); each message names the arguments and gives both shapes. If
        an input contains NaN or infinite values. If a projection overflows
        the floating-point type (it is never returned as ``inf``).
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    .. math::

        Q = X W_Q, \qquad K = X W_K, \qquad V = X W_V .

    Vaswani et al. (2017), Section 3.2.2 (the projections :math:`W^Q_i, W^K_i,
    W^V_i`); the book's page "Query, key and value" (query-key-value.md,
    sections "Roles" and "Projections"). The same input is mapped into three
    different spaces: what a token looks for (Q), how it can be found (K) and
    what it passes on (V).

    Examples
    --------
    >>> x = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    >>> w_q = [[1.0], [0.0]]
    >>> w_k = [[0.0], [1.0]]
    >>> w_v = [[1.0, 2.0], [3.0, 4.0]]
    >>> q, k, v = project_qkv(x, w_q, w_k, w_v)
    >>> q.tolist(), k.tolist()
    ([[1.0], [0.0], [1.0]], [[0.0], [1.0], [1.0]])
    >>> v.tolist()
    [[1.0, 2.0], [3.0, 4.0], [4.0, 6.0]]
    """
    x = as_float_array("x", x)
    check_ndim("x", x, 2, "(..., n, d_model)")
    w_q = as_projection("w_q", w_q, "(d_model, d_k)", "x", x)
    w_k = as_projection("w_k", w_k, "(d_model, d_k)", "x", x)
    w_v = as_projection("w_v", w_v, "(d_model, d_v)", "x", x)
    check_same_size("d_k", ("w_q", w_q, 1), ("w_k", w_k, 1))
    # computed again at a smaller scale where a partial sum overflows (see below)
    q = fitting_product(x, w_q)  # Q = X W_Q: (..., n, d_model) @ (d_model, d_k)
    k = fitting_product(x, w_k)  # K = X W_K: (..., n, d_model) @ (d_model, d_k)
    v = fitting_product(x, w_v)  # V = X W_V: (..., n, d_model) @ (d_model, d_v)
    check_finite_product(q, ("x", x), ("w_q", w_q))
    check_finite_product(k, ("x", x), ("w_k", w_k))
    check_finite_product(v, ("x", x), ("w_v", w_v))
    return q, k, v


def self_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> FloatArray:
    r"""Single-head self-attention of a sequence with itself.

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
        Input sequence, one row per position.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key projections.
    w_v : array_like, shape (d_model, d_v)
        Value projection.
    mask : array_like of bool, broadcastable to (..., n, n), optional
        True where position ``i`` may attend to position ``j`` (e.g.
        :func:`~attention_docs.masks.causal_mask`). Default: no mask.
    scale : float, optional
        Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.

    Returns
    -------
    ndarray, shape (..., n, d_v)
        Row ``i`` is a convex combination of the value rows :math:`x_j W_V`
        (a zero row if position ``i`` is fully masked). Without a mask the map
        is permutation-equivariant: permuting the rows of ``x`` permutes the
        rows of the output in the same way. The map itself knows no positions;
        order enters only through ``x`` (a positional encoding added to it) or
        through a position-dependent mask such as a causal one, and either
        breaks the equivariance in general.

    Raises
    ------
    ValueError
        For every reason of :func:`project_qkv` and of
        :func:`~attention_docs.attention.scaled_dot_product_attention`: ``x``
        has no rows (n = 0: no keys), ``w_q`` and ``w_k`` have no columns
        (d_k = 0), ``mask``
        does not broadcast to (..., n, n), ``scale`` is not a positive finite
        number, or the scores overflow the floating-point type (the message
        names ``x``, ``w_q`` and ``w_k`` and gives the shape of ``x``).
    TypeError
        If ``mask`` is not boolean, an input does not hold real numbers, or an
        input is a numpy masked array.

    Notes
    -----
    .. math::

        \operatorname{SelfAttention}(X) =
            \operatorname{softmax}\!\left(
                \frac{(X W_Q)(X W_K)^\top}{\sqrt{d_k}}\right) X W_V .

    Vaswani et al. (2017), Sections 3.2.1 and 3.2.3 (self-attention layers).
    The scale is :math:`1/\sqrt{d_k}` with :math:`d_k` the number of columns
    of ``W_K`` (the width of the queries and keys), not ``d_model``. See the
    book's page "Self-attention" (self-attention.md, sections "Definition",
    "Properties" for the permutation equivariance, and "From scratch" for the
    same computation written out in plain numpy).

    Examples
    --------
    Five tokens with :math:`d_{model} = d_k = d_v = 4`, drawn with numpy's
    legacy global generator, ``np.random.seed(42)``, as in the book's page
    "Self-attention" (self-attention.md, section "From scratch"), which prints
    the same output:

    >>> import numpy as np
    >>> np.random.seed(42)
    >>> tokens = np.random.rand(5, 4)
    >>> W_Q = np.random.rand(4, 4)
    >>> W_K = np.random.rand(4, 4)
    >>> W_V = np.random.rand(4, 4)
    >>> print(self_attention(tokens, W_Q, W_K, W_V))
    [[0.8171592  1.00426184 0.69930635 1.31138005]
     [0.7915625  0.96723906 0.66875262 1.25601252]
     [0.81875423 1.00416968 0.70712603 1.31194758]
     [0.77771824 0.94955796 0.64721517 1.2291082 ]
     [0.7857578  0.9602772  0.65909118 1.24542999]]

    With a causal mask, the first position can only see itself, so its output
    is its own value row :math:`x_0 W_V`:

    >>> from attention_docs.masks import causal_mask
    >>> out = self_attention(tokens, W_Q, W_K, W_V, mask=causal_mask(5))
    >>> bool(np.allclose(out[0], tokens[0] @ W_V))
    True
    """
    q, k, v = project_qkv(x, w_q, w_k, w_v)  # (..., n, d_k) twice, (..., n, d_v)
    *batch, n, d_k = q.shape
    if n == 0:  # no keys to attend to: an error, as in scaled_dot_product_attention
        raise ValueError(f"`x` has no tokens (n=0): shape {np.shape(x)}")
    if d_k == 0:  # scores without components: an error, as there
        raise ValueError(
            f"`w_q` and `w_k` have d_k=0 columns: shapes {np.shape(w_q)} and "
            f"{np.shape(w_k)}"
        )
    scale = resolve_scale(scale, d_k)
    if mask is not None:
        mask = check_mask(mask, (*batch, n, n))
    try:  # softmax(Q K^T / sqrt(d_k)) V -> (..., n, d_v)
        output, _ = attention_kernel(q, k, v, scale, mask)
    except ScoresOverflow as overflow:  # name the caller's arguments, not q and k
        x_shape = np.shape(x)
        message = overflow.describe("(`x` @ `w_q`)", "(`x` @ `w_k`)", x_shape, x_shape)
        raise ValueError(message) from None
    return output
