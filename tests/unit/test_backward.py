"""Tests of attention_docs.backward: hand-derived gradients of attention.

The reference is a central finite difference of the forward function,
``scaled_dot_product_attention``, entry by entry: independent of the formulas
under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import causal_mask, scaled_dot_product_attention
from attention_docs.backward import scaled_dot_product_attention_backward as backward

PROPERTY = settings(deadline=None, max_examples=40, database=None)


def numeric_gradients(q, k, v, g, mask=None, scale=None, h=1e-6):
    """Central differences of L = sum(O * G) with respect to q, k and v."""

    def loss(q, k, v):
        out = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
        return float(np.sum(out * g))

    grads = []
    args = [q, k, v]
    for position, x in enumerate(args):
        grad = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            plus, minus = x.copy(), x.copy()
            plus[index] += h
            minus[index] -= h
            moved_plus = [plus if i == position else a for i, a in enumerate(args)]
            moved_minus = [minus if i == position else a for i, a in enumerate(args)]
            grad[index] = (loss(*moved_plus) - loss(*moved_minus)) / (2 * h)
        grads.append(grad)
    return grads


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_q, n_k = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    d_k, d_v = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    batch_q = draw(st.sampled_from([(), (2,)]))
    batch_k = draw(st.sampled_from([(), (2,)]))
    q = rng.standard_normal((*batch_q, n_q, d_k))
    k = rng.standard_normal((*batch_k, n_k, d_k))
    v = rng.standard_normal((*batch_k, n_k, d_v))
    kind = draw(st.sampled_from(["none", "random", "causal"]))
    mask = None
    if kind == "random":
        mask = rng.random((n_q, n_k)) < 0.6
    elif kind == "causal":
        mask = causal_mask(n_q, n_k)
    batch = np.broadcast_shapes(batch_q, batch_k)
    g = rng.standard_normal((*batch, n_q, d_v))
    scale = draw(st.sampled_from([None, 0.3]))
    return q, k, v, g, mask, scale


@PROPERTY
@given(problems())
def test_gradients_equal_central_finite_differences(case) -> None:
    q, k, v, g, mask, scale = case
    got = backward(q, k, v, g, mask=mask, scale=scale)
    expected = numeric_gradients(q, k, v, g, mask=mask, scale=scale)
    for name, a, b, x in zip("qkv", got, expected, (q, k, v), strict=True):
        assert a.shape == x.shape, name
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7, err_msg=name)


def test_gradients_by_hand_for_one_query_and_two_keys() -> None:
    # s = (0, ln 3) with scale 1: A = (1/4, 3/4); G = (1,); V = (2, 6)
    q = np.array([[1.0]])
    k = np.array([[0.0], [np.log(3.0)]])
    v = np.array([[2.0], [6.0]])
    dq, dk, dv = backward(q, k, v, np.array([[1.0]]), scale=1.0)
    # dV = A^T G = (1/4, 3/4); dA = G V^T = (2, 6); rowsum(dA*A) = 5
    assert np.allclose(dv, [[0.25], [0.75]])
    # dS = A * (dA - 5) = (1/4 * -3, 3/4 * 1) = (-0.75, 0.75)
    # dQ = dS K = 0.75 ln 3; dK = dS^T Q = (-0.75, 0.75)
    assert np.allclose(dq, [[0.75 * np.log(3.0)]])
    assert np.allclose(dk, [[-0.75], [0.75]])


def test_masked_entries_and_fully_masked_rows_pass_no_gradient() -> None:
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 3, 2))
    mask = np.array([[True, False, True], [False, False, False], [True, True, True]])
    g = rng.standard_normal((3, 2))
    dq, dk, dv = backward(q, k, v, g, mask=mask)
    assert np.all(dq[1] == 0.0)  # the fully masked query gets no gradient
    # key 1 is only visible to query 2: its gradient comes from that row only
    _, dk_alone, dv_alone = backward(q[2:], k, v, g[2:], mask=mask[2:])
    other = backward(q[:1], k, v, g[:1], mask=mask[:1])
    assert np.allclose(dk[1], dk_alone[1])
    assert np.allclose(dv[1], dv_alone[1])
    assert np.all(other[1][1] == 0.0) and np.all(other[2][1] == 0.0)


def test_broadcast_arguments_get_summed_gradients() -> None:
    rng = np.random.default_rng(4)
    q = rng.standard_normal((2, 3, 4))  # two sequences share one k, v
    k = rng.standard_normal((5, 4))
    v = rng.standard_normal((5, 2))
    g = rng.standard_normal((2, 3, 2))
    _, dk, dv = backward(q, k, v, g)
    parts = [backward(q[b], k, v, g[b]) for b in range(2)]
    assert dk.shape == k.shape and dv.shape == v.shape
    assert np.allclose(dk, parts[0][1] + parts[1][1])
    assert np.allclose(dv, parts[0][2] + parts[1][2])


def test_grad_output_of_the_wrong_shape_is_an_error() -> None:
    q = k = v = np.ones((3, 2))
    with pytest.raises(
        ValueError, match=r"`grad_output` must have the output's shape \(3, 2\)"
    ):
        backward(q, k, v, np.ones((2, 3)))
    with pytest.raises(ValueError, match="`grad_output` contains NaN"):
        backward(q, k, v, np.full((3, 2), np.nan))


def test_a_gradient_that_overflows_is_an_error() -> None:
    # four queries spread their weight evenly over two keys: each key's dV is
    # the sum of 4 * 0.5 * 1e308 = 2e308, beyond the largest float
    q, k, v = np.ones((4, 2)), np.ones((2, 2)), np.ones((2, 2))
    with pytest.raises(
        ValueError, match=r"^the gradient with respect to `v` overflows float64"
    ):
        backward(q, k, v, np.full((4, 2), 1e308))


@pytest.mark.parametrize("big", [1.5e308, np.finfo(np.float64).max])
def test_no_false_alarm_when_the_gradients_are_finite(big) -> None:
    # identical value rows: the output is that row whatever the weights, so
    # dQ = dK = 0 exactly; dV = A^T G is finite. G V^T alone would overflow.
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    v = np.full((5, 2), big)
    with np.errstate(all="raise"):
        dq, dk, dv = backward(q, k, v, np.ones((3, 2)))
    assert not dq.any() and not dk.any()
    _, a = scaled_dot_product_attention(q, k, v, return_weights=True)
    np.testing.assert_allclose(dv, np.repeat(a.sum(axis=0)[:, None], 2, axis=1))
    # the upstream gradient near the largest float, finite result: no alarm
    q = k = v = np.ones((2, 2))
    dq, dk, dv = backward(q, k, v, np.full((2, 2), big))
    assert not dq.any() and not dk.any() and np.all(dv == big)


def test_float32_stays_float32() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    assert all(grad.dtype == np.float32 for grad in backward(x, x, x, x))
