"""Tests of attention_docs.blockwise: exact attention over blocks of keys.

The reference is ``scaled_dot_product_attention``, itself checked against a
plain-Python loop written from the formula (tests/unit/test_attention.py);
for the backward pass, ``scaled_dot_product_attention_backward``, itself
checked against central finite differences (tests/unit/test_backward.py),
and PyTorch's autograd (tests/unit/test_blockwise_torch.py).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import (
    blockwise_attention,
    blockwise_attention_backward,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
)
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


# -- the backward pass --------------------------------------------------------


def backward_both(q, k, v, mask, block_size, g=None, seed=0):
    """Blockwise gradients (from the forward's output and lse), and the dense ones."""
    out, lse = blockwise_attention(
        q, k, v, mask=mask, block_size=block_size, return_lse=True
    )
    if g is None:
        g = np.random.default_rng(seed).standard_normal(out.shape)
    got = blockwise_attention_backward(
        q, k, v, out, lse, g, mask=mask, block_size=block_size
    )
    want = scaled_dot_product_attention_backward(q, k, v, g, mask=mask)
    return got, want


@PROPERTY
@given(problems())
def test_backward_equals_the_dense_backward(problem) -> None:
    q, k, v, mask, block_size = problem
    got, want = backward_both(q, k, v, mask, block_size)
    for name, a, b in zip("qkv", got, want, strict=True):
        assert a.shape == b.shape, name
        # dS = A (dA - D) cancels: the error is relative to the largest term
        atol = 1e-12 * max(1.0, float(np.abs(b).max(initial=0.0)))
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=atol, err_msg=name)


def test_lse_is_the_log_sum_exp_of_the_visible_scores() -> None:
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), np.ones((5, 1))
    mask = causal_mask(4, 5)
    mask[0] = False  # query 0 sees nothing
    _, lse = blockwise_attention(q, k, v, mask=mask, block_size=2, return_lse=True)
    s = q @ k.T / np.sqrt(3)
    assert lse[0] == -np.inf
    for i in range(1, 4):
        visible = s[i][mask[i]]
        assert lse[i] == pytest.approx(np.log(np.sum(np.exp(visible))), rel=1e-14)
    # without return_lse the forward pass returns the output alone, as before
    assert isinstance(blockwise_attention(q, k, v, block_size=2), np.ndarray)


@pytest.mark.parametrize(
    ("n_q", "n_k", "block_size"),
    [(1, 1, 1), (1, 1, 128), (6, 6, 6), (6, 6, 100), (7, 10, 3), (10, 7, 4)],
    ids=["n=1", "n=1,one-block", "one-block", "block>n", "3-not-dividing", "n_q>n_k"],
)
@pytest.mark.parametrize("causal", [False, True])
def test_backward_at_the_edges(n_q, n_k, block_size, causal) -> None:
    rng = np.random.default_rng(n_q * 100 + n_k)
    q, k, v = (rng.standard_normal((n, 4)) for n in (n_q, n_k, n_k))
    mask = causal_mask(n_q, n_k) if causal else None  # n_q > n_k: empty rows
    got, want = backward_both(q, k, v, mask, block_size)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_backward_by_hand_for_one_query_and_two_keys() -> None:
    # s = (0, ln 3): A = (1/4, 3/4), z = v_0/4 + 3 v_1/4 = 2.5 for v = (1, 3);
    # G = 1: dV = A^T G = (1/4, 3/4), D = G z = 2.5, dA = G v = (1, 3),
    # dS = A (dA - D) = (1/4 * -1.5, 3/4 * 0.5) = (-0.375, 0.375)
    q = np.array([[1.0]])
    k = np.array([[0.0], [1.0]])
    v = np.array([[1.0], [3.0]])
    out, lse = blockwise_attention(q, k, v, scale=np.log(3.0), return_lse=True)
    assert out.tolist() == [[pytest.approx(2.5)]]
    assert lse.tolist() == [pytest.approx(np.log(4.0))]  # log(1 + 3)
    dq, dk, dv = blockwise_attention_backward(
        q, k, v, out, lse, np.ones((1, 1)), scale=np.log(3.0), block_size=1
    )
    assert dv.ravel().tolist() == pytest.approx([0.25, 0.75])
    # dQ = scale dS K = ln 3 * 0.375; dK_j = scale dS_j q = ln 3 * (-0.375, 0.375)
    assert dq.ravel().tolist() == pytest.approx([np.log(3.0) * 0.375])
    assert dk.ravel().tolist() == pytest.approx(np.log(3.0) * np.array([-0.375, 0.375]))


