"""Tests of attention_docs.blockwise: exact attention over blocks of keys.

The reference is ``scaled_dot_product_attention``, itself checked against a
plain-Python loop written from the formula (tests/unit/test_attention.py).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import blockwise_attention, scaled_dot_product_attention
from attention_docs.masks import causal_mask

PROPERTY = settings(deadline=None, max_examples=80, database=None)


@st.composite
def problems(draw):
    """Random q, k, v (with broadcast batch dimensions), a mask, a block size."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_q, n_k = draw(st.integers(1, 9)), draw(st.integers(1, 12))
    d_k, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    batch_q = draw(st.sampled_from([(), (2,), (2, 1)]))
    batch_k = draw(
        st.sampled_from([(), (1,), (3,)] if len(batch_q) == 2 else [(), (2,)])
    )
    spread = draw(st.sampled_from([0.1, 1.0, 30.0]))  # 30: scores far apart
    q = spread * rng.standard_normal((*batch_q, n_q, d_k))
    k = rng.standard_normal((*batch_k, n_k, d_k))
    v = rng.standard_normal((*batch_k, n_k, d_v))
    kind = draw(st.sampled_from(["none", "random", "causal", "some rows empty"]))
    mask = None
    if kind == "random":
        mask = rng.random((n_q, n_k)) < 0.6
    elif kind == "causal":
        mask = causal_mask(n_q, n_k)
    elif kind == "some rows empty":
        mask = rng.random((n_q, n_k)) < 0.5
        mask[rng.random(n_q) < 0.4] = False
    block_size = draw(st.integers(1, n_k + 3))  # 1, divisors, non-divisors, > n_k
    return q, k, v, mask, block_size


@PROPERTY
@given(problems())
def test_equals_scaled_dot_product_attention(problem) -> None:
    q, k, v, mask, block_size = problem
    expected = scaled_dot_product_attention(q, k, v, mask=mask)
    actual = blockwise_attention(q, k, v, mask=mask, block_size=block_size)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)


@PROPERTY
@given(problems(), st.floats(0.01, 3.0))
def test_equals_the_reference_with_any_scale(problem, scale) -> None:
    q, k, v, mask, block_size = problem
    expected = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    actual = blockwise_attention(q, k, v, mask=mask, scale=scale, block_size=block_size)
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)


def test_fully_masked_rows_are_zero_and_others_are_exact() -> None:
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[1.0], [2.0], [3.0]])
    mask = np.array([[False, False, False], [True, True, False]])
    out = blockwise_attention(q, k, v, mask=mask, scale=np.log(3.0), block_size=1)
    # Row 1 sees keys 0 and 1 with scores 0 and ln 3: weights 1/4 and 3/4.
    assert out.tolist() == [[0.0], [pytest.approx(0.25 * 1.0 + 0.75 * 2.0)]]


def test_a_block_of_keys_that_is_fully_masked_changes_nothing() -> None:
    rng = np.random.default_rng(1)
    q, k, v = (
        rng.standard_normal((3, 4)),
        rng.standard_normal((6, 4)),
        rng.standard_normal((6, 2)),
    )
    mask = np.ones((3, 6), dtype=bool)
    mask[:, :3] = False  # the whole first block of 3 keys is hidden
    np.testing.assert_allclose(
        blockwise_attention(q, k, v, mask=mask, block_size=3),
        scaled_dot_product_attention(q, k[3:], v[3:]),
        rtol=1e-12,
    )


def test_memory_grows_with_the_block_not_with_all_keys() -> None:
    """Peak memory: O(n_q * block_size), where the plain version is O(n_q * n_k)."""
    rng = np.random.default_rng(0)
    n, d = 1024, 8
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))

    def peak(function) -> int:
        tracemalloc.start()
        function()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak

    plain = peak(lambda: scaled_dot_product_attention(q, k, v))
    blocks = peak(lambda: blockwise_attention(q, k, v, block_size=32))
    weights = n * n * 8  # one float64 n x n matrix
    assert plain > weights
    assert blocks < weights / 4, (blocks, weights)


@pytest.mark.parametrize("block_size", [0, -1, 1.5, True, "4", None])
def test_block_size_must_be_a_positive_integer(block_size) -> None:
    q = np.ones((2, 3))
    with pytest.raises(ValueError, match="`block_size` must be a positive integer"):
        blockwise_attention(q, q, q, block_size=block_size)


@pytest.mark.parametrize(
    ("q", "k", "v", "mask"),
    [
        (np.ones((2, 3)), np.ones((4, 2)), np.ones((4, 1)), None),  # d_k differs
        (np.ones((2, 3)), np.ones((4, 3)), np.ones((5, 1)), None),  # n_k differs
        (np.ones(3), np.ones((4, 3)), np.ones((4, 1)), None),  # q is 1-D
        (np.ones((2, 3)), np.ones((4, 3)), np.full((4, 1), np.nan), None),  # NaN
        (np.full((2, 3), 1e200), np.full((4, 3), 1e200), np.ones((4, 1)), None),
        (np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 1)), np.ones((3, 4), bool)),
        (np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 1)), np.ones((2, 4), int)),
        (np.ones((2, 2, 3)), np.ones((3, 4, 3)), np.ones((3, 4, 1)), None),  # batch
    ],
)
def test_bad_input_gives_the_error_of_the_reference(q, k, v, mask) -> None:
    with pytest.raises((ValueError, TypeError)) as expected:
        scaled_dot_product_attention(q, k, v, mask=mask)
    with pytest.raises(expected.type) as actual:
        blockwise_attention(q, k, v, mask=mask, block_size=2)
    assert str(actual.value) == str(expected.value)
