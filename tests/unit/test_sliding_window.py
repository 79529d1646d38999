"""Tests of the sliding window: sliding_window_mask, RollingKVCache, the
window of kv_cache_bytes, and the tiles blockwise attention skips.

The references are written out literally: the mask from its definition
(a key ``j`` is visible from position ``p`` when ``p - W < j <= p``, or when
``j < n_sink`` and ``j <= p``), the rolling cache from full attention under
that mask, the tile counts from masks built cell by cell.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_docs._kernels as kernels
import attention_docs.blockwise as blockwise_module
from attention_docs import (
    RollingKVCache,
    blockwise_attention,
    blockwise_attention_backward,
    blockwise_tile_counts,
    causal_mask,
    combine_masks,
    kv_cache_bytes,
    scaled_dot_product_attention,
    sliding_window_mask,
)

PROPERTY = settings(deadline=None, max_examples=80, database=None)


# --- sliding_window_mask ------------------------------------------------------


def test_mask_by_hand() -> None:
    # W = 2: each row sees itself and the key before it
    assert sliding_window_mask(4, window=2).astype(int).tolist() == [
        [1, 0, 0, 0],
        [1, 1, 0, 0],
        [0, 1, 1, 0],
        [0, 0, 1, 1],
    ]
    # one sink: key 0 stays visible to every row
    assert sliding_window_mask(4, window=2, n_sink=1).astype(int).tolist() == [
        [1, 0, 0, 0],
        [1, 1, 0, 0],
        [1, 1, 1, 0],
        [1, 0, 1, 1],
    ]
    # two queries at positions 3 and 4 of five keys (bottom right)
    assert sliding_window_mask(2, 5, window=3).astype(int).tolist() == [
        [0, 1, 1, 1, 0],
        [0, 0, 1, 1, 1],
    ]


def test_window_one_is_the_diagonal_and_a_wide_window_is_causal() -> None:
    np.testing.assert_array_equal(
        sliding_window_mask(5, window=1), np.eye(5, dtype=bool)
    )
    for n_q, n_k in [(4, 4), (2, 6), (6, 3)]:
        np.testing.assert_array_equal(
            sliding_window_mask(n_q, n_k, window=n_k), causal_mask(n_q, n_k)
        )


@PROPERTY
@given(
    n_q=st.integers(1, 9),
    n_k=st.integers(1, 9),
    window=st.integers(1, 10),
    n_sink=st.integers(0, 4),
)
def test_mask_equals_its_definition_cell_by_cell(n_q, n_k, window, n_sink) -> None:
    got = sliding_window_mask(n_q, n_k, window=window, n_sink=n_sink)
    for i in range(n_q):
        p = i + n_k - n_q
        for j in range(n_k):
            want = (p - window < j <= p) or (j < n_sink and j <= p)
            assert got[i, j] == want
    # a row sees at most W + n_sink keys, and never a key after itself
    assert got.sum(axis=1).max() <= window + n_sink
    assert not np.any(got & ~causal_mask(n_q, n_k))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_q": 3, "window": 0}, "`window` must be a positive integer, got 0"),
        ({"n_q": 3, "window": 2.0}, "`window` must be a positive integer"),
        ({"n_q": 3, "window": True}, "`window` must be a positive integer"),
        ({"n_q": 0, "window": 2}, "`n_q` must be a positive integer"),
        ({"n_q": 3, "n_k": 0, "window": 2}, "`n_k` must be a positive integer"),
        ({"n_q": 3, "window": 2, "n_sink": -1}, "`n_sink` must be an integer >= 0"),
        ({"n_q": 3, "window": 2, "n_sink": 1.0}, "`n_sink` must be an integer >= 0"),
    ],
)
def test_mask_errors_name_the_argument(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        sliding_window_mask(**kwargs)


def test_window_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        sliding_window_mask(3, 3, 2)  # type: ignore[misc]


# --- RollingKVCache -----------------------------------------------------------


def test_rolling_cache_by_hand() -> None:
    # W = 2, one sink: positions 0 1 2 3 4 go to rows 0 1 2 1 2
    cache = RollingKVCache(1, window=2, n_sink=1)
    seen = []
    for p in range(5):
        cache.append([[float(p)]], [[10.0 * p]])
        seen.append(cache.positions.tolist())
    assert seen == [[0], [0, 1], [0, 1, 2], [0, 2, 3], [0, 3, 4]]
    assert cache._k[:, 0].tolist() == [0.0, 3.0, 4.0]  # row 1 holds 3, row 2 holds 4
    assert cache.values[:, 0].tolist() == [0.0, 30.0, 40.0]
    assert (len(cache), cache.n_seen, cache.capacity) == (3, 5, 3)


def test_rolling_cache_weights_by_hand() -> None:
    # keys 0 (sink) and 3, 4 kept; q = 0 gives equal scores: the mean of the values
    cache = RollingKVCache(1, window=2, n_sink=1)
    for p in range(5):
        cache.append([[float(p)]], [[10.0 * p]])
    assert cache.attend([[0.0]]).tolist() == [[(0.0 + 30.0 + 40.0) / 3]]


@st.composite
def streams(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    batch = draw(st.sampled_from([(), (2,), (2, 3)]))
    n = draw(st.integers(1, 14))
    window = draw(st.integers(1, 6))
    n_sink = draw(st.integers(0, 3))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    q = rng.standard_normal((*batch, n, d_k))
    k = rng.standard_normal((*batch, n, d_k))
    v = rng.standard_normal((*batch, n, d_v))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    return q, k, v, window, n_sink, [0, *cuts, n]


@PROPERTY
@given(streams())
def test_rolling_cache_equals_full_attention_under_the_window_mask(stream) -> None:
    q, k, v, window, n_sink, cuts = stream
    n = k.shape[-2]
    cache = RollingKVCache(
        k.shape[-1], v.shape[-1], window=window, n_sink=n_sink, batch_shape=k.shape[:-2]
    )
    full = scaled_dot_product_attention(
        q, k, v, mask=sliding_window_mask(n, window=window, n_sink=n_sink)
    )
    for a, b in itertools.pairwise(cuts):  # chunks of any sizes
        cache.append(k[..., a:b, :], v[..., a:b, :])
        np.testing.assert_allclose(
            cache.attend(q[..., b - 1 : b, :]), full[..., b - 1 : b, :], atol=1e-12
        )
        kept = [p for p in range(b) if p < n_sink or p >= b - window]
        assert cache.positions.tolist() == kept
        np.testing.assert_array_equal(cache.keys, k[..., kept, :])
        np.testing.assert_array_equal(cache.values, v[..., kept, :])
        assert cache._k.shape[-2] == n_sink + window  # memory never grows


def test_rolling_cache_errors_change_nothing() -> None:
    cache = RollingKVCache(2, window=2, n_sink=1)
    cache.append(np.ones((3, 2)), np.ones((3, 2)))
    before = (cache.keys.copy(), cache.values.copy(), cache.n_seen)
    for k, v, error in [
        (np.ones((1, 3)), np.ones((1, 2)), ValueError),
        (np.ones((2, 2)), np.ones((1, 2)), ValueError),
        (np.full((1, 2), np.nan), np.ones((1, 2)), ValueError),
        (np.ones((1, 2)), np.ones((1, 2), np.complex128), TypeError),
    ]:
        with pytest.raises(error):
            cache.append(k, v)
    after = (cache.keys, cache.values, cache.n_seen)
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    assert before[2] == after[2]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"window": 0}, ValueError, "`window` must be a positive integer"),
        ({"window": 2, "n_sink": -1}, ValueError, "`n_sink` must be an integer >= 0"),
        ({"window": 2, "n_sink": True}, ValueError, "`n_sink` must be an integer >= 0"),
        ({"window": 2, "dtype": np.int64}, TypeError, "`dtype` must be float32"),
    ],
)
def test_rolling_cache_constructor_errors(kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        RollingKVCache(2, **kwargs)


def test_rolling_cache_attend_errors() -> None:
    cache = RollingKVCache(2, window=2)
    with pytest.raises(ValueError, match="the cache is empty"):
        cache.attend(np.ones((1, 2)))
    cache.append(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"`q` has t=2 queries.*\(t=1\)"):
        cache.attend(np.ones((2, 2)))
    with pytest.raises(ValueError, match="`q` has d_k=3"):
        cache.attend(np.ones((1, 3)))
    assert "n_seen=3, kept=2" in repr(cache)


# --- kv_cache_bytes(..., window=) ---------------------------------------------


def test_kv_cache_bytes_with_a_window_by_hand() -> None:
    # Mistral 7B: 32 layers, 8 KV heads of 128, window 4096, 16-bit values:
    # 2 * 32 * 8 * 128 * 2 = 131072 bytes a token, 4096 tokens kept
    assert kv_cache_bytes(32, 8, 128, 8192, window=4096) == 131072 * 4096
    assert kv_cache_bytes(32, 8, 128, 1000, window=4096) == 131072 * 1000
    assert kv_cache_bytes(2, 1, 1, 5, window=None) == 2 * 2 * 5 * 2


def test_kv_cache_bytes_window_must_be_positive() -> None:
    with pytest.raises(ValueError, match="`window` must be a positive integer"):
        kv_cache_bytes(1, 1, 1, 1, window=0)


# --- blockwise attention skips the tiles a mask empties -----------------------


def _tiles_by_hand(mask, b):
    n_q, n_k = mask.shape
    return sum(
        1
        for a0 in range(0, n_q, b)
        for b0 in range(0, n_k, b)
        if any(
            mask[i, j]
            for i in range(a0, min(a0 + b, n_q))
            for j in range(b0, min(b0 + b, n_k))
        )
    )


def test_tile_counts_by_hand() -> None:
    # causal, T = 4 blocks a side: T (T + 1) / 2 = 10 of 16
    assert blockwise_tile_counts(causal_mask(8), block_size=2) == (10, 16)
    # window 2, blocks of 2: the 4 diagonal tiles and the 3 below them
    assert blockwise_tile_counts(sliding_window_mask(8, window=2), block_size=2) == (
        7,
        16,
    )
    # blocks that do not divide n: ceil(5 / 2) * ceil(5 / 2) = 9 tiles
    assert blockwise_tile_counts(causal_mask(5), block_size=2) == (6, 9)


@PROPERTY
@given(
    n=st.integers(1, 12),
    window=st.integers(1, 12),
    n_sink=st.integers(0, 3),
    b=st.integers(1, 5),
)
def test_forward_and_backward_compute_exactly_the_counted_tiles(
    n, window, n_sink, b
) -> None:
    mask = sliding_window_mask(n, window=window, n_sink=n_sink)
    computed, total = blockwise_tile_counts(mask, block_size=b)
    assert computed == _tiles_by_hand(mask, b)
    assert total == ((n + b - 1) // b) ** 2
    rng = np.random.default_rng(n * 100 + window)
    q, k, v, g = rng.standard_normal((4, n, 3))
    calls = []
    original = kernels.scaled_products

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    blockwise_module.scaled_products = counting
    try:
        z, lse = blockwise_attention(q, k, v, mask=mask, block_size=b, return_lse=True)
        forward_calls = len(calls)
        grads = blockwise_attention_backward(
            q, k, v, z, lse, g, mask=mask, block_size=b
        )
    finally:
        blockwise_module.scaled_products = original
    assert forward_calls == computed
    assert len(calls) == 2 * computed
    np.testing.assert_allclose(
        z, scaled_dot_product_attention(q, k, v, mask=mask), atol=1e-12
    )
    assert all(np.all(np.isfinite(x)) for x in grads)


def test_one_decoding_query_skips_the_blocks_outside_its_window() -> None:
    # one query against 1024 keys, window 128 and 4 sinks, blocks of 64:
    # key block 0 (the sinks) and the last two blocks hold visible keys
    mask = sliding_window_mask(1, 1024, window=128, n_sink=4)
    assert blockwise_tile_counts(mask, block_size=64) == (3, 16)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 8))
    k = rng.standard_normal((1024, 8))
    v = rng.standard_normal((1024, 2))
    np.testing.assert_allclose(
        blockwise_attention(q, k, v, mask=mask, block_size=64),
        scaled_dot_product_attention(q, k, v, mask=mask),
        atol=1e-12,
    )


def test_tile_counts_with_batch_dimensions_and_errors() -> None:
    # a padded batch: a tile counts when any sequence needs it
    lengths = np.array([[True] * 4 + [False] * 4, [True] * 8])[:, None, :]
    mask = combine_masks(causal_mask(8), lengths)
    assert blockwise_tile_counts(mask, block_size=4) == (3, 4)
    with pytest.raises(TypeError, match="mask must be boolean"):
        blockwise_tile_counts(np.ones((2, 2)), block_size=1)
    with pytest.raises(ValueError, match=r"`mask` must have shape \(..., n_q, n_k\)"):
        blockwise_tile_counts(np.ones(3, bool))
    with pytest.raises(ValueError, match="`block_size` must be a positive integer"):
        blockwise_tile_counts(causal_mask(2), block_size=0)


# --- PyTorch computes the same attention with the same boolean mask ------------


@pytest.mark.parametrize(("n", "window", "n_sink"), [(9, 3, 0), (9, 3, 2), (12, 1, 4)])
def test_window_mask_in_torch_sdpa(n, window, n_sink) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(n + window + n_sink)
    q, k, v = rng.standard_normal((3, 2, n, 4))
    mask = sliding_window_mask(n, window=window, n_sink=n_sink)
    want = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(x) for x in (q, k, v)), attn_mask=torch.tensor(mask)
    ).numpy()
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, mask=mask), want, rtol=1e-12, atol=1e-13
    )
    np.testing.assert_allclose(
        blockwise_attention(q, k, v, mask=mask, block_size=2),
        want,
        rtol=1e-12,
        atol=1e-13,
    )
    # decoding one token at a time with the rolling cache gives the same rows
    cache = RollingKVCache(4, window=window, n_sink=n_sink, batch_shape=(2,))
    for p in range(n):
        cache.append(k[:, p : p + 1], v[:, p : p + 1])
        np.testing.assert_allclose(
            cache.attend(q[:, p : p + 1]), want[:, p : p + 1], rtol=1e-12, atol=1e-13
        )