def test_masked_keys_get_no_gradient_and_fully_masked_tiles_are_skipped() -> None:
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((8, 3)) for _ in range(3))
    mask = causal_mask(8, 8)
    mask[:, 6:] = False  # keys 6 and 7: no query sees them
    got, want = backward_both(q, k, v, mask, block_size=2)
    assert not got[1][6:].any() and not got[2][6:].any()
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_float32_stays_float32_to_its_precision() -> None:
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((9, 4)).astype(np.float32) for _ in range(3))
    g = rng.standard_normal((9, 4)).astype(np.float32)
    out, lse = blockwise_attention(q, k, v, block_size=4, return_lse=True)
    assert out.dtype == lse.dtype == np.float32
    got = blockwise_attention_backward(q, k, v, out, lse, g, block_size=4)
    want = scaled_dot_product_attention_backward(
        *(x.astype(np.float64) for x in (q, k, v, g))
    )
    for a, b in zip(got, want, strict=True):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_backward_memory_grows_with_the_block_not_with_n_squared() -> None:
    """Peak memory: O(block_size^2 + n d) for the tiles, where the dense is O(n^2)."""
    rng = np.random.default_rng(0)
    n, d = 1024, 8
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    out, lse = blockwise_attention(q, k, v, block_size=32, return_lse=True)
    g = rng.standard_normal(out.shape)

    def peak(function) -> int:
        tracemalloc.start()
        function()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak

    dense = peak(lambda: scaled_dot_product_attention_backward(q, k, v, g))
    blocks = peak(
        lambda: blockwise_attention_backward(q, k, v, out, lse, g, block_size=32)
    )
    weights = n * n * 8  # one float64 n x n matrix
    assert dense > weights
    assert blocks < weights / 4, (blocks, weights)


def arguments():
    rng = np.random.default_rng(6)
    q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), np.ones((4, 1))
    out, lse = blockwise_attention(q, k, v, return_lse=True)
    return {"q": q, "k": k, "v": v, "output": out, "lse": lse, "grad_output": out}


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"lse": np.zeros(2)}, ValueError, r"`lse` must have shape \(\.\.\., n_q\)"),
        ({"lse": np.zeros((3, 1))}, ValueError, r"`lse` must have shape .* \(3, 1\)"),
        ({"lse": np.array([0.0, np.nan, 0.0])}, ValueError, "`lse` contains NaN"),
        ({"lse": np.array([0.0, np.inf, 0.0])}, ValueError, "other than -inf"),
        ({"lse": np.array([-np.inf, 0.0, 0.0])}, ValueError, "`lse` is not the"),
        ({"lse": np.array(["a", "b", "c"])}, TypeError, "`lse` must hold real"),
        ({"output": np.ones((3, 2))}, ValueError, "`output` must have the output's"),
        ({"grad_output": np.ones((1,))}, ValueError, "`grad_output` must have"),
        ({"v": np.ones((5, 1))}, ValueError, "n_k"),
        ({"mask": np.ones((3, 4), int)}, TypeError, "mask"),
        ({"mask": np.ones((2, 4), bool)}, ValueError, "does not broadcast"),
        ({"block_size": 0}, ValueError, "`block_size` must be a positive integer"),
    ],
)
def test_backward_bad_input_names_the_argument(change, error, message) -> None:
    args = arguments()
    before = {name: np.array(x, copy=True) for name, x in args.items()}
    with pytest.raises(error, match=message):
        blockwise_attention_backward(**{**args, **change})
    for name, x in args.items():
        np.testing.assert_array_equal(x, before[name])  # nothing changed


def test_backward_scores_that_overflow_give_the_forward_error() -> None:
    big = np.full((2, 3), 1e200)
    with pytest.raises(ValueError) as forward:
        blockwise_attention(big, big, np.ones((2, 1)))
    with pytest.raises(ValueError) as backward:
        blockwise_attention_backward(
            big, big, np.ones((2, 1)), np.ones((2, 1)), np.zeros(2), np.ones((2, 1))
        )
    assert str(backward.value) == str(forward.value)


def test_values_near_the_float_maximum_give_finite_gradients() -> None:
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((4, 2)), rng.standard_normal((5, 2))
    v = np.full((5, 1), 1.6e308)
    v[::2] = 1.7e308
    g = np.full((4, 1), 1e-300)
    got, want = backward_both(q, k, v, None, 2, g=g)
    for a, b in zip(got, want, strict=True):
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-300)
