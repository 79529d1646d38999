r"""Boolean attention masks: causal, padding, and their combination.

Convention: a mask is boolean and **True means "may attend"**:
``mask[..., i, j]`` is True when query ``i`` may look at key ``j``. This is the
polarity of the boolean ``attn_mask`` of current PyTorch's
``torch.nn.functional.scaled_dot_product_attention``. Masked scores become
:math:`-\infty` before the softmax (Vaswani et al., 2017, "Attention Is All You
Need", arXiv:1706.03762, Section 3.2.3 and the optional "Mask" box of
Figure 2). See the book's page "Masks" (masks.md, section "Boolean masks").
"""

from __future__ import annotations

import functools
import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    BoolArray,
    as_integer_array,
    check_bool,
    check_positive_int,
    shown,
)

__all__ = ["causal_mask", "combine_masks", "padding_mask", "sliding_window_mask"]


def _check_size(name: str, value: object) -> int:
    """A positive integer that numpy can use as an array dimension.

    ``np.arange(2**63)`` gives an empty array instead of an error: a size
    beyond ``np.intp`` would silently make an empty mask.
    """
    size = check_positive_int(name, value)
    if size > np.iinfo(np.intp).max:
        raise ValueError(
            f"`{name}` is too large for an array dimension (at most "
            f"{np.iinfo(np.intp).max}), got {shown(size)}"
        )
    return size


def causal_mask(n_q: int, n_k: int | None = None) -> BoolArray:
    r"""Causal ("look-ahead") mask: a query sees only keys at or before itself.

    Parameters
    ----------
    n_q : int
        Number of queries (rows), at least 1.
    n_k : int, optional
        Number of keys (columns), at least 1; defaults to ``n_q``.

    Returns
    -------
    ndarray of bool, shape (n_q, n_k)
        ``mask[i, j]`` is True exactly when :math:`j \le i + (n_k - n_q)`. For
        ``n_q == n_k`` this is the lower triangle including the diagonal.

    Raises
    ------
    ValueError
        If ``n_q`` or ``n_k`` is not a positive integer (a bool, a float or a
        number below 1), or is too large for an array dimension (above
        ``np.iinfo(np.intp).max``: numpy would make an empty array).

    Notes
    -----
    The queries are aligned to the **bottom right**: the ``n_q`` queries are the
    last ``n_q`` positions of the ``n_k`` keys, so query ``i`` sits at position
    :math:`i + (n_k - n_q)` and

    .. math::

        M_{ij} = \bigl[\, j \le i + (n_k - n_q) \,\bigr].

    This is the key-value-cache case of decoding: the keys hold the whole prefix
    and the queries are the newest tokens. With ``n_q > n_k`` the first
    ``n_q - n_k`` rows are fully masked (those queries come before every key)
    and give zero weights and zero output.

    PyTorch's ``torch.nn.functional.scaled_dot_product_attention(...,
    is_causal=True)`` aligns the mask to the **top left** instead (``j <= i``,
    i.e. ``torch.ones(n_q, n_k).tril(diagonal=0)``); PyTorch's
    ``torch.nn.attention.bias.causal_lower_right`` gives the bottom-right
    alignment used here. Both agree when ``n_q == n_k``. The decoder's masked
    self-attention of Vaswani et al. (2017), Section 3.2.3, is the square case.
    See the book's page "Masks" (masks.md, sections "Causal mask" and "Fully
    masked rows").

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]

    Two new queries against four cached keys (bottom-right alignment):

    >>> causal_mask(2, 4).astype(int).tolist()
    [[1, 1, 1, 0], [1, 1, 1, 1]]

    More queries than keys: the first row sees nothing.

    >>> causal_mask(3, 2).astype(int).tolist()
    [[0, 0], [1, 0], [1, 1]]
    """
    n_q = _check_size("n_q", n_q)
    n_k = n_q if n_k is None else _check_size("n_k", n_k)
    i = np.arange(n_q)[:, np.newaxis]  # (n_q, 1) query index
    j = np.arange(n_k)[np.newaxis, :]  # (1, n_k) key index
    return j <= i + (n_k - n_q)  # M_ij = [j <= i + (n_k - n_q)] -> (n_q, n_k)


