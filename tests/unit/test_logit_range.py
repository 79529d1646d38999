"""Tests of attention_docs.logit_range: RMS norm, QK-norm and soft-capping."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_docs import attention_scores, qk_norm, rms_norm, soft_cap

PROPERTY = settings(deadline=None, max_examples=60, database=None)
VALUES = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


# --- independent references, written from the formulas ----------------------


def rms_reference(x, gain, eps):
    """Zhang and Sennrich (2019), Eq. 4 with eps, one row at a time."""
    out = np.empty_like(x, dtype=float)
    for index in np.ndindex(x.shape[:-1]):
        row = [float(value) for value in x[index]]
        rms = math.sqrt(sum(value * value for value in row) / len(row) + eps)
        out[index] = [g * value / rms for value, g in zip(row, gain, strict=True)]
    return out


# --- values by hand -----------------------------------------------------------


def test_rms_norm_by_hand() -> None:
    # (3, 4): mean square (9 + 16) / 2 = 12.5, rms = 5 / sqrt(2)
    # -> (3 sqrt(2) / 5, 4 sqrt(2) / 5) = (0.848528..., 1.131370...)
    got = rms_norm([[3.0, 4.0]], eps=1e-300)
    np.testing.assert_allclose(got, [[3 * 2**0.5 / 5, 4 * 2**0.5 / 5]], rtol=1e-15)
    # eps = 12.5: rms = sqrt(25) = 5 -> (0.6, 0.8); gain (2, -1) -> (1.2, -0.8)
    np.testing.assert_allclose(
        rms_norm([3.0, 4.0], [2.0, -1.0], eps=12.5), [1.2, -0.8], rtol=1e-15
    )
    # a scalar gain is the same number for every component
    np.testing.assert_allclose(
        rms_norm([3.0, 4.0], 3.0, eps=12.5), [1.8, 2.4], rtol=1e-15
    )


def test_qk_norm_bound_attained_by_parallel_vectors() -> None:
    # q = (1, 1, 1, 1), k = 2 q: normalised both to (1, 1, 1, 1) (eps -> 0);
    # q.k / sqrt(4) = 4 / 2 = 2 = sqrt(d_k) * g^2 with g = 1; g = 3 -> 18
    q = np.ones((1, 4))
    k = 2 * np.ones((1, 4))
    q_hat, k_hat = qk_norm(q, k, eps=1e-300)
    assert attention_scores(q_hat, k_hat).tolist() == [[2.0]]
    q_hat, k_hat = qk_norm(q, k, gain_q=3.0, gain_k=3.0, eps=1e-300)
    assert attention_scores(q_hat, k_hat).tolist() == [[18.0]]
    # antiparallel: -sqrt(d_k) g^2
    q_hat, k_hat = qk_norm(q, -k, eps=1e-300)
    assert attention_scores(q_hat, k_hat).tolist() == [[-2.0]]


def test_soft_cap_by_hand() -> None:
    # c tanh(x / c) with c = 2: x = 2 -> 2 tanh(1) = 1.5231883119...
    assert soft_cap([2.0], 2.0)[0] == pytest.approx(2 * math.tanh(1.0), rel=1e-15)
    assert soft_cap(0.0, 50.0) == 0.0
    # tanh(ln 3) = (9 - 1) / (9 + 1) = 0.8: x = c ln 3 -> 0.8 c
    np.testing.assert_allclose(soft_cap([10 * math.log(3.0)], 10.0), [8.0], rtol=1e-14)
    np.testing.assert_allclose(
        soft_cap([-10 * math.log(3.0)], 10.0), [-8.0], rtol=1e-14
    )


# --- edge cases -----------------------------------------------------------------


def test_rms_norm_of_any_magnitude_and_zero_rows() -> None:
    tiny = np.array([[5e-324, 0.0], [1e-310, 1e-310]])
    np.testing.assert_allclose(
        rms_norm(tiny, eps=1e-300), rms_reference(tiny, [1.0, 1.0], 1e-300), rtol=1e-12
    )
    huge = np.array([[1e308, -1e308], [1.7e308, 1.7e308]])
    np.testing.assert_allclose(rms_norm(huge), [[1.0, -1.0], [1.0, 1.0]], rtol=1e-12)
    assert rms_norm(np.zeros((2, 3))).tolist() == [[0.0] * 3] * 2


def test_dtypes_and_empty_shapes() -> None:
    x32 = np.ones((2, 3), np.float32)
    assert rms_norm(x32).dtype == np.float32
    assert soft_cap(x32, 1.0).dtype == np.float32
    assert soft_cap([1, 2], 1.0).dtype == np.float64
    q_hat, k_hat = qk_norm(x32, np.ones((0, 3), np.float32))
    assert q_hat.dtype == np.float32 and k_hat.shape == (0, 3)
    assert rms_norm(np.ones((0, 4))).shape == (0, 4)
    assert soft_cap(np.ones((2, 0)), 3.0).shape == (2, 0)


def test_qk_norm_broadcasts_batches() -> None:
    q = np.ones((2, 1, 3, 4))
    k = np.ones((5, 4))
    q_hat, k_hat = qk_norm(q, k)
    assert q_hat.shape == (2, 1, 3, 4) and k_hat.shape == (5, 4)


def test_soft_cap_huge_and_tiny_caps() -> None:
    # cap far above x: the identity, also when x / cap underflows
    assert soft_cap([1e-10, -3.0], 1e300).tolist() == [1e-10, -3.0]
    np.testing.assert_array_equal(
        soft_cap(np.array([1e-3], np.float32), 3e38), np.array([1e-3], np.float32)
    )
    # cap far below x: x / cap overflows, the result is the cap
    assert soft_cap([1e10, -1e10], 1e-300).tolist() == [1e-300, -1e-300]
    # the largest float32 with a cap beyond float32
    big = np.array([3e38], np.float32)
    assert np.isfinite(soft_cap(big, 1e39)).all()


def test_inputs_unchanged() -> None:
    q = np.arange(6.0).reshape(2, 3)
    k = q.copy()
    before = q.copy()
    qk_norm(q, k)
    soft_cap(q, 1.0)
    rms_norm(q)
    np.testing.assert_array_equal(q, before)
    np.testing.assert_array_equal(k, before)


# --- errors ----------------------------------------------------------------------


def test_errors_name_the_arguments() -> None:
    with pytest.raises(ValueError, match="`q` has d_k=4 but `k` has d_k=3"):
        qk_norm(np.ones((2, 4)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="`q` and `k` have d_k=0"):
        qk_norm(np.ones((2, 0)), np.ones((2, 0)))
    with pytest.raises(ValueError, match="`k`"):
        qk_norm(np.ones((2, 4)), np.ones(4))
    with pytest.raises(ValueError, match="`q` has d=4 but `gain_q` has d=3"):
        qk_norm(np.ones((2, 4)), np.ones((2, 4)), gain_q=np.ones(3))
    with pytest.raises(ValueError, match="`gain_k` must be a number or have shape"):
        qk_norm(np.ones((2, 4)), np.ones((2, 4)), gain_k=np.ones((2, 4)))
    with pytest.raises(ValueError, match="`eps` must be a positive finite number"):
        qk_norm(np.ones((2, 4)), np.ones((2, 4)), eps=0.0)
    with pytest.raises(ValueError, match="`x` has d=0"):
        rms_norm(np.ones((2, 0)))
    with pytest.raises(ValueError, match="`x`"):
        rms_norm(1.0)
    with pytest.raises(ValueError, match="`gain` contains NaN"):
        rms_norm(np.ones(2), [1.0, np.nan])
    with pytest.raises(ValueError, match="overflows"):
        rms_norm([1.0, 0.0], np.full(2, 1.7e308))  # sqrt(2) * 1.7e308
    with pytest.raises(ValueError, match="`cap` must be a positive finite number"):
        soft_cap(np.ones(2), -1.0)
    with pytest.raises(ValueError, match="`cap`"):
        soft_cap(np.ones(2), math.inf)
    with pytest.raises(ValueError, match="`x` contains NaN or infinite values"):
        soft_cap([0.0, -math.inf], 50.0)
    with pytest.raises(TypeError, match="`x` must hold real numbers"):
        soft_cap(np.ones(2, complex), 1.0)


# --- properties against the formulas ----------------------------------------------


@PROPERTY
@given(
    x=arrays(
        np.float64, st.tuples(st.integers(0, 3), st.integers(1, 5)), elements=VALUES
    ),
    eps=st.floats(1e-8, 10.0),
    data=st.data(),
)
def test_rms_norm_equals_the_formula(x, eps, data) -> None:
    gain = data.draw(arrays(np.float64, x.shape[-1], elements=st.floats(-5, 5)))
    np.testing.assert_allclose(
        rms_norm(x, gain, eps=eps), rms_reference(x, gain, eps), rtol=1e-12, atol=1e-300
    )


@PROPERTY
@given(
    q=arrays(np.float64, (3, 4), elements=VALUES),
    k=arrays(np.float64, (2, 4), elements=VALUES),
    g_q=st.floats(-4, 4),
    g_k=st.floats(-4, 4),
)
def test_qk_norm_bounds_every_scaled_score(q, k, g_q, g_k) -> None:
    q_hat, k_hat = qk_norm(q, k, gain_q=g_q, gain_k=g_k)
    want = rms_reference(q, [g_q] * 4, 1e-6)
    np.testing.assert_allclose(q_hat, want, rtol=1e-12, atol=1e-300)
    scores = attention_scores(q_hat, k_hat)
    bound = math.sqrt(4) * abs(g_q) * abs(g_k)  # sqrt(d_k) g_Q g_K
    # + the smallest normal float: a score below it is subnormal, and its last
    # bits carry no relative precision (tiny gains, found by hypothesis)
    tiny = np.finfo(float).tiny
    assert np.all(np.abs(scores) <= bound * (1 + 1e-12) + tiny)


@PROPERTY
@given(x=arrays(np.float64, 6, elements=VALUES), cap=st.floats(1e-3, 1e3))
def test_soft_cap_equals_the_formula(x, cap) -> None:
    got = soft_cap(x, cap)
    want = [cap * math.tanh(value / cap) for value in x]
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-300)
    assert np.all(np.abs(got) <= np.minimum(np.abs(x), cap))
    positive = x >= 0
    error = x[positive] - got[positive]  # 0 <= x - c tanh(x / c) <= x^3 / (3 c^2)
    assert np.all(error >= 0)
    rounding = 4 * np.finfo(float).eps * x[positive]  # x - y rounds to ulp(x)
    assert np.all(error <= x[positive] ** 3 / (3 * cap**2) * (1 + 1e-12) + rounding)


def test_no_warning_under_errstate_raise() -> None:
    with np.errstate(all="raise"):
        soft_cap([1e300, -1e-300, 0.0], 1e-300)
        soft_cap([1e300, 5e-324], 1e300)
        rms_norm([[5e-324, 1e308], [0.0, 0.0]])
        qk_norm([[1e-320, 0.0]], [[1e308, 1e308]])


# --- PyTorch ---------------------------------------------------------------


def test_rms_norm_equals_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 8)) * 7
    gain = rng.standard_normal(8)
    want = torch.nn.functional.rms_norm(
        torch.tensor(x), (8,), weight=torch.tensor(gain), eps=1e-6
    ).numpy()
    np.testing.assert_allclose(rms_norm(x, gain, eps=1e-6), want, rtol=1e-12)


def test_soft_capped_attention_equals_torch() -> None:
    torch = pytest.importorskip("torch")
    from attention_docs import causal_mask, masked_softmax

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, 6, 4)) * 5 for _ in range(3))
    mask = causal_mask(6)
    q_hat, k_hat = qk_norm(q, k, gain_q=2.0, gain_k=1.5)
    scores = soft_cap(attention_scores(q_hat, k_hat), 3.0)  # cap before the mask
    got = masked_softmax(scores, mask) @ v
    tq, tk = (
        torch.nn.functional.rms_norm(torch.tensor(x), (4,), eps=1e-6) * g
        for x, g in ((q, 2.0), (k, 1.5))
    )
    t_scores = tq @ tk.transpose(-1, -2) / 2.0  # sqrt(d_k) = 2
    t_scores = 3.0 * torch.tanh(t_scores / 3.0)
    t_scores = t_scores.masked_fill(~torch.tensor(mask), -torch.inf)
    want = torch.softmax(t_scores, dim=-1) @ torch.tensor(v)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-13)
