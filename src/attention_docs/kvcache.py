r"""Decoding one token at a time: a cache of keys and values.

A decoder generates a sequence one token at a time; the token generated at
step :math:`i` becomes the input of step :math:`i + 1` (Vaswani et al., 2017,
"Attention Is All You Need", arXiv:1706.03762, Section 3: "at each step the
model is auto-regressive"). In causal self-attention, row :math:`i` of the
output depends only on the query :math:`\vec{q}_i` and on the keys and values
of positions :math:`1, \dots, i`:

.. math::

    \vec{z}_i = \sum_{j=1}^{i}
        \frac{e^{\vec{q}_i \vec{k}_j^\top / \sqrt{d_k}}}
             {\sum_{l=1}^{i} e^{\vec{q}_i \vec{k}_l^\top / \sqrt{d_k}}}\,
        \vec{v}_j ,

and appending a token changes none of the earlier keys and values. So each
step only needs the new token's query, key and value: the keys and values of
the earlier tokens are kept (cached) instead of recomputed. Attention then
costs O(n * d) per generated token instead of O(n^2 * d).

- :class:`KVCache` holds the keys and values of one attention layer (any
  leading batch or head dimensions) and lets the newest queries attend to
  them, with the causal mask aligned to the bottom right
  (:func:`~attention_docs.masks.causal_mask`);
- :func:`kv_cache_bytes` gives the memory such caches take in a whole model,
  :math:`2 \cdot N \cdot h_{kv} \cdot d_k \cdot n \cdot s`.

See the book's page "KV cache" (kv-cache.md).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._kernels import ScoresOverflow
from ._validation import (
    FloatArray,
    as_float_array,
    check_ndim,
    check_positive_int,
    check_same_size,
    resolve_scale,
)
from .attention import attention_kernel
from .masks import causal_mask

__all__ = ["KVCache", "RollingKVCache", "kv_cache_bytes"]


def _check_batch_shape(batch_shape: object) -> tuple[int, ...]:
    """Return ``batch_shape`` as a tuple of ints; ValueError unless all are >= 1."""
    if isinstance(batch_shape, numbers.Integral) and not isinstance(batch_shape, bool):
        batch_shape = (batch_shape,)
    try:
        dims = tuple(batch_shape)  # type: ignore[arg-type]
    except TypeError:
        dims = None
    if dims is None or not all(
        isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 1
        for d in dims
    ):
        raise ValueError(
            f"`batch_shape` must be a tuple of positive integers, got {batch_shape!r}"
        )
    return tuple(int(d) for d in dims)


def _check_dtype(dtype: DTypeLike) -> np.dtype[Any]:
    """Return ``dtype`` as float32 or float64; TypeError for anything else."""
    try:
        result = np.dtype(dtype)
    except TypeError:
        result = None
    if result is None or result not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"`dtype` must be float32 or float64, got {dtype!r}")
    return result


def _fits(given: Any, dtype: np.dtype[Any]) -> bool:
    """Whether the rows ``given`` (in the caller's dtype) convert to ``dtype`` exactly.

    Floats by their dtype (float16 and float32 into float32; any float of at
    most 64 bits into float64); booleans and integers by their values, which
    fit when converting them there and back gives them again (in float32,
    every integer up to 2**24 in magnitude, and more that are multiples of
    powers of two).
    """
    if given.dtype.kind == "f":
        return bool(np.can_cast(given.dtype, dtype, casting="safe"))
    with np.errstate(invalid="ignore", over="ignore"):  # out of range: no match
        back = given.astype(dtype).astype(given.dtype)
    return bool(np.array_equal(back, given))


class KVCache:
    r"""The keys and values of the tokens seen so far, for one attention layer.

    A decoder appends the key and value rows of every new token
    (:meth:`append`) and lets the new token's query attend to all cached
    rows (:meth:`attend`). The rows are kept in one preallocated buffer per
    array, which doubles its capacity when it is full: an append of ``t``
    rows writes ``t`` rows, plus, now and then, copies the whole cache into
    a buffer at least twice as large. Over ``n`` appended rows those moves
    add up to fewer than ``2 n`` rows, so an append costs O(t) amortised, and
    the cache is not copied at every step (as ``np.concatenate`` at every
    step would).

    Parameters
    ----------
    d_k : int
        Width of a key (and of a query), at least 1.
    d_v : int, optional
        Width of a value, at least 1; defaults to ``d_k``.
    batch_shape : tuple of int, optional
        Leading dimensions of every key and value array, e.g. ``(batch, h)``
        for ``h`` heads of ``batch`` sequences; default ``()``, one sequence
        of one head.
    dtype : {numpy.float64, numpy.float32}, optional
        Floating-point type of the stored rows (default float64).
    capacity : int, optional
        Number of rows to allocate at first (default 16); the buffer grows
        by doubling when more are appended.

    Attributes
    ----------
    keys : ndarray, shape (*batch_shape, n, d_k)
        The cached keys, a read-only view (no copy).
    values : ndarray, shape (*batch_shape, n, d_v)
        The cached values, a read-only view.
    d_k, d_v, batch_shape, dtype
        As given to the constructor.
    capacity : int
        Number of rows the buffers hold before they grow again.

    Raises
    ------
    ValueError
        If ``d_k``, ``d_v`` or ``capacity`` is not a positive integer, or
        ``batch_shape`` is not a tuple of positive integers.
    TypeError
        If ``dtype`` is not float32 or float64.

    Notes
    -----
    Row :math:`i` of causal self-attention,

    .. math::

        \vec{z}_i = \sum_{j \le i} \operatorname{softmax}_j\!\left(
            \frac{\vec{q}_i \vec{k}_j^\top}{\sqrt{d_k}}\right) \vec{v}_j ,

    needs :math:`\vec{q}_i` and the keys and values of positions
    :math:`j \le i` only, and :math:`\vec{k}_j = \vec{x}_j W_K`,
    :math:`\vec{v}_j = \vec{x}_j W_V` do not change when later tokens
    arrive. Decoding step by step with the cache therefore gives the rows of
    full causal attention over the sequence (Vaswani et al., 2017,
    Section 3.2.3 for the causal mask; the bottom-right alignment of
    :func:`~attention_docs.masks.causal_mask` is the case of ``t`` new
    queries against ``n`` cached keys). Shazeer, 2019, "Fast Transformer
    Decoding: One Write-Head is All You Need" (arXiv:1911.02150) describes
    this incremental decoding and its memory traffic; a cache with fewer
    heads than the queries (``batch_shape`` with 1 where the queries have
    ``h`` heads) serves multi-query and grouped-query attention through
    broadcasting. See the book's page "KV cache" (kv-cache.md, sections
    "Generating one token at a time" and "The package's KVCache").

    Examples
    --------
    Three tokens, one at a time; each new query attends to every cached key:

    >>> rng = np.random.default_rng(0)
    >>> k = rng.standard_normal((3, 4))
    >>> v = rng.standard_normal((3, 2))
    >>> q = rng.standard_normal((3, 4))
    >>> cache = KVCache(d_k=4, d_v=2)
    >>> rows = []
    >>> for i in range(3):
    ...     cache.append(k[i : i + 1], v[i : i + 1])  # the new token's key and value
    ...     rows.append(cache.attend(q[i : i + 1]))  # its query: shape (1, 2)
    >>> len(cache), cache.keys.shape
    (3, (3, 4))

    The rows equal full causal attention over the three tokens:

    >>> from attention_docs import causal_mask, scaled_dot_product_attention
    >>> full = scaled_dot_product_attention(q, k, v, mask=causal_mask(3))
    >>> bool(np.allclose(np.concatenate(rows), full))
    True

    Several new tokens at once (a prompt) attend with the causal mask:

    >>> cache = KVCache(4, 2)
    >>> cache.append(k, v)
    >>> bool(np.allclose(cache.attend(q), full))
    True
    """

    def __init__(
        self,
        d_k: int,
        d_v: int | None = None,
        *,
        batch_shape: tuple[int, ...] = (),
        dtype: DTypeLike = np.float64,
        capacity: int = 16,
    ) -> None:
        self._d_k = check_positive_int("d_k", d_k)
        self._d_v = self._d_k if d_v is None else check_positive_int("d_v", d_v)
        self._batch_shape = _check_batch_shape(batch_shape)
        self._dtype = _check_dtype(dtype)
        capacity = check_positive_int("capacity", capacity)
        self._k = np.empty((*self._batch_shape, capacity, self._d_k), self._dtype)
        self._v = np.empty((*self._batch_shape, capacity, self._d_v), self._dtype)
        self._n = 0

    @property
    def d_k(self) -> int:
        """Width of a key."""
        return self._d_k

    @property
    def d_v(self) -> int:
        """Width of a value."""
        return self._d_v

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading dimensions of the cached arrays."""
        return self._batch_shape

    @property
    def dtype(self) -> np.dtype[Any]:
        """Floating-point type of the cached rows."""
        return self._dtype

    @property
    def capacity(self) -> int:
        """Rows the buffers hold before they grow (doubling)."""
        return self._k.shape[-2]

    def __len__(self) -> int:
        """Number of cached tokens ``n``."""
        return self._n

    def __repr__(self) -> str:
        return (
            f"KVCache(d_k={self._d_k}, d_v={self._d_v}, "
            f"batch_shape={self._batch_shape}, dtype={self._dtype.name}, "
            f"n={self._n})"
        )

    @property
    def keys(self) -> FloatArray:
        """The cached keys, shape (*batch_shape, n, d_k): a read-only view."""
        view = self._k[..., : self._n, :]
        view.flags.writeable = False  # the cache's rows never change
        return view

    @property
    def values(self) -> FloatArray:
        """The cached values, shape (*batch_shape, n, d_v): a read-only view."""
        view = self._v[..., : self._n, :]
        view.flags.writeable = False
        return view

    def _checked_rows(self, name: str, x: ArrayLike, width: str, size: int) -> Any:
        """``x`` as a finite array of shape (*batch_shape, t, size) in the dtype."""
        checked = as_float_array(name, x)  # refuses masked and ragged arrays
        given = np.asarray(x)  # in the caller's dtype, for _fits below
        x = checked
        check_ndim(name, x, 2, f"(*batch_shape, t, {width})")
        if x.shape[-1] != size:
            raise ValueError(
                f"`{name}` has {width}={x.shape[-1]} but the cache has "
                f"{width}={size}: shape {x.shape}"
            )
        if x.shape[:-2] != self._batch_shape:
            raise ValueError(
                f"`{name}` has batch dimensions {x.shape[:-2]} but the cache has "
                f"batch_shape={self._batch_shape}: shape {x.shape}"
            )
        if not _fits(given, self._dtype):
            what = (
                f"{given.dtype} values that"
                if given.dtype.kind in "biu"
                else f"dtype {given.dtype}, which"
            )
            raise TypeError(
                f"`{name}` has {what} the cache's {self._dtype} cannot hold "
                f"exactly: convert it first, e.g. {name}.astype(np.{self._dtype.name})"
            )
        return x.astype(self._dtype, copy=False)

    def append(self, k: ArrayLike, v: ArrayLike) -> None:
        """Append the keys and values of ``t >= 1`` new tokens.

        Parameters
        ----------
        k : array_like, shape (*batch_shape, t, d_k)
            Keys of the new tokens, in order.
        v : array_like, shape (*batch_shape, t, d_v)
            Their values.

        Raises
        ------
        ValueError
            If ``k`` or ``v`` has fewer than 2 dimensions, a last dimension
            other than the cache's ``d_k`` / ``d_v``, batch dimensions other
            than ``batch_shape``, a different number of rows than the other,
            no rows at all, or NaN or infinite values. The message names
            ``k`` or ``v`` and gives the shapes. Nothing is appended then.
        TypeError
            If ``k`` or ``v`` does not hold real numbers, is a numpy masked
            array, or does not convert to the cache's dtype without loss:
            floats by their dtype (float64 rows into a float32 cache are
            refused), integers and booleans by their values (integers up to
            :math:`2^{24}` in magnitude fit in float32, up to :math:`2^{53}`
            in float64). The message names the dtype of the array passed.
            Nothing is appended then.

        Notes
        -----
        A call that raises leaves the cache as it was, also when the buffers
        cannot grow (a ``MemoryError``): every argument is checked and both
        new buffers are allocated before anything changes.
        """
        k = self._checked_rows("k", k, "d_k", self._d_k)
        v = self._checked_rows("v", v, "d_v", self._d_v)
        check_same_size("t", ("k", k, -2), ("v", v, -2))
        if k.shape[-2] == 0:
            raise ValueError(
                f"`k` and `v` have t=0 rows: shapes {k.shape} and {v.shape}; "
                "append at least one token"
            )
        self._store(k, v)  # checked: from here nothing raises but MemoryError
        self._n += k.shape[-2]

    def _store(self, k: FloatArray, v: FloatArray) -> None:
        """Write the checked rows of ``t`` new tokens after the ``n`` stored."""
        n, t = self._n, k.shape[-2]
        if n + t > self.capacity:
            self._grow(n + t)
        self._k[..., n : n + t, :] = k  # rows n+1, ..., n+t
        self._v[..., n : n + t, :] = v

    def _grow(self, needed: int) -> None:
        """Move the rows into buffers of at least twice the capacity.

        Both new buffers are allocated and filled before either replaces its
        old one: if an allocation fails (a MemoryError), the cache is left
        exactly as it was, keys and values of the same capacity.
        """
        capacity = max(needed, 2 * self.capacity)
        new_k = np.empty((*self._batch_shape, capacity, self._d_k), self._dtype)
        new_v = np.empty((*self._batch_shape, capacity, self._d_v), self._dtype)
        new_k[..., : self._n, :] = self._k[..., : self._n, :]  # the one full copy
        new_v[..., : self._n, :] = self._v[..., : self._n, :]
        self._k, self._v = new_k, new_v  # nothing has changed until here

    def _checked_query(self, q: ArrayLike) -> FloatArray:
        """``q`` as a float array of shape (..., t, d_k) that fits the cache."""
        if self._n == 0:
            raise ValueError(
                "the cache is empty: append the keys and values of at least one "
                "token before attend()"
            )
        q = as_float_array("q", q)
        check_ndim("q", q, 2, "(..., t, d_k)")
        keys_shape = (*self._batch_shape, len(self), self._d_k)
        if q.shape[-1] != self._d_k:
            raise ValueError(
                f"`q` has d_k={q.shape[-1]} but the cache has d_k={self._d_k}: "
                f"shapes {q.shape} and {keys_shape}"
            )
        try:
            np.broadcast_shapes(q.shape[:-2], self._batch_shape)
        except ValueError:
            raise ValueError(
                f"leading (batch) dimensions of `q` do not broadcast with the "
                f"cache's batch_shape={self._batch_shape}: shapes {q.shape} and "
                f"{keys_shape}"
            ) from None
        return q

    def attend(self, q: ArrayLike, *, scale: float | None = None) -> FloatArray:
        r"""Attention of the newest ``t`` tokens' queries to all cached tokens.

        Parameters
        ----------
        q : array_like, shape (..., t, d_k)
            Queries of the last ``t`` cached tokens (``1 <= t <= n``), in
            order; their keys and values must already be appended. The
            leading dimensions broadcast with ``batch_shape``: queries with
            ``h`` heads may attend to a cache with one head (multi-query
            attention) or with ``g`` heads laid out as ``(g, 1)`` against
            queries ``(g, h // g)`` (grouped-query attention).
        scale : float, optional
            Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.

        Returns
        -------
        ndarray, shape (..., t, d_v)
            Row ``i`` is the output of the token at position
            :math:`n - t + i` (counting from 1): the weighted sum of the
            values of positions 1 to :math:`n - t + i`. It equals
            ``scaled_dot_product_attention(q, cache.keys, cache.values,
            mask=causal_mask(t, n))``, the bottom-right causal mask; for
            ``t = 1`` no key is masked. The batch dimensions are those of
            ``q`` and ``batch_shape`` broadcast together.

        Raises
        ------
        ValueError
            If the cache is empty; if ``q`` has fewer than 2 dimensions, a
            ``d_k`` other than the cache's, more rows than the cache has
            tokens, batch dimensions that do not broadcast with
            ``batch_shape``, or NaN or infinite values (the message gives the
            shapes); if ``scale`` is not a positive finite number; if the
            scores overflow.
        TypeError
            If ``q`` does not hold real numbers or is a numpy masked array.
        """
        q = self._checked_query(q)
        keys, values = self.keys, self.values
        t = q.shape[-2]
        if not 1 <= t <= self._n:
            raise ValueError(
                f"`q` has t={t} queries but the cache holds n={self._n} tokens: "
                f"the queries must be those of the last t cached tokens, "
                f"1 <= t <= n: shapes {q.shape} and {keys.shape}"
            )
        scale = resolve_scale(scale, self._d_k)
        # t = 1: the newest token sees every cached key, no mask needed;
        # t > 1: M_ij = [j <= i + (n - t)], the bottom-right causal mask
        mask = None if t == 1 else causal_mask(t, self._n)  # (t, n)
        try:
            output, _ = attention_kernel(q, keys, values, scale, mask)
        except ScoresOverflow as overflow:
            message = overflow.describe("`q`", "`cache.keys`", q.shape, keys.shape)
            raise ValueError(message) from None
        return output  # (..., t, n) @ (..., n, d_v) -> (..., t, d_v)