def sliding_window_mask(
    n_q: int, n_k: int | None = None, *, window: int, n_sink: int = 0
) -> BoolArray:
    r"""Sliding-window mask: a query sees its last ``window`` keys, itself included.

    Parameters
    ----------
    n_q : int
        Number of queries (rows), at least 1.
    n_k : int, optional
        Number of keys (columns), at least 1; defaults to ``n_q``.
    window : int, keyword-only
        Number of keys a query sees, **counting the query's own position**, at
        least 1. ``window=1`` lets a query see itself only; ``window >= n_k``
        gives :func:`causal_mask`.
    n_sink : int, keyword-only, optional
        Number of first keys (positions ``0, ..., n_sink - 1``) that every
        query at or after them sees as well, the "attention sinks"
        (default 0: none).

    Returns
    -------
    ndarray of bool, shape (n_q, n_k)
        With :math:`p_i = i + (n_k - n_q)` the position of query ``i``
        (aligned to the bottom right, as :func:`causal_mask`), ``mask[i, j]``
        is True exactly when

        .. math::

            p_i - W < j \le p_i \quad\text{or}\quad j < n_{\text{sink}}
            \text{ and } j \le p_i .

        A row sees at most ``window + n_sink`` keys. Memory: ``n_q * n_k``
        bytes.

    Raises
    ------
    ValueError
        If ``n_q``, ``n_k`` or ``window`` is not a positive integer (or is
        too large for an array dimension), or ``n_sink`` is not an integer
        ``>= 0``. The message names the argument.

    Notes
    -----
    Mistral 7B (Jiang et al., 2023, "Mistral 7B", arXiv:2310.06825,
    Section 2, "Sliding Window Attention" and Figure 1) writes that position
    :math:`i` attends to "positions between :math:`i - W` and :math:`i`";
    its Figure 1 (:math:`W = 3`, three keys per row) and its rolling buffer
    of :math:`W` entries (position :math:`i` stored at :math:`i \bmod W`)
    count :math:`W` keys **including** position :math:`i` itself. This mask
    follows that count: ``window`` keys, the query's own among them, so that
    a rolling cache of ``window`` rows holds exactly what a query needs
    (:class:`~attention_docs.kvcache.RollingKVCache`). The sinks are those
    of Xiao et al., 2024, "Efficient Streaming Language Models with
    Attention Sinks" (ICLR 2024, arXiv:2309.17453), Sections 3.1 and 3.2:
    the first four tokens kept beside the window. The same mask is
    ``combine_masks(causal_mask(n_q, n_k), band | sinks)``. See the book's
    page "Sliding windows and attention sinks" (sliding-window.md).

    Examples
    --------
    >>> sliding_window_mask(5, window=3).astype(int).tolist()
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1]]

    The first key kept as a sink:

    >>> sliding_window_mask(5, window=3, n_sink=1)[4].astype(int).tolist()
    [1, 0, 1, 1, 1]

    One new query against six cached keys (bottom-right alignment):

    >>> sliding_window_mask(1, 6, window=2).astype(int).tolist()
    [[0, 0, 0, 0, 1, 1]]
    """  # noqa: E501
    n_q = _check_size("n_q", n_q)
    n_k = n_q if n_k is None else _check_size("n_k", n_k)
    window = _check_size("window", window)
    if isinstance(n_sink, bool) or not isinstance(n_sink, numbers.Integral):
        raise ValueError(f"`n_sink` must be an integer >= 0, got {shown(n_sink)}")
    if n_sink < 0:
        raise ValueError(f"`n_sink` must be an integer >= 0, got {shown(n_sink)}")
    i = np.arange(n_q)[:, np.newaxis]  # (n_q, 1) query index
    j = np.arange(n_k)[np.newaxis, :]  # (1, n_k) key index
    p = i + (n_k - n_q)  # position of query i among the keys
    band = (p - window < j) & (j <= p)  # p - W < j <= p: W keys, itself included
    sinks = (j < n_sink) & (j <= p)  # the first n_sink keys, causally
    return band | sinks  # (n_q, n_k)


