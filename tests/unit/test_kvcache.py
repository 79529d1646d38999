"""Tests of attention_docs.kvcache: KVCache and kv_cache_bytes.

The reference for decoding is full causal self-attention over the whole
sequence, ``scaled_dot_product_attention(q, k, v, mask=causal_mask(n))``,
itself checked against a plain-Python loop in tests/unit/test_attention.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import KVCache, kv_cache_bytes
from attention_docs.attention import scaled_dot_product_attention
from attention_docs.masks import causal_mask

PROPERTY = settings(deadline=None, max_examples=80, database=None)


@st.composite
def sequences(draw):
    """q, k, v of one whole sequence (with batch dimensions) and its chunks.

    The chunks split the n tokens in order: a prompt of t0 tokens, then one
    token at a time, or chunks of any sizes; the initial capacity is small,
    so that the buffers grow several times.
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    batch = draw(st.sampled_from([(), (2,), (2, 3)]))
    n = draw(st.integers(1, 12))
    d_k, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    spread = draw(st.sampled_from([0.1, 1.0, 10.0]))
    q = spread * rng.standard_normal((*batch, n, d_k))
    k = rng.standard_normal((*batch, n, d_k))
    v = rng.standard_normal((*batch, n, d_v))
    if draw(st.booleans()):  # a prompt of t0 tokens, then one token at a time
        t0 = draw(st.integers(1, n))
        sizes = [t0] + [1] * (n - t0)
    else:  # chunks of any sizes that add up to n
        sizes, left = [], n
        while left:
            sizes.append(draw(st.integers(1, left)))
            left -= sizes[-1]
    capacity = draw(st.integers(1, 4))
    return q, k, v, sizes, capacity


def decode(q, k, v, sizes, capacity=16):
    """Append each chunk's keys and values, then let its queries attend."""
    cache = KVCache(
        k.shape[-1], v.shape[-1], batch_shape=k.shape[:-2], capacity=capacity
    )
    outputs, start = [], 0
    for size in sizes:
        stop = start + size
        cache.append(k[..., start:stop, :], v[..., start:stop, :])
        outputs.append(cache.attend(q[..., start:stop, :]))
        start = stop
    return np.concatenate(outputs, axis=-2), cache


@PROPERTY
@given(sequences())
def test_decoding_with_the_cache_equals_full_causal_attention(sequence) -> None:
    q, k, v, sizes, capacity = sequence
    n = k.shape[-2]
    expected = scaled_dot_product_attention(q, k, v, mask=causal_mask(n))
    actual, cache = decode(q, k, v, sizes, capacity)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)
    assert len(cache) == n
    np.testing.assert_array_equal(cache.keys, k)
    np.testing.assert_array_equal(cache.values, v)