class RollingKVCache(KVCache):
    r"""A key-value cache for sliding-window attention: a fixed buffer that evicts.

    The cache keeps the rows of the first ``n_sink`` tokens (the attention
    sinks) and of the last ``window`` tokens, and nothing else: its buffers
    hold ``n_sink + window`` rows from the start and never grow. Token
    position :math:`p` (counted from 0) is stored in row :math:`p` when
    :math:`p < n_{\text{sink}}`, else in row

    .. math::

        n_{\text{sink}} + (p - n_{\text{sink}}) \bmod W ,

    which overwrites the token :math:`W` positions earlier, the one that has
    just left the window.

    Parameters
    ----------
    d_k : int
        Width of a key (and of a query), at least 1.
    d_v : int, optional
        Width of a value, at least 1; defaults to ``d_k``.
    window : int, keyword-only
        Keys a query sees, its own included (as in
        :func:`~attention_docs.masks.sliding_window_mask`), at least 1.
    n_sink : int, keyword-only, optional
        First tokens kept for ever (default 0).
    batch_shape : tuple of int, optional
        Leading dimensions of every key and value array (default ``()``).
    dtype : {numpy.float64, numpy.float32}, optional
        Floating-point type of the stored rows (default float64).

    Attributes
    ----------
    keys : ndarray, shape (*batch_shape, r, d_k)
        The kept keys in order of position, a read-only copy;
        :math:`r = \min(n, n_{\text{sink}} + W)` after :math:`n` tokens.
    values : ndarray, shape (*batch_shape, r, d_v)
        The kept values, in the same order.
    positions : ndarray of int, shape (r,)
        The positions (from 0) of the kept rows, in increasing order.
    slots : ndarray of int, shape (r,)
        The buffer row that holds each of them.
    n_seen : int
        Tokens appended so far, :math:`n`; ``len(cache)`` is :math:`r`.
    capacity : int
        ``n_sink + window``, the rows of each buffer, fixed.

    Raises
    ------
    ValueError
        If ``d_k``, ``d_v`` or ``window`` is not a positive integer,
        ``n_sink`` is not an integer ``>= 0``, or ``batch_shape`` is not a
        tuple of positive integers.
    TypeError
        If ``dtype`` is not float32 or float64.

    Notes
    -----
    Memory: :math:`(n_{\text{sink}} + W)(d_k + d_v)` numbers per batch
    entry, whatever the number of tokens: :meth:`append` checks its rows
    as :meth:`KVCache.append` does, then writes only the rows that stay
    (positions below ``n_sink`` and the last ``window``), each into its
    buffer row, and never allocates. The newest token's output
    (:meth:`attend`) equals the last row of
    ``scaled_dot_product_attention(q, k, v, mask=sliding_window_mask(n, n,
    window=W, n_sink=n_sink))`` over all :math:`n` tokens: its visible keys
    are exactly the kept ones. Earlier rows would need keys that have been
    evicted, so :meth:`attend` takes one query, the newest token's. Sources:
    the rolling buffer of Jiang et al., 2023, "Mistral 7B"
    (arXiv:2310.06825), Section 2, "Rolling Buffer Cache" and Figure 2 (with
    ``n_sink = 0``); the sinks of Xiao et al., 2024, "Efficient Streaming
    Language Models with Attention Sinks" (arXiv:2309.17453), Section 3.2
    and Figure 4. Positions are those of the tokens in the text; a model
    with RoPE rotates a key by its position before it is appended. See the
    book's page "Sliding windows and attention sinks" (sliding-window.md,
    section "rolling-cache").

    Examples
    --------
    A window of 3 and one sink; after 6 tokens the cache keeps positions
    0, 3, 4, 5:

    >>> cache = RollingKVCache(2, window=3, n_sink=1)
    >>> for p in range(6):
    ...     cache.append([[p, 1.0]], [[p, 1.0]])  # key = value = (p, 1)
    >>> cache.positions.tolist(), cache.slots.tolist()
    ([0, 3, 4, 5], [0, 3, 1, 2])
    >>> cache.n_seen, len(cache), cache.capacity
    (6, 4, 4)
    >>> cache.keys[:, 0].tolist()
    [0.0, 3.0, 4.0, 5.0]

    The newest query attends to those four rows, as the sliding-window mask
    with a sink would let it:

    >>> import numpy as np
    >>> from attention_docs import scaled_dot_product_attention, sliding_window_mask
    >>> k = v = np.array([[p, 1.0] for p in range(6)])
    >>> q = np.array([[0.5, 0.2]])
    >>> full = scaled_dot_product_attention(
    ...     q, k, v, mask=sliding_window_mask(1, 6, window=3, n_sink=1))
    >>> bool(np.allclose(cache.attend(q), full))
    True
    """

    def __init__(
        self,
        d_k: int,
        d_v: int | None = None,
        *,
        window: int,
        n_sink: int = 0,
        batch_shape: tuple[int, ...] = (),
        dtype: DTypeLike = np.float64,
    ) -> None:
        window = check_positive_int("window", window)
        if isinstance(n_sink, bool) or not isinstance(n_sink, numbers.Integral):
            raise ValueError(f"`n_sink` must be an integer >= 0, got {n_sink!r}")
        if n_sink < 0:
            raise ValueError(f"`n_sink` must be an integer >= 0, got {n_sink!r}")
        super().__init__(
            d_k,
            d_v,
            batch_shape=batch_shape,
            dtype=dtype,
            capacity=check_positive_int("n_sink + window", int(n_sink) + window),
        )
        self._window = window
        self._n_sink = int(n_sink)

    @property
    def window(self) -> int:
        """Keys a query sees, its own included."""
        return self._window

    @property
    def n_sink(self) -> int:
        """First tokens kept for ever."""
        return self._n_sink

    @property
    def n_seen(self) -> int:
        """Tokens appended so far (kept or evicted)."""
        return self._n

    def __len__(self) -> int:
        """Number of kept tokens, at most ``n_sink + window``."""
        return min(self._n, self.capacity)

    def __repr__(self) -> str:
        return (
            f"RollingKVCache(d_k={self._d_k}, d_v={self._d_v}, "
            f"window={self._window}, n_sink={self._n_sink}, "
            f"batch_shape={self._batch_shape}, dtype={self._dtype.name}, "
            f"n_seen={self._n}, kept={len(self)})"
        )

    def _slot(self, position: Any) -> Any:
        """Row of the buffer that holds token ``position`` (from 0)."""
        s, w = self._n_sink, self._window
        return np.where(position < s, position, s + (position - s) % w)

    @property
    def positions(self) -> Any:
        """Positions (from 0) of the kept tokens, increasing: shape (r,)."""
        n, s = self._n, self._n_sink
        sinks = np.arange(min(n, s))
        recent = np.arange(max(s, n - self._window), n)  # the last W (not sinks)
        return np.concatenate([sinks, recent]).astype(np.intp)

    @property
    def slots(self) -> Any:
        """Buffer row of each kept token, in the order of :attr:`positions`."""
        return self._slot(self.positions).astype(np.intp)

    def _ordered(self, buffer: Any) -> FloatArray:
        rows = buffer[..., self._slot(self.positions), :]  # a copy, by position
        rows.flags.writeable = False
        return rows

    @property
    def keys(self) -> FloatArray:
        """The kept keys by position, shape (*batch_shape, r, d_k): a copy."""
        return self._ordered(self._k)

    @property
    def values(self) -> FloatArray:
        """The kept values by position, shape (*batch_shape, r, d_v): a copy."""
        return self._ordered(self._v)

    def _store(self, k: FloatArray, v: FloatArray) -> None:
        """Write the rows that stay into their slots, evicting old tokens.

        Of the ``t`` new rows, those at positions below ``n_sink`` and the
        last ``window`` are written (each into its row, :math:`O(t)`); any
        others would be evicted by the same call and are skipped. The
        buffers never grow, so no call allocates more than the rows it is
        given.
        """
        t = k.shape[-2]
        new = np.arange(self._n, self._n + t)  # positions of the new tokens
        kept = (new < self._n_sink) | (new >= self._n + t - self._window)
        rows = np.flatnonzero(kept)  # which of the t rows stay
        slots = self._slot(new[kept])  # distinct buffer rows
        k_kept, v_kept = k[..., rows, :], v[..., rows, :]  # copies, before writing
        self._k[..., slots, :] = k_kept  # overwrite the evicted tokens' rows
        self._v[..., slots, :] = v_kept

    def attend(self, q: ArrayLike, *, scale: float | None = None) -> FloatArray:
        r"""Attention of the newest token's query to the kept tokens.

        Parameters
        ----------
        q : array_like, shape (..., 1, d_k)
            The query of the last appended token. Leading dimensions
            broadcast with ``batch_shape``, as in :meth:`KVCache.attend`.
        scale : float, optional
            Factor applied to the dot products; default :math:`1/\sqrt{d_k}`.

        Returns
        -------
        ndarray, shape (..., 1, d_v)
            The weighted sum of the kept values: the sinks and the last
            ``window`` tokens, the newest among them. No mask is needed.

        Raises
        ------
        ValueError
            If the cache is empty, ``q`` has more than one row (the message
            says why), or for every reason of :meth:`KVCache.attend`.
        TypeError
            If ``q`` does not hold real numbers or is a numpy masked array.
        """
        q = self._checked_query(q)
        if q.shape[-2] != 1:
            raise ValueError(
                f"`q` has t={q.shape[-2]} queries, but a RollingKVCache answers "
                "the newest token only (t=1): the earlier tokens' windows reach "
                f"keys that are evicted: shape {q.shape}"
            )
        scale = resolve_scale(scale, self._d_k)
        r = len(self)  # rows 0 .. r-1 of the buffer are filled, in any order
        keys, values = self._k[..., :r, :], self._v[..., :r, :]
        try:
            output, _ = attention_kernel(q, keys, values, scale, None)
        except ScoresOverflow as overflow:
            message = overflow.describe("`q`", "`cache.keys`", q.shape, keys.shape)
            raise ValueError(message) from None
        return output  # (..., 1, r) @ (..., r, d_v) -> (..., 1, d_v)