def padding_mask(lengths: ArrayLike, n_k: int) -> BoolArray:
    r"""Padding mask: key ``j`` of sequence ``b`` is real when ``j < lengths[b]``.

    Parameters
    ----------
    lengths : array_like of int, shape (batch,)
        True length of every sequence of the batch, each in ``[0, n_k]``.
    n_k : int
        Padded length (number of keys), at least 1.

    Returns
    -------
    ndarray of bool, shape (batch, 1, n_k)
        ``mask[b, 0, j]`` is True exactly when ``j < lengths[b]``. The middle
        axis of length 1 broadcasts over the queries, so the mask broadcasts
        against scores of shape ``(batch, n_q, n_k)``. A sequence of length 0
        gives fully masked rows (zero weights, zero output).

    Raises
    ------
    TypeError
        If ``lengths`` does not hold integers (floats and bools are refused),
        or is a numpy masked array.
    ValueError
        If ``lengths`` is not 1-D (the message gives its shape), if an entry is
        outside ``[0, n_k]`` (the message lists the lengths; a Python integer
        too large for int64 and uint64 is refused by its size), if ``lengths``
        is ragged, or if ``n_k`` is not a positive integer or is too large
        for an array dimension.

    Notes
    -----
    .. math::

        M_{b, i, j} = \bigl[\, j < \ell_b \,\bigr]

    for every query ``i`` (``j`` counted from 0, as in numpy): padded keys are
    never attended to. Only the keys are masked; the outputs of padded queries
    are computed but meaningless and are usually ignored downstream. See the
    book's page "Masks" (masks.md, section "Padding mask").

    Examples
    --------
    >>> m = padding_mask([3, 1], n_k=4)
    >>> m.shape
    (2, 1, 4)
    >>> m.astype(int).tolist()
    [[[1, 1, 1, 0]], [[1, 0, 0, 0]]]
    """
    n_k = _check_size("n_k", n_k)
    lengths = as_integer_array("lengths", lengths)  # [] (an empty batch) is fine
    if lengths.ndim != 1:
        raise ValueError(
            f"`lengths` must be 1-D with shape (batch,), got shape {lengths.shape}"
        )
    if np.any((lengths < 0) | (lengths > n_k)):
        raise ValueError(
            f"`lengths` must lie in [0, n_k] = [0, {n_k}], got {lengths.tolist()}"
        )
    j = np.arange(n_k)  # (n_k,) key index
    ell = lengths[:, np.newaxis, np.newaxis]  # (batch,) -> (batch, 1, 1)
    return j < ell  # M_bij = [j < l_b]: (n_k,) vs (batch, 1, 1) -> (batch, 1, n_k)


def combine_masks(*masks: ArrayLike) -> BoolArray:
    r"""Combine boolean masks: a key may be attended to only if every mask allows it.

    Parameters
    ----------
    *masks : array_like of bool
        One or more masks whose shapes broadcast together, e.g. a causal mask
        ``(n_q, n_k)`` and a padding mask ``(batch, 1, n_k)``.

    Returns
    -------
    ndarray of bool, shape: the masks' shapes broadcast together
        The element-wise logical AND :math:`M = M^{(1)} \wedge M^{(2)} \wedge
        \dots`. It is a new array, never a view of an input.

    Raises
    ------
    TypeError
        If no mask is given, or if a mask is not boolean (the message names it
        as ``masks[i]``, its position among the arguments).
    ValueError
        If the shapes do not broadcast together (the message lists them).

    Notes
    -----
    With True = "may attend", combining restrictions is a logical AND (with the
    opposite polarity it would be an OR). See the book's page "Masks"
    (masks.md, section "Combining masks").

    Examples
    --------
    >>> m = combine_masks(causal_mask(3), padding_mask([3, 2], n_k=3))
    >>> m.shape
    (2, 3, 3)
    >>> m[1].astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 0]]
    """
    if not masks:
        raise TypeError("combine_masks() needs at least one mask")
    arrays = [check_bool(f"masks[{n}]", mask) for n, mask in enumerate(masks)]
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(f"masks do not broadcast together: shapes {shapes}") from None
    return np.array(functools.reduce(np.logical_and, arrays))  # M1 AND M2 AND ...
