"""Tests of attention_docs.linear_attention: kernel attention and its RNN form.

The references are written out here from Katharopoulos et al. (2020),
Sections 3.2 and 3.3: plain-Python sums over the keys, the weights
phi(q_i) . phi(k_j) normalised, and the quadratic form
(phi(Q) phi(K)^T * mask) V with its row sums.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import (
    LinearAttentionState,
    causal_mask,
    elu_feature_map,
    linear_attention,
    linear_attention_step,
)

PROPERTY = settings(deadline=None, max_examples=60, database=None)


def phi_literal(x: float) -> float:
    """elu(x) + 1 for one number, from the definition of elu."""
    return x + 1.0 if x > 0 else math.exp(x)


def literal(q, k, v, causal: bool):
    """Row i: sum_j sim(q_i, k_j) v_j / sum_j sim(q_i, k_j), j over the keys it sees."""
    n_q, n_k = len(q), len(k)
    out = []
    for i in range(n_q):
        sims = []
        for j in range(n_k):
            if causal and j > i + (n_k - n_q):
                continue
            sim = sum(
                phi_literal(a) * phi_literal(b) for a, b in zip(q[i], k[j], strict=True)
            )
            sims.append((sim, v[j]))
        total = sum(sim for sim, _ in sims)
        row = [
            sum(sim * vj[p] for sim, vj in sims) / total if sims else 0.0
            for p in range(len(v[0]))
        ]
        out.append(row)
    return np.array(out).reshape(n_q, len(v[0]))


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_q, n_k = draw(st.integers(1, 7)), draw(st.integers(1, 8))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    spread = draw(st.sampled_from([0.1, 1.0, 5.0]))
    q = spread * rng.standard_normal((n_q, d_k))
    k = spread * rng.standard_normal((n_k, d_k))
    v = rng.standard_normal((n_k, d_v))
    return q, k, v


# --- values by hand ---------------------------------------------------------


def test_value_by_hand() -> None:
    # phi(0, 0) = (1, 1); phi(1, 0) = (2, 1); sims 2 and 3; weights 2/5, 3/5
    q = [[0.0, 0.0], [0.0, 0.0]]
    k = [[0.0, 0.0], [1.0, 0.0]]
    v = [[1.0], [6.0]]
    assert linear_attention(q, k, v).tolist() == [[4.0], [4.0]]  # 2/5 + 18/5
    # causal: query 1 sees key 1 only, query 2 both
    assert linear_attention(q, k, v, causal=True).tolist() == [[1.0], [4.0]]


def test_state_by_hand() -> None:
    # S_2 = (1, 1)^T 1 + (2, 1)^T 6 = [[13], [7]], z_2 = (3, 2); 20 / 5 = 4
    o1, state = linear_attention_step(None, [0.0, 0.0], [0.0, 0.0], [1.0])
    o2, state = linear_attention_step(state, [0.0, 0.0], [1.0, 0.0], [6.0])
    assert o1.tolist() == [1.0] and o2.tolist() == [4.0]
    assert state.s.tolist() == [[13.0], [7.0]]
    assert state.z.tolist() == [3.0, 2.0]


def test_elu_feature_map() -> None:
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    assert np.allclose(elu_feature_map(x), [math.exp(-2), math.exp(-0.5), 1, 1.5, 4])
    assert elu_feature_map(np.float32([1.0])).dtype == np.float32
    with np.errstate(all="raise"):
        assert elu_feature_map([1e308, -1e308]).tolist() == [1e308, 0.0]


# --- properties against the formulas written out ----------------------------


@PROPERTY
@given(problems(), st.booleans())
def test_equals_literal_sums(problem, causal) -> None:
    q, k, v = problem
    expected = literal(q.tolist(), k.tolist(), v.tolist(), causal)
    assert np.allclose(linear_attention(q, k, v, causal=causal), expected)


@PROPERTY
@given(problems())
def test_causal_equals_masked_quadratic_form(problem) -> None:
    q, k, v = problem
    n_q, n_k = len(q), len(k)
    w = (elu_feature_map(q) @ elu_feature_map(k).T) * causal_mask(n_q, n_k)
    rows = w.sum(axis=1, keepdims=True)
    expected = np.divide(w @ v, rows, out=np.zeros((n_q, v.shape[1])), where=rows > 0)
    assert np.allclose(linear_attention(q, k, v, causal=True), expected)


@PROPERTY
@given(problems())
def test_associativity(problem) -> None:
    q, k, v = problem
    phi_q, phi_k = elu_feature_map(q), elu_feature_map(k)
    assert np.allclose((phi_q @ phi_k.T) @ v, phi_q @ (phi_k.T @ v))


@PROPERTY
@given(problems())
def test_recurrent_equals_parallel_causal(problem) -> None:
    q, k, v = problem
    n = min(len(q), len(k))
    q, k, v = q[:n], k[:n], v[:n]
    state, rows = None, []
    for t in range(n):
        before = None if state is None else (state.s.copy(), state.z.copy())
        out, new = linear_attention_step(state, q[t], k[t], v[t])
        if before is not None:  # the state passed in is unchanged
            assert np.array_equal(state.s, before[0])
            assert np.array_equal(state.z, before[1])
        state = new
        rows.append(out)
    assert np.allclose(np.array(rows), linear_attention(q, k, v, causal=True))
    assert state.s.shape == (q.shape[1], v.shape[1])  # d_k x d_v, whatever n


@PROPERTY
@given(problems())
def test_weights_positive_and_bounded_by_keys(problem) -> None:
    # w_j = phi(q).phi(k_j) / sum_l ... <= max_p phi(k_j)_p / sum_l phi(k_l)_p < 1
    q, k, _ = problem
    if len(k) < 2:
        return
    phi_q, phi_k = elu_feature_map(q), elu_feature_map(k)
    w = phi_q @ phi_k.T
    w /= w.sum(axis=1, keepdims=True)
    bound = (phi_k / phi_k.sum(axis=0)).max(axis=1)
    assert np.all(w > 0)
    assert np.all(w <= bound + 1e-12)
    assert np.all(bound < 1)


# --- shapes, dtypes, edges --------------------------------------------------


def test_batch_broadcast_and_dtype() -> None:
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    k = rng.standard_normal((3, 6, 4)).astype(np.float32)
    v = rng.standard_normal((6, 2)).astype(np.float32)
    for causal in (False, True):
        out = linear_attention(q, k, v, causal=causal)
        assert out.shape == (2, 3, 5, 2) and out.dtype == np.float32
        expected = literal(q[1, 2].tolist(), k[2].tolist(), v.tolist(), causal)
        assert np.allclose(out[1, 2], expected, atol=1e-5)


def test_more_queries_than_keys_causal() -> None:
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((5, 3)), rng.standard_normal((2, 3)), np.ones((2, 2))
    out = linear_attention(q, k, v, causal=True)
    assert out[:3].tolist() == [[0.0, 0.0]] * 3  # queries 1-3 see no key
    assert np.allclose(out[3:], 1.0)


def test_empty_dimensions() -> None:
    assert linear_attention(
        np.ones((0, 3)), np.ones((2, 3)), np.ones((2, 4))
    ).shape == (
        0,
        4,
    )
    assert linear_attention(
        np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 0))
    ).shape == (
        2,
        0,
    )
    assert linear_attention(
        np.ones((0, 2, 3)), np.ones((2, 3)), np.ones((2, 1)), causal=True
    ).shape == (0, 2, 1)


def test_callable_feature_map() -> None:
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 4, 2))

    def squares(x):  # phi(x) = (x_1^2 + 1, x_2^2 + 1, 1): r = 3
        return np.concatenate([x**2 + 1, np.ones_like(x[..., :1])], axis=-1)

    w = squares(q) @ squares(k).T
    expected = (w / w.sum(axis=1, keepdims=True)) @ v
    assert np.allclose(linear_attention(q, k, v, feature_map=squares), expected)
    _, state = linear_attention_step(None, q[0], k[0], v[0], feature_map=squares)
    assert state.s.shape == (3, 2)


def test_inputs_unchanged_and_no_warnings() -> None:
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 4, 2))
    q[0, 0] = -700.0  # e^-700: tiny but not 0
    copies = q.copy(), k.copy(), v.copy()
    with np.errstate(all="raise"):
        linear_attention(q, k, v)
        linear_attention(q, k, v, causal=True)
    for a, b in zip((q, k, v), copies, strict=True):
        assert np.array_equal(a, b)


# --- errors -------------------------------------------------------------------


def test_shape_errors_name_the_arguments() -> None:
    with pytest.raises(ValueError, match="`q` has d_k=4 but `k` has d_k=3"):
        linear_attention(np.ones((2, 4)), np.ones((5, 3)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="`k` has n_k=5 but `v` has n_k=4"):
        linear_attention(np.ones((2, 3)), np.ones((5, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="n_k=0"):
        linear_attention(np.ones((2, 3)), np.ones((0, 3)), np.ones((0, 2)))
    with pytest.raises(ValueError, match="d_k=0"):
        linear_attention(np.ones((2, 0)), np.ones((1, 0)), np.ones((1, 2)))
    with pytest.raises(ValueError, match="`q_t` has d_k=2 but `k_t` has d_k=3"):
        linear_attention_step(None, np.ones(2), np.ones(3), np.ones(2))


def test_non_finite_and_type_errors() -> None:
    with pytest.raises(ValueError):
        linear_attention([[np.nan]], [[1.0]], [[1.0]])
    with pytest.raises(TypeError):
        linear_attention([[1j]], [[1.0]], [[1.0]])


def test_feature_map_errors() -> None:
    q = k = v = np.ones((2, 2))
    with pytest.raises(ValueError, match='`feature_map` must be "elu"'):
        linear_attention(q, k, v, feature_map="relu")
    with pytest.raises(ValueError, match="positive values"):
        linear_attention(q, k, v, feature_map=lambda x: x - 1)  # zeros
    with pytest.raises(ValueError, match="positive values"):
        linear_attention(q, k, v, feature_map=lambda x: -x)
    with pytest.raises(ValueError, match="must map `q`"):
        linear_attention(q, k, v, feature_map=lambda x: x[..., 0])
    with pytest.raises(ValueError, match="NaN or an infinity"):
        linear_attention(q, k, v, feature_map=lambda x: x * np.inf)


def test_underflow_is_an_error() -> None:
    q = np.array([[-800.0, -800.0]])  # e^-800 = 0 in float64
    with pytest.raises(ValueError, match="underflows to 0 for an entry of `q`"):
        linear_attention(q, np.ones((1, 2)), np.ones((1, 1)))


def test_state_errors_change_nothing() -> None:
    _, state = linear_attention_step(None, np.ones(2), np.ones(2), np.ones(3))
    before = state.s.copy(), state.z.copy()
    with pytest.raises(ValueError, match=r"\(\.\.\., 2, 4\)"):
        linear_attention_step(state, np.ones(2), np.ones(2), np.ones(4))
    with pytest.raises(TypeError, match="LinearAttentionState or None"):
        linear_attention_step((state.s, state.z), np.ones(2), np.ones(2), np.ones(3))
    assert np.array_equal(state.s, before[0]) and np.array_equal(state.z, before[1])
    assert isinstance(state, LinearAttentionState)


def test_overflow_is_an_error() -> None:
    big = np.full((2, 1), 1e308)
    with pytest.raises(ValueError, match="overflows"):
        linear_attention(np.ones((1, 1)), big, big)


# --- PyTorch cross-check ----------------------------------------------------


def test_against_torch() -> None:
    """torch's elu and cumsum give the same causal and non-causal outputs."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((2, 3, 6, 4))
    v = rng.standard_normal((3, 6, 5))
    tq, tk, tv = (torch.tensor(x) for x in (q, k, v))
    fq = torch.nn.functional.elu(tq) + 1
    fk = torch.nn.functional.elu(tk) + 1
    # non-causal: phi(Q) (phi(K)^T V) / phi(Q) phi(K)^T 1
    full = (fq @ (fk.transpose(-1, -2) @ tv)) / (fq @ fk.sum(-2, keepdim=True).mT)
    assert np.allclose(linear_attention(q, k, v), full.numpy())
    # causal: prefix sums S_t and z_t (Katharopoulos et al., 2020, Eq. 10-11)
    s = torch.cumsum(fk[..., :, None] * tv[..., None, :], dim=-3)
    z = torch.cumsum(fk, dim=-2)
    num = torch.einsum("...tr,...trd->...td", fq, s)
    den = (fq * z).sum(-1, keepdim=True)
    assert np.allclose(linear_attention(q, k, v, causal=True), (num / den).numpy())
