r"""Multi-head attention: ``h`` attentions side by side, concatenated, projected.

.. math::

    \operatorname{MultiHead}(Q, K, V)
        = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W^O,
    \qquad
    \text{head}_i = \operatorname{Attention}(Q W^Q_i, K W^K_i, V W^V_i)

(Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
Section 3.2.2 and Figure 2, right). Here the ``h`` projections
:math:`W^Q_i` of shape ``(d_model, d_k)`` are the column blocks of one matrix
``w_q`` of shape ``(d_model, d_model)`` (likewise ``w_k`` and ``w_v``), with
``d_k = d_v = d_model / h``. One matrix product projects for all heads at once;
:func:`split_heads` then moves the heads to their own axis, so all heads go
through **one** batched call of
:func:`~attention_docs.attention.scaled_dot_product_attention`, without any
loop over heads. See the book's page "Multi-head attention" (multi-head.md).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._kernels import ScoresOverflow, fitting_product, with_batch
from ._validation import (
    FloatArray,
    as_array,
    as_float_array,
    as_projection,
    broadcast_batch,
    check_finite_product,
    check_mask,
    check_ndim,
    check_positive_int,
    check_same_size,
    resolve_scale,
    rng_restored_on_error,
)
from .attention import attention_kernel

__all__ = ["MultiHeadAttention", "merge_heads", "multi_head_attention", "split_heads"]


def _check_heads(d_model: int, h: object, where: str = "") -> int:
    """Return ``h`` as an int; ValueError unless it is positive and divides d_model.

    ``where`` tells where ``d_model`` comes from, e.g. "`x` of shape (2, 5)".
    """
    h = check_positive_int("h", h)
    if d_model % h:
        source = f" ({where})" if where else ""
        raise ValueError(
            f"d_model={d_model}{source} is not divisible by the number of heads h={h}"
        )
    return h


def split_heads(x: ArrayLike, h: int) -> NDArray[np.generic]:
    r"""Split the last axis into ``h`` heads and move the heads before the rows.

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
        Rows of width ``d_model``, e.g. :math:`Q = X W^Q` for all heads.
    h : int
        Number of heads; must divide ``d_model``.

    Returns
    -------
    ndarray, shape (..., h, n, d_model // h)
        ``out[..., i, t, :]`` is ``x[..., t, i * d_k:(i + 1) * d_k]``: head ``i``
        gets the ``i``-th block of ``d_k = d_model // h`` columns. The dtype is
        kept. :func:`merge_heads` is its exact inverse. The result is a view
        of ``x`` whenever numpy can reshape ``x`` without copying (always for
        a C-contiguous array, such as the result of a matrix product): no data
        is copied, and writing into the result writes into ``x``.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions (the message gives its shape); if
        ``h`` is not a positive integer, or does not divide ``d_model`` (the
        message gives ``d_model``, ``h`` and the shape of ``x``).

    Notes
    -----
    .. math::

        \bigl[\,Q_1 \;\big|\; Q_2 \;\big|\; \cdots \;\big|\; Q_h\,\bigr]
        = X \bigl[\,W^Q_1 \;\big|\; \cdots \;\big|\; W^Q_h\,\bigr]
        \;\longmapsto\; (Q_1, \dots, Q_h),
        \qquad Q_i = X W^Q_i .

    Vaswani et al. (2017), Section 3.2.2: :math:`d_k = d_v = d_{model} / h`.
    See the book's page "Multi-head attention" (multi-head.md, section
    "Splitting and merging heads").

    Examples
    --------
    >>> x = np.arange(8).reshape(2, 4)
    >>> heads = split_heads(x, 2)
    >>> heads.shape
    (2, 2, 2)
    >>> heads.tolist()
    [[[0, 1], [4, 5]], [[2, 3], [6, 7]]]
    """
    x = as_array("x", x)  # masked and ragged arrays are refused
    check_ndim("x", x, 2, "(..., n, d_model)")
    *batch, n, d_model = x.shape
    h = _check_heads(d_model, h, f"`x` of shape {x.shape}")
    x = x.reshape(*batch, n, h, d_model // h)  # (..., n, d_model) -> (..., n, h, d_k)
    return np.swapaxes(x, -3, -2)  # (..., n, h, d_k) -> (..., h, n, d_k)


def merge_heads(x: ArrayLike) -> NDArray[np.generic]:
    r"""Concatenate the heads: the exact inverse of :func:`split_heads`.

    Parameters
    ----------
    x : array_like, shape (..., h, n, d_k)
        One ``(n, d_k)`` block per head.

    Returns
    -------
    ndarray, shape (..., n, h * d_k)
        Row ``t`` is :math:`[\text{head}_1[t] \,|\, \dots \,|\, \text{head}_h[t]]`;
        ``merge_heads(split_heads(x, h))`` equals ``x``. The dtype is kept.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 3 dimensions (the message gives its shape).

    Notes
    -----
    .. math::

        \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)
        = \bigl[\,\text{head}_1 \;\big|\; \cdots \;\big|\; \text{head}_h\,\bigr]

    Vaswani et al. (2017), Section 3.2.2 and the Concat box of Figure 2
    (right). See the book's page "Multi-head attention" (multi-head.md, section
    "Splitting and merging heads").

    Examples
    --------
    >>> x = np.arange(8).reshape(2, 4)
    >>> merge_heads(split_heads(x, 2)).tolist()
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """
    x = as_array("x", x)  # masked and ragged arrays are refused
    check_ndim("x", x, 3, "(..., h, n, d_k)")
    *batch, h, n, d_k = x.shape
    x = np.swapaxes(x, -3, -2)  # (..., h, n, d_k) -> (..., n, h, d_k)
    return x.reshape(*batch, n, h * d_k)  # (..., n, h, d_k) -> (..., n, h * d_k)


def multi_head_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    h: int,
    *,
    mask: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    r"""Multi-head attention with ``h`` heads of width ``d_k = d_model / h``.

    Parameters
    ----------
    query : array_like, shape (..., n_q, d_model)
        Sequence the queries are computed from.
    key : array_like, shape (..., n_k, d_model)
        Sequence the keys are computed from.
    value : array_like, shape (..., n_k, d_model)
        Sequence the values are computed from. ``key is value is query`` gives
        self-attention; ``key is value`` (e.g. the encoder output) with another
        ``query`` gives cross-attention.
    w_q, w_k, w_v : array_like, shape (d_model, d_model)
        Input projections of all heads; head ``i`` uses the column block
        ``[:, i * d_k:(i + 1) * d_k]``.
    w_o : array_like, shape (d_model, d_model)
        Output projection :math:`W^O`.
    h : int
        Number of heads; must divide ``d_model``.
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``; the same mask is used by
        every head. Default: no mask.

    Returns
    -------
    output : ndarray, shape (..., n_q, d_model)
        :math:`\operatorname{Concat}(\text{head}_1, \dots, \text{head}_h) W^O`.
        A fully masked query row gives a zero row before :math:`W^O`, hence a
        zero output row.
    weights : ndarray, shape (..., h, n_q, n_k)
        Attention weights of every head; each row sums to 1 (all zeros if
        fully masked).

    Raises
    ------
    ValueError
        If a shape does not fit: ``query``, ``key`` or ``value`` has fewer than
        2 dimensions or a last dimension other than ``d_model`` (that of
        ``query``); ``key`` and ``value`` have different numbers of rows;
        ``key`` has no rows (n_k = 0: nothing to attend to); ``d_model`` is 0
        (heads without components); the batch
        dimensions do not broadcast; a weight matrix is not
        ``(d_model, d_model)`` (each message names the arguments and gives both
        shapes). If ``h`` is not a positive integer dividing ``d_model``. If
        ``mask`` does not broadcast to (..., n_q, n_k). If an input contains NaN
        or infinite values. If a projection, the scores or the output overflow
        the floating-point type (the message names the caller's arguments,
        e.g. ``query`` and ``w_q``, and their shapes, never the arrays split
        into heads).
    TypeError
        If ``mask`` is not boolean, an input does not hold real numbers, or an
        input is a numpy masked array.

    Notes
    -----
    .. math::

        \operatorname{MultiHead}(Q, K, V)
            = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W^O,
        \qquad
        \text{head}_i = \operatorname{softmax}\!\left(
            \frac{Q W^Q_i (K W^K_i)^\top}{\sqrt{d_k}}\right) V W^V_i .

    Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
    Section 3.2.2 and Figure 2 (right): Linear, Scaled Dot-Product Attention
    (``h`` times, in parallel), Concat, Linear. The scale is
    :math:`1/\sqrt{d_k}` with the head width :math:`d_k = d_{model}/h`, not
    :math:`d_{model}`. See the book's page "Multi-head attention"
    (multi-head.md, sections "Definition", "Figure 2 (right)", "Batched heads"
    and, for ``key is value`` from another sequence, "Cross-attention").

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> d_model, h = 8, 2
    >>> w_q, w_k, w_v, w_o = rng.standard_normal((4, d_model, d_model))
    >>> x = rng.standard_normal((3, 5, d_model))      # 3 sequences of 5 tokens
    >>> memory = rng.standard_normal((3, 7, d_model))  # 7 encoder outputs each
    >>> out, w = multi_head_attention(x, memory, memory, w_q, w_k, w_v, w_o, h)
    >>> out.shape, w.shape
    ((3, 5, 8), (3, 2, 5, 7))
    >>> bool(np.allclose(w.sum(axis=-1), 1.0))
    True

    A fully masked query gets zero weights in every head and a zero output:

    >>> mask = np.ones((5, 7), dtype=bool)
    >>> mask[0] = False
    >>> out, w = multi_head_attention(x, memory, memory, w_q, w_k, w_v, w_o, h,
    ...                               mask=mask)
    >>> print(w[:, :, 0].sum(), np.abs(out[:, 0]).max())
    0.0 0.0
    """
    query = as_float_array("query", query)
    key = as_float_array("key", key)
    value = as_float_array("value", value)
    check_ndim("query", query, 2, "(..., n_q, d_model)")
    check_ndim("key", key, 2, "(..., n_k, d_model)")
    check_ndim("value", value, 2, "(..., n_k, d_model)")
    check_same_size("d_model", ("query", query, -1), ("key", key, -1))
    check_same_size("d_model", ("query", query, -1), ("value", value, -1))
    check_same_size("n_k", ("key", key, -2), ("value", value, -2))
    batch = broadcast_batch(("query", query), ("key", key), ("value", value))
    d_model, n_q, n_k = query.shape[-1], query.shape[-2], key.shape[-2]
    if n_k == 0:  # no keys to attend to: an error, as in scaled_dot_product_attention
        raise ValueError(f"`key` has n_k=0 rows: shape {key.shape}")
    if d_model == 0:  # heads of width 0: scores without components
        raise ValueError(f"`query` has d_model=0: shape {query.shape}")
    projections = []
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o)):
        w = as_projection(name, w, "(d_model, d_model)", "query", query)
        check_same_size("d_model", ("query", query, -1), (name, w, 1))
        projections.append(w)
    w_q, w_k, w_v, w_o = projections
    h = _check_heads(d_model, h, f"`query` of shape {query.shape}")
    if mask is not None:
        scores_shape = (*batch, n_q, n_k)
        mask = np.broadcast_to(check_mask(mask, scores_shape), scores_shape)
        mask = mask[..., np.newaxis, :, :]  # (..., n_q, n_k) -> (..., 1, n_q, n_k)

    # Linear: Q W^Q_i for every head i in one product, then one axis per head
    # (computed again at a smaller scale where a partial sum overflows)
    q = fitting_product(query, w_q)  # Q W^Q: (..., n_q, d_model) @ (d_model, d_model)
    k = fitting_product(key, w_k)  # K W^K: (..., n_k, d_model) @ (d_model, d_model)
    v = fitting_product(value, w_v)  # V W^V: (..., n_k, d_model) @ (d_model, d_model)
    check_finite_product(q, ("query", query), ("w_q", w_q))
    check_finite_product(k, ("key", key), ("w_k", w_k))
    check_finite_product(v, ("value", value), ("w_v", w_v))
    q = split_heads(q, h)  # (..., n_q, d_model) -> (..., h, n_q, d_k)
    k = split_heads(k, h)  # (..., n_k, d_model) -> (..., h, n_k, d_k)
    v = split_heads(v, h)  # (..., n_k, d_model) -> (..., h, n_k, d_k)
    # head_i = Attention(Q W^Q_i, K W^K_i, V W^V_i): all heads in one batched
    # call, scaled by 1 / sqrt(d_k) -> (..., h, n_q, d_k), (..., h, n_q, n_k)
    scale = resolve_scale(None, d_model // h)
    try:
        heads, weights = attention_kernel(q, k, v, scale, mask)
    except ScoresOverflow as overflow:  # name the caller's arguments, not q and k
        q_name, k_name = "(`query` @ `w_q`)", "(`key` @ `w_k`)"
        message = overflow.describe(q_name, k_name, query.shape, key.shape)
        raise ValueError(message) from None
    # cat = Concat(head_1, ..., head_h)
    cat = merge_heads(heads)  # (..., h, n_q, d_k) -> (..., n_q, d_model)
    # MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O
    out = fitting_product(cat, w_o)  # (..., n_q, d_model) @ (d_model, d_model)
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"the output Concat(heads) @ `w_o` overflows {out.dtype}: shapes "
            f"{(*batch, n_q, d_model)} and {w_o.shape}"
        )
    return out, with_batch(weights, (*batch, h))


class MultiHeadAttention:
    r"""A multi-head attention layer with its own random projections.

    Parameters
    ----------
    d_model : int
        Width of the input and output rows.
    h : int
        Number of heads; must divide ``d_model``.
    rng : numpy.random.Generator
        Source of the initial weights, e.g. ``np.random.default_rng(0)``.

    Attributes
    ----------
    d_model : int
        Width of the rows.
    h : int
        Number of heads.
    d_k : int
        Width of one head, ``d_model // h``.
    w_q, w_k, w_v, w_o : ndarray, shape (d_model, d_model)
        Projections, drawn in this order as
        ``rng.standard_normal((d_model, d_model)) / sqrt(d_model)``.

    Raises
    ------
    ValueError
        If ``d_model`` or ``h`` is not a positive integer, or ``h`` does not
        divide ``d_model``.
    TypeError
        If ``rng`` is not a :class:`numpy.random.Generator` (e.g. the legacy
        ``np.random.RandomState`` or an int).

    Notes
    -----
    Vaswani et al. (2017) do not say how they initialise the projections
    (Section 3.2.2 gives their shapes; the paper uses :math:`d_{model} = 512`,
    :math:`h = 8`). Here each entry is drawn from a normal distribution with
    mean 0 and variance :math:`1/d_{model}`. For a square
    :math:`d_{model} \times d_{model}` matrix that is the variance
    :math:`2 / (n_{in} + n_{out})` of Glorot and Bengio, 2010, "Understanding
    the difficulty of training deep feedforward neural networks" (AISTATS
    2010), Equation 16, which draws from a uniform distribution with that
    variance; PyTorch's ``torch.nn.MultiheadAttention`` initialises its input
    projections with that uniform distribution (``xavier_uniform_``). With
    this variance each projected component, a sum of :math:`d_{model}`
    products, has about the variance of one input component.
    Calling the layer computes :func:`multi_head_attention`; see the book's
    page "Multi-head attention" (multi-head.md).

    Examples
    --------
    >>> mha = MultiHeadAttention(8, 2, rng=np.random.default_rng(0))
    >>> mha
    MultiHeadAttention(d_model=8, h=2)
    >>> mha.d_k, mha.w_o.shape
    (4, (8, 8))
    >>> x = np.random.default_rng(1).standard_normal((5, 8))
    >>> out, w = mha(x)  # self-attention: key = value = x
    >>> out.shape, w.shape
    ((5, 8), (2, 5, 5))
    """

    def __init__(self, d_model: int, h: int, *, rng: np.random.Generator) -> None:
        d_model = check_positive_int("d_model", d_model)
        h = _check_heads(d_model, h)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"`rng` must be a numpy.random.Generator, got {type(rng).__name__}"
            )
        self.d_model = d_model
        self.h = h
        self.d_k = d_model // h  # d_k = d_v = d_model / h
        shape = (d_model, d_model)
        with rng_restored_on_error(rng):  # a call that raises draws nothing
            self.w_q = rng.standard_normal(shape) / math.sqrt(d_model)
            self.w_k = rng.standard_normal(shape) / math.sqrt(d_model)
            self.w_v = rng.standard_normal(shape) / math.sqrt(d_model)
            self.w_o = rng.standard_normal(shape) / math.sqrt(d_model)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(d_model={self.d_model}, h={self.h})"

    def __call__(
        self,
        query: ArrayLike,
        key: ArrayLike | None = None,
        value: ArrayLike | None = None,
        *,
        mask: ArrayLike | None = None,
    ) -> tuple[FloatArray, FloatArray]:
        r"""Apply the layer; see :func:`multi_head_attention`.

        Parameters
        ----------
        query : array_like, shape (..., n_q, d_model)
            Sequence the queries are computed from.
        key : array_like, shape (..., n_k, d_model), optional
            Defaults to ``query`` (self-attention).
        value : array_like, shape (..., n_k, d_model), optional
            Defaults to ``key``.
        mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
            True where query ``i`` may attend to key ``j``.

        Returns
        -------
        output : ndarray, shape (..., n_q, d_model)
            The layer's output.
        weights : ndarray, shape (..., h, n_q, n_k)
            Attention weights of every head; rows sum to 1 (0 if fully masked).

        Raises
        ------
        ValueError
            For every reason of :func:`multi_head_attention` (the messages name
            ``query``, ``key`` and ``value``; the weights are the layer's own).
        TypeError
            If ``mask`` is not boolean, an input does not hold real numbers,
            or an input is a numpy masked array.
        """
        key = query if key is None else key
        value = key if value is None else value
        return multi_head_attention(
            query, key, value, self.w_q, self.w_k, self.w_v, self.w_o, self.h, mask=mask
        )