def kv_cache_bytes(
    n_layers: int,
    n_kv_heads: int,
    d_k: int,
    n_tokens: int,
    *,
    bytes_per_value: int = 2,
    batch: int = 1,
    latent_dim: int | None = None,
    rope_dim: int = 0,
    window: int | None = None,
) -> int:
    r"""Bytes of the key-value caches of a whole decoder.

    Parameters
    ----------
    n_layers : int
        Number of attention layers :math:`N`, each with its own cache.
    n_kv_heads : int
        Heads of keys and values per layer: :math:`h` for multi-head
        attention, 1 for multi-query attention, the number of groups
        :math:`g` for grouped-query attention.
    d_k : int
        Width of one head's key (and value).
    n_tokens : int
        Cached tokens per sequence, :math:`n`.
    bytes_per_value : int, optional
        Bytes of one number, :math:`s`: 2 for 16-bit floats (the default), 4 for
        float32, 8 for float64.
    batch : int, optional
        Number of sequences decoded together (default 1).
    latent_dim : int, optional
        Multi-head latent attention: the width :math:`d_c` of the latent
        cached per token and layer instead of keys and values. When given,
        ``n_kv_heads`` and ``d_k`` are still checked but do not enter the
        count. Default None (keys and values are cached).
    rope_dim : int, optional
        Multi-head latent attention: the width :math:`d^R_h` of the RoPE key
        cached beside the latent (default 0); only with ``latent_dim``.
    window : int, optional
        Sliding window of every layer (keys seen per query, its own
        included): a layer then caches :math:`\min(n, W)` tokens instead of
        :math:`n` (a rolling buffer, :class:`RollingKVCache`). Default None:
        every token. For layers of two kinds (local and global), add the
        bytes of each kind.

    Returns
    -------
    int
        :math:`2 \cdot N \cdot h_{kv} \cdot d_k \cdot n \cdot s \cdot B`,
        or :math:`N \cdot (d_c + d^R_h) \cdot n \cdot s \cdot B` with
        ``latent_dim``, an exact Python integer (no overflow); with
        ``window``, :math:`n` is replaced by :math:`\min(n, W)`.

    Raises
    ------
    ValueError
        If an argument is not a positive integer (``rope_dim``: a
        non-negative one), or ``rope_dim`` is given without ``latent_dim``
        (the message names it).

    Notes
    -----
    .. math::

        \text{bytes} = 2 \cdot N \cdot h_{kv} \cdot d_k \cdot n \cdot s

    per sequence: the factor 2 counts keys and values, and every layer
    caches one key row and one value row of width :math:`d_k` per head and
    token (the values are assumed as wide as the keys, :math:`d_v = d_k`, as
    in Vaswani et al., 2017, Section 3.2.2). Multi-query attention (Shazeer,
    2019) and grouped-query attention (Ainslie et al., 2023, "GQA: Training
    Generalized Multi-Query Transformer Models from Multi-Head Checkpoints",
    arXiv:2305.13245) reduce :math:`h_{kv}` from :math:`h` to 1 or
    :math:`g`. See the book's page "KV cache" (kv-cache.md, sections "The
    size of the cache" and "Multi-query and grouped-query attention"); the
    window, Jiang et al., 2023, Section 2 ("Rolling Buffer Cache"), and the
    book's page "Sliding windows and attention sinks" (sliding-window.md).

    Multi-head latent attention (DeepSeek-AI, 2024, "DeepSeek-V2",
    arXiv:2405.04434, Section 2.1.4 and Table 1) caches per token and layer
    one latent of width :math:`d_c` and one RoPE key of width :math:`d^R_h`
    shared by the heads, :math:`d_c + d^R_h` numbers instead of
    :math:`2 h_{kv} d_k` (see latent-attention.md).

    Examples
    --------
    The sizes of GPT-3 175B (Brown et al., 2020, "Language Models are
    Few-Shot Learners", arXiv:2005.14165: Table 2.1 gives 96 layers and 96
    heads of width 128, Section 2.1 a context of 2048 tokens), with 16-bit
    values and every layer caching all tokens: 9 GiB per sequence.

    >>> size = kv_cache_bytes(96, 96, 128, 2048)
    >>> size, size / 2**30
    (9663676416, 9.0)

    DeepSeek-V3 (arXiv:2412.19437, Section 4.2: 61 layers, 128 heads of
    width 128, :math:`d_c = 512`, :math:`d^R_h = 64`), one token:

    >>> kv_cache_bytes(61, 128, 128, 1, latent_dim=512, rope_dim=64)
    70272

    Mistral 7B (Jiang et al., 2023, arXiv:2310.06825, Table 1: 32 layers,
    8 key-value heads of width 128, a window of 4096) at 8192 tokens caches
    4096 of them per layer, half of the 1 GiB a full cache would take:

    >>> kv_cache_bytes(32, 8, 128, 8192, window=4096) / 2**30
    0.5
    """
    n_layers = check_positive_int("n_layers", n_layers)
    n_kv_heads = check_positive_int("n_kv_heads", n_kv_heads)
    d_k = check_positive_int("d_k", d_k)
    n_tokens = check_positive_int("n_tokens", n_tokens)
    bytes_per_value = check_positive_int("bytes_per_value", bytes_per_value)
    batch = check_positive_int("batch", batch)
    if window is not None:  # a rolling buffer keeps the last W tokens only
        n_tokens = min(n_tokens, check_positive_int("window", window))
    if latent_dim is not None:
        latent_dim = check_positive_int("latent_dim", latent_dim)
        if rope_dim != 0:
            rope_dim = check_positive_int("rope_dim", rope_dim)
        # L * (d_c + d_h^R) * n * b, for each of the B sequences
        return n_layers * (latent_dim + rope_dim) * n_tokens * bytes_per_value * batch
    if isinstance(rope_dim, bool) or rope_dim != 0:
        raise ValueError(
            f"`rope_dim` is only used with `latent_dim`, got rope_dim={rope_dim!r}"
        )
    # 2 (K and V) * L * h_kv * d_k * n * b, for each of the B sequences
    return 2 * n_layers * n_kv_heads * d_k * n_tokens * bytes_per_value * batch