def test_one_token_at_a_time_by_hand() -> None:
    # Scale ln 3: e^{score} is 1 or 3, so the weights are quarters.
    q = np.array([[0.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[4.0], [8.0]])
    cache = KVCache(2, 1)
    cache.append(k[:1], v[:1])
    # Token 1 sees only itself: z_1 = v_1.
    assert cache.attend(q[:1], scale=math.log(3.0)).tolist() == [[4.0]]
    cache.append(k[1:], v[1:])
    # Token 2: scores (0, ln 3), weights (1/4, 3/4), z_2 = 1 + 6 = 7.
    z2 = cache.attend(q[1:], scale=math.log(3.0))
    assert z2.tolist() == [[pytest.approx(7.0, rel=1e-15)]]


def test_one_query_sees_every_cached_key_without_a_mask() -> None:
    rng = np.random.default_rng(0)
    k, v, q = (
        rng.standard_normal((5, 3)),
        rng.standard_normal((5, 2)),
        rng.standard_normal((1, 3)),
    )
    cache = KVCache(3, 2)
    cache.append(k, v)
    np.testing.assert_allclose(
        cache.attend(q), scaled_dot_product_attention(q, k, v), rtol=1e-14
    )


def test_several_queries_use_the_bottom_right_causal_mask() -> None:
    rng = np.random.default_rng(1)
    k, v, q = (
        rng.standard_normal((6, 3)),
        rng.standard_normal((6, 2)),
        rng.standard_normal((2, 3)),
    )
    cache = KVCache(3, 2)
    cache.append(k, v)
    expected = scaled_dot_product_attention(q, k, v, mask=causal_mask(2, 6))
    np.testing.assert_allclose(cache.attend(q), expected, rtol=1e-14)
    # the first of the two queries (position 5) must not see key 6
    assert not np.allclose(cache.attend(q)[0], scaled_dot_product_attention(q, k, v)[0])


@PROPERTY
@given(st.integers(0, 2**32 - 1), st.sampled_from([(1, 4), (2, 2), (4, 1)]))
def test_shared_keys_and_values_broadcast_over_query_heads(seed, groups) -> None:
    """Multi-query (g = 1) and grouped-query attention: a cache with g heads."""
    g, per_group = groups
    h = g * per_group
    rng = np.random.default_rng(seed)
    n, d = 5, 3
    q = rng.standard_normal((h, n, d))
    k = rng.standard_normal((g, 1, n, d))
    v = rng.standard_normal((g, 1, n, d))
    cache = KVCache(d, batch_shape=(g, 1))
    outputs = []
    for i in range(n):
        cache.append(k[..., i : i + 1, :], v[..., i : i + 1, :])
        q_i = q[:, i : i + 1, :].reshape(g, per_group, 1, d)  # heads as (g, h/g)
        outputs.append(cache.attend(q_i).reshape(h, 1, d))
    # Reference: every query head with its own copy of its group's K and V.
    k_copies = np.repeat(k.reshape(g, n, d), per_group, axis=0)  # (h, n, d)
    v_copies = np.repeat(v.reshape(g, n, d), per_group, axis=0)
    expected = scaled_dot_product_attention(q, k_copies, v_copies, mask=causal_mask(n))
    np.testing.assert_allclose(np.concatenate(outputs, axis=-2), expected, rtol=1e-10)
    assert cache.keys.shape == (g, 1, n, d)


def test_growth_doubles_the_capacity_and_keeps_earlier_rows() -> None:
    rng = np.random.default_rng(2)
    k, v = rng.standard_normal((2, 40, 3)), rng.standard_normal((2, 40, 1))
    cache = KVCache(3, 1, batch_shape=(2,), capacity=1)
    capacities = []
    for i in range(40):
        cache.append(k[:, i : i + 1], v[:, i : i + 1])
        capacities.append(cache.capacity)
        np.testing.assert_array_equal(cache.keys, k[:, : i + 1])
        np.testing.assert_array_equal(cache.values, v[:, : i + 1])
    # 1, 2, 4, ..., 64: six moves for 40 appends, not one per append
    assert sorted(set(capacities)) == [1, 2, 4, 8, 16, 32, 64]
    # a chunk larger than the doubled capacity grows to fit it at once
    big = KVCache(3, 1, capacity=2)
    big.append(np.ones((7, 3)), np.ones((7, 1)))
    assert (len(big), big.capacity) == (7, 7)


def test_rows_copied_by_growth_stay_below_twice_the_rows_appended() -> None:
    """Amortised O(1) per row: the full copies add up to fewer than 2 n rows."""
    cache = KVCache(1, capacity=1)
    copied, n = 0, 1000
    for _ in range(n):
        before = cache.capacity
        if len(cache) + 1 > before:
            copied += len(cache)  # _grow copies the n cached rows once
        cache.append([[1.0]], [[1.0]])
        assert cache.capacity in (before, max(len(cache), 2 * before))
    assert copied < 2 * n


def test_views_are_read_only_and_not_copies() -> None:
    cache = KVCache(2, capacity=8)
    k = np.array([[1.0, 2.0]])
    cache.append(k, k)
    keys = cache.keys
    assert not keys.flags.writeable and not cache.values.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        keys[0, 0] = 5.0
    assert keys.base is not None  # a view into the buffer
    k[0, 0] = 9.0  # the caller's array was copied in, not referenced
    assert cache.keys.tolist() == [[1.0, 2.0]]
    # a view taken before a growth keeps its rows
    for _ in range(10):
        cache.append([[3.0, 4.0]], [[3.0, 4.0]])
    assert keys.tolist() == [[1.0, 2.0]]
    assert cache.keys.shape == (11, 2)


def test_empty_cache_and_its_attributes() -> None:
    cache = KVCache(4, 2, batch_shape=(3,), dtype=np.float32)
    assert len(cache) == 0
    assert cache.keys.shape == (3, 0, 4) and cache.values.shape == (3, 0, 2)
    assert (cache.d_k, cache.d_v, cache.batch_shape) == (4, 2, (3,))
    assert cache.dtype == np.float32
    assert repr(cache) == "KVCache(d_k=4, d_v=2, batch_shape=(3,), dtype=float32, n=0)"
    assert KVCache(5).d_v == 5
    assert KVCache(2, batch_shape=4).batch_shape == (4,)


def test_float32_cache_keeps_float32() -> None:
    cache = KVCache(2, dtype=np.float32)
    cache.append(np.ones((2, 2), np.float32), np.ones((2, 2), np.float16))
    assert cache.keys.dtype == np.float32 and cache.values.dtype == np.float32
    assert cache.attend(np.ones((1, 2), np.float32)).dtype == np.float32


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"d_k": 0}, ValueError, "`d_k` must be a positive integer, got 0"),
        ({"d_k": 2.0}, ValueError, "`d_k` must be a positive integer"),
        ({"d_k": 2, "d_v": True}, ValueError, "`d_v` must be a positive integer"),
        ({"d_k": 2, "capacity": 0}, ValueError, "`capacity` must be a positive"),
        (
            {"d_k": 2, "batch_shape": (2, 0)},
            ValueError,
            r"`batch_shape` must be .* \(2, 0\)",
        ),
        ({"d_k": 2, "batch_shape": "ab"}, ValueError, "`batch_shape` must be a tuple"),
        (
            {"d_k": 2, "dtype": np.float16},
            TypeError,
            "`dtype` must be float32 or float64",
        ),
        (
            {"d_k": 2, "dtype": np.int64},
            TypeError,
            "`dtype` must be float32 or float64",
        ),
        ({"d_k": 2, "dtype": "not a dtype"}, TypeError, "`dtype` must be float32"),
    ],
)
def test_constructor_errors(kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        KVCache(**kwargs)


@pytest.mark.parametrize(
    ("k", "v", "error", "message"),
    [
        (
            np.ones((1, 3)),
            np.ones((1, 2)),
            ValueError,
            r"`k` has d_k=3 but the cache has d_k=4: shape \(1, 3\)",
        ),
        (
            np.ones((1, 4)),
            np.ones((1, 3)),
            ValueError,
            r"`v` has d_v=3 but the cache has d_v=2: shape \(1, 3\)",
        ),
        (
            np.ones((2, 1, 4)),
            np.ones((2, 1, 2)),
            ValueError,
            r"`k` has batch dimensions \(2,\) but the cache has batch_shape=\(\): "
            r"shape \(2, 1, 4\)",
        ),
        (
            np.ones((2, 4)),
            np.ones((3, 2)),
            ValueError,
            r"`k` has t=2 but `v` has t=3: shapes \(2, 4\) and \(3, 2\)",
        ),
        (np.ones((0, 4)), np.ones((0, 2)), ValueError, "`k` and `v` have t=0 rows"),
        (
            np.ones(4),
            np.ones((1, 2)),
            ValueError,
            r"`k` must have shape \(\*batch_shape, t, d_k\), got shape \(4,\)",
        ),
        (
            np.full((1, 4), np.nan),
            np.ones((1, 2)),
            ValueError,
            "`k` contains NaN or infinite values",
        ),
        (
            np.ones((1, 4)),
            np.full((1, 2), np.inf),
            ValueError,
            "`v` contains NaN or infinite values",
        ),
        (np.ones((1, 4), complex), np.ones((1, 2)), TypeError, "`k` must hold real"),
        (
            np.ma.masked_array(np.ones((1, 4))),
            np.ones((1, 2)),
            TypeError,
            "`k` is a numpy masked array",
        ),
    ],
)
def test_append_errors_name_the_argument_and_change_nothing(
    k, v, error, message
) -> None:
    cache = KVCache(4, 2)
    cache.append(np.zeros((1, 4)), np.zeros((1, 2)))
    with pytest.raises(error, match=message):
        cache.append(k, v)
    assert len(cache) == 1
    assert cache.keys.tolist() == [[0.0] * 4]


def test_append_refuses_a_lossy_dtype() -> None:
    cache = KVCache(2, dtype=np.float32)
    with pytest.raises(
        TypeError, match=r"`k` has dtype float64, which the cache's float32 cannot"
    ):
        cache.append(np.ones((1, 2)), np.ones((1, 2), np.float32))
    with pytest.raises(TypeError, match="`v` has dtype float64"):
        cache.append(np.ones((1, 2), np.float32), [[1.0, 2.0]])
    # integers beyond 2**24 have no exact float32; the message names int64,
    # the dtype of the rows passed, not the float64 they would convert to
    with pytest.raises(TypeError, match="`k` has int64 values that the cache's"):
        cache.append(np.array([[2**24 + 1, 0]]), np.zeros((1, 2), np.float32))
    assert len(cache) == 0


def test_append_takes_integer_rows_that_convert_exactly() -> None:
    cache = KVCache(2, dtype=np.float32)
    cache.append([[1, -2]], np.array([[2**24, 3]], dtype=np.int64))
    cache.append(np.array([[True, False]]), np.array([[-(2**30), 0]]))  # 2**30 fits
    assert cache.keys.dtype == np.float32
    assert cache.keys.tolist() == [[1.0, -2.0], [1.0, 0.0]]
    assert cache.values.tolist() == [[16777216.0, 3.0], [-1073741824.0, 0.0]]


@pytest.mark.parametrize(
    ("q", "kwargs", "error", "message"),
    [
        (
            np.ones((1, 3)),
            {},
            ValueError,
            r"`q` has d_k=3 but the cache has d_k=4: shapes \(1, 3\) and \(2, 2, 4\)",
        ),
        (
            np.ones((3, 4)),
            {},
            ValueError,
            r"`q` has t=3 queries but the cache holds n=2 tokens: .*"
            r"shapes \(3, 4\) and \(2, 2, 4\)",
        ),
        (np.ones((0, 4)), {}, ValueError, "`q` has t=0 queries"),
        (
            np.ones((3, 1, 4)),
            {},
            ValueError,
            r"leading \(batch\) dimensions of `q` do not broadcast with the cache's "
            r"batch_shape=\(2,\): shapes \(3, 1, 4\) and \(2, 2, 4\)",
        ),
        (np.ones(4), {}, ValueError, r"`q` must have shape \(\.\.\., t, d_k\)"),
        (np.full((1, 4), np.nan), {}, ValueError, "`q` contains NaN"),
        (np.ones((1, 4)), {"scale": 0.0}, ValueError, "`scale` must be a positive"),
        (np.ones((1, 4), dtype=object), {}, TypeError, "`q` must hold real numbers"),
        (
            np.full((1, 4), 1e300),
            {"scale": 1e300},
            ValueError,
            r"the scores `q` @ `cache.keys`\^T \* scale overflow float64: "
            r"shapes \(1, 4\) and \(2, 2, 4\)",
        ),
    ],
)
def test_attend_errors_name_the_argument(q, kwargs, error, message) -> None:
    cache = KVCache(4, 2, batch_shape=(2,))
    cache.append(np.ones((2, 2, 4)), np.ones((2, 2, 2)))
    with pytest.raises(error, match=message):
        cache.attend(q, **kwargs)


def test_attend_on_an_empty_cache() -> None:
    with pytest.raises(ValueError, match="the cache is empty"):
        KVCache(2).attend(np.ones((1, 2)))


def test_kv_cache_bytes_by_hand() -> None:
    # 2 (K and V) x 2 layers x 3 heads x d_k 4 x 5 tokens x 1 byte x 2 sequences
    assert kv_cache_bytes(2, 3, 4, 5, bytes_per_value=1, batch=2) == 480
    # GPT-3 175B sizes (Brown et al., 2020, Table 2.1), 16-bit values:
    # 2 * 96 * 96 * 128 * 2048 * 2 = 9 * 2^30
    assert kv_cache_bytes(96, 96, 128, 2048) == 9 * 2**30
    assert kv_cache_bytes(96, 1, 128, 2048) == 9 * 2**30 // 96  # one K, V head
    # an exact Python int, also beyond the range of int64
    huge = kv_cache_bytes(10**6, 10**6, 10**6, 10**6, bytes_per_value=8)
    assert huge == 16 * 10**24 and isinstance(huge, int)


def test_kv_cache_bytes_matches_a_real_cache() -> None:
    layers, heads, d, n = 3, 4, 5, 6
    caches = [KVCache(d, batch_shape=(heads,), capacity=n) for _ in range(layers)]
    for cache in caches:
        cache.append(np.ones((heads, n, d)), np.ones((heads, n, d)))
    stored = sum(c.keys.nbytes + c.values.nbytes for c in caches)
    assert stored == kv_cache_bytes(layers, heads, d, n, bytes_per_value=8)


@pytest.mark.parametrize(
    "name", ["n_layers", "n_kv_heads", "d_k", "n_tokens", "bytes_per_value", "batch"]
)
@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "4"])
def test_kv_cache_bytes_needs_positive_integers(name, bad) -> None:
    args = {"n_layers": 1, "n_kv_heads": 1, "d_k": 1, "n_tokens": 1}
    keywords = {"bytes_per_value": 2, "batch": 1}
    (args if name in args else keywords)[name] = bad
    with pytest.raises(ValueError, match=f"`{name}` must be a positive integer"):
        kv_cache_bytes(*args.values(), **keywords)
