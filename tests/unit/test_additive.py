"""Tests of attention_docs.additive: Bahdanau's additive attention."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from attention_docs.additive import additive_attention
from attention_docs.masks import causal_mask, padding_mask

PROPERTY = settings(deadline=None, max_examples=50, database=None)


def loop_reference(q, k, v, w_q, w_k, w_a, mask=None):
    """e_ij = w_a . tanh(q_i W_q + k_j W_k), one pair at a time (2-D inputs)."""
    n_q, n_k = len(q), len(k)
    weights = np.zeros((n_q, n_k))
    for i in range(n_q):
        scores = {}
        for j in range(n_k):
            if mask is not None and not mask[i, j]:
                continue
            hidden = [
                math.tanh(
                    sum(q[i, p] * w_q[p, a] for p in range(q.shape[1]))
                    + sum(k[j, p] * w_k[p, a] for p in range(k.shape[1]))
                )
                for a in range(len(w_a))
            ]
            scores[j] = sum(w * t for w, t in zip(w_a, hidden, strict=True))
        if scores:
            top = max(scores.values())
            total = sum(math.exp(s - top) for s in scores.values())
            for j, s in scores.items():
                weights[i, j] = math.exp(s - top) / total
    return weights @ v, weights


def test_by_hand() -> None:
    q = [[1.0, 0.0]]
    k = [[1.0, 0.0], [0.0, 1.0]]
    v = [[2.0, 0.0], [0.0, 4.0]]
    # hidden rows tanh((1, 0) + (1, 0)) = (tanh 2, 0) and tanh((1, 0) + (0, 1))
    # = (tanh 1, tanh 1); w_a = (1, 1) sums them
    s1, s2 = math.tanh(2.0), 2 * math.tanh(1.0)
    a2 = 1.0 / (1.0 + math.exp(s1 - s2))
    out, w = additive_attention(
        q, k, v, np.eye(2), np.eye(2), [1.0, 1.0], return_weights=True
    )
    np.testing.assert_allclose(w, [[1 - a2, a2]], rtol=1e-14)
    np.testing.assert_allclose(out, [[2 * (1 - a2), 4 * a2]], rtol=1e-14)


@PROPERTY
@given(
    st.integers(1, 4),
    st.integers(1, 5),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 4),
    st.integers(1, 3),
    st.booleans(),
    st.randoms(),
)
def test_matches_the_explicit_loop(
    n_q, n_k, d_q, d_k, d_a, d_v, masked, random
) -> None:
    rng = np.random.default_rng(random.randrange(2**32))
    q, k = rng.standard_normal((n_q, d_q)), rng.standard_normal((n_k, d_k))
    v = rng.standard_normal((n_k, d_v))
    w_q, w_k = rng.standard_normal((d_q, d_a)), rng.standard_normal((d_k, d_a))
    w_a = rng.standard_normal(d_a)
    mask = rng.random((n_q, n_k)) < 0.6 if masked else None
    out, w = additive_attention(q, k, v, w_q, w_k, w_a, mask=mask, return_weights=True)
    out_ref, w_ref = loop_reference(q, k, v, w_q, w_k, w_a, mask)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, out_ref, rtol=1e-12, atol=1e-14)


@PROPERTY
@given(array_shapes(min_dims=0, max_dims=2, max_side=3), st.randoms())
def test_output_is_a_convex_combination_of_the_values(batch, random) -> None:
    rng = np.random.default_rng(random.randrange(2**32))
    q = rng.standard_normal((*batch, 3, 4)) * 10
    k = rng.standard_normal((*batch, 5, 2)) * 10
    v = rng.standard_normal((5, 3))  # shared by every batch entry
    w_q, w_k, w_a = (
        rng.standard_normal((4, 6)),
        rng.standard_normal((2, 6)),
        rng.standard_normal(6),
    )
    out, w = additive_attention(q, k, v, w_q, w_k, w_a, return_weights=True)
    assert out.shape == (*batch, 3, 3) and w.shape == (*batch, 3, 5)
    assert np.all(w >= 0.0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)
    assert np.all(out >= v.min(axis=0)) and np.all(out <= v.max(axis=0))
    np.testing.assert_allclose(out, w @ v, rtol=1e-12, atol=1e-14)


def test_scores_are_bounded_by_the_norm_of_w_a() -> None:
    # however large q and k, |S_ij| <= sum |w_a| = 1 here: two weights of one
    # row differ by a factor e^(S_ij - S_ik) <= e^2 at most
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((4, 3)) * 1e150, rng.standard_normal((6, 3)) * 1e150
    w_a = np.array([0.25, -0.5, 0.25])
    _, w = additive_attention(
        q, k, np.eye(6), np.eye(3), np.eye(3), w_a, return_weights=True
    )
    assert np.all(np.isfinite(w))
    assert np.all(w.max(axis=1) / w.min(axis=1) <= math.exp(2.0) * (1 + 1e-12))


def test_masks_work_as_in_dot_product_attention() -> None:
    rng = np.random.default_rng(1)
    q, k, v = (
        rng.standard_normal((3, 4)),
        rng.standard_normal((2, 4)),
        rng.standard_normal((2, 2)),
    )
    w = (
        rng.standard_normal((4, 5)),
        rng.standard_normal((4, 5)),
        rng.standard_normal(5),
    )
    out, weights = additive_attention(
        q, k, v, *w, mask=causal_mask(3, 2), return_weights=True
    )
    # bottom-right alignment: query 1 sees nothing, query 2 sees key 1 only
    assert weights[0].tolist() == [0.0, 0.0] and out[0].tolist() == [0.0, 0.0]
    assert weights[1].tolist() == [1.0, 0.0]
    np.testing.assert_array_equal(out[1], v[0])
    # masked keys are as good as absent; query 3 sees both keys
    np.testing.assert_allclose(out[1], additive_attention(q, k[:1], v[:1], *w)[1])
    np.testing.assert_allclose(out[2], additive_attention(q, k, v, *w)[2], rtol=1e-14)
    # a batch of padding masks, (2, 1, n_k)
    kb = rng.standard_normal((2, 4, 4))
    vb = rng.standard_normal((2, 4, 2))
    outb = additive_attention(q, kb, vb, *w, mask=padding_mask([4, 2], 4))
    np.testing.assert_allclose(
        outb[1], additive_attention(q, kb[1, :2], vb[1, :2], *w), rtol=1e-13
    )


def test_float32_stays_float32() -> None:
    rng = np.random.default_rng(2)
    args = [
        rng.standard_normal(s).astype(np.float32)
        for s in ((2, 3), (4, 3), (4, 2), (3, 5), (3, 5), (5,))
    ]
    assert additive_attention(*args).dtype == np.float32


def test_errors() -> None:
    q, k, v = np.ones((2, 3)), np.ones((4, 5)), np.ones((4, 2))
    w_q, w_k, w_a = np.ones((3, 6)), np.ones((5, 6)), np.ones(6)
    with pytest.raises(
        ValueError,
        match=r"`q` has d_q=3 but `w_q` has d_q=4: shapes \(2, 3\) and \(4, 6\)",
    ):
        additive_attention(q, k, v, np.ones((4, 6)), w_k, w_a)
    with pytest.raises(
        ValueError,
        match=r"`k` has d_k=5 but `w_k` has d_k=3: shapes \(4, 5\) and \(3, 6\)",
    ):
        additive_attention(q, k, v, w_q, np.ones((3, 6)), w_a)
    with pytest.raises(
        ValueError,
        match=r"`w_q` has d_a=6 but `w_k` has d_a=7: shapes \(3, 6\) and \(5, 7\)",
    ):
        additive_attention(q, k, v, w_q, np.ones((5, 7)), w_a)
    with pytest.raises(
        ValueError,
        match=r"`w_q` has d_a=6 but `w_a` has d_a=5: shapes \(3, 6\) and \(5,\)",
    ):
        additive_attention(q, k, v, w_q, w_k, np.ones(5))
    with pytest.raises(
        ValueError, match=r"`w_a` must have shape \(d_a,\), got shape \(6, 1\)"
    ):
        additive_attention(q, k, v, w_q, w_k, np.ones((6, 1)))
    with pytest.raises(ValueError, match=r"`k` has n_k=4 but `v` has n_k=3"):
        additive_attention(q, k, v[:3], w_q, w_k, w_a)
    with pytest.raises(ValueError, match=r"`k` has n_k=0 keys: shape \(0, 5\)"):
        additive_attention(q, np.ones((0, 5)), np.ones((0, 2)), w_q, w_k, w_a)
    with pytest.raises(ValueError, match=r"`q` must have shape \(\.\.\., n_q, d_q\)"):
        additive_attention(np.ones(3), k, v, w_q, w_k, w_a)
    with pytest.raises(
        ValueError, match="leading \\(batch\\) dimensions of `q`, `k`, `v`"
    ):
        additive_attention(np.ones((2, 2, 3)), np.ones((3, 4, 5)), v, w_q, w_k, w_a)
    with pytest.raises(ValueError, match=r"mask of shape \(2, 3\) does not broadcast"):
        additive_attention(q, k, v, w_q, w_k, w_a, mask=np.ones((2, 3), bool))
    with pytest.raises(TypeError, match="mask must be boolean"):
        additive_attention(q, k, v, w_q, w_k, w_a, mask=np.ones((2, 4)))
    with pytest.raises(ValueError, match="`v` contains NaN or infinite values"):
        additive_attention(q, k, np.full((4, 2), math.inf), w_q, w_k, w_a)
    with pytest.raises(TypeError, match="`w_a` is a numpy masked array"):
        additive_attention(q, k, v, w_q, w_k, np.ma.masked_array(w_a))
    with pytest.raises(ValueError, match=r"`q` @ `w_q` overflows float64"):
        additive_attention(q * 1e200, k, v, w_q * 1e200, w_k, w_a)
    with pytest.raises(ValueError, match=r"the scores .* @ `w_a` overflow float64"):
        additive_attention(q, k, v, w_q, w_k, np.full(6, 1e308))
