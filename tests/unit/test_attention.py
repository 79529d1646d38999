"""Tests of attention_docs.attention: scores, weights, scaled dot-product attention."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_docs.attention import (
    attention_scores,
    attention_weights,
    scaled_dot_product_attention,
)
from attention_docs.masks import causal_mask, padding_mask

PROPERTY = settings(deadline=None, max_examples=60, database=None)
FINITE = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


def loop_attention(q, k, v, mask=None, scale=None):
    """softmax(q k^T * scale) v for 2-D lists, written from the formula in plain Python.

    Returns (weights, output) as nested lists. A fully masked row gets zero weights.
    """
    n_q, n_k, d_k, d_v = len(q), len(k), len(q[0]), len(v[0])
    scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    weights, output = [], []
    for i in range(n_q):
        scores = [
            scale * sum(q[i][p] * k[j][p] for p in range(d_k)) for j in range(n_k)
        ]
        allowed = [mask is None or bool(mask[i][j]) for j in range(n_k)]
        kept = [s for s, a in zip(scores, allowed, strict=True) if a]
        if kept:
            m = max(kept)
            exps = [
                math.exp(s - m) if a else 0.0
                for s, a in zip(scores, allowed, strict=True)
            ]
            row = [e / sum(exps) for e in exps]
        else:
            row = [0.0] * n_k
        weights.append(row)
        output.append([sum(row[j] * v[j][c] for j in range(n_k)) for c in range(d_v)])
    return weights, output


@st.composite
def attention_inputs(draw: st.DrawFn, dtype=np.float64, elements=FINITE):
    n_q, n_k, d_k, d_v = (draw(st.integers(1, 4)) for _ in range(4))
    q = draw(arrays(dtype, (n_q, d_k), elements=elements))
    k = draw(arrays(dtype, (n_k, d_k), elements=elements))
    v = draw(arrays(dtype, (n_k, d_v), elements=elements))
    mask = draw(arrays(np.bool_, (n_q, n_k)))
    return q, k, v, mask


# --- values by hand ----------------------------------------------------------


def test_scores_by_hand() -> None:
    q = [[1.0, 0.0], [1.0, 1.0]]
    k = [[2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]
    assert attention_scores(q, k, scale=1.0).tolist() == [
        [2.0, 0.0, 2.0],
        [2.0, 2.0, 4.0],
    ]
    # default scale 1 / sqrt(d_k) = 1 / sqrt(2)
    np.testing.assert_allclose(
        attention_scores(q, k),
        [
            [2 / math.sqrt(2), 0.0, 2 / math.sqrt(2)],
            [2 / math.sqrt(2), 2 / math.sqrt(2), 4 / math.sqrt(2)],
        ],
    )


def test_default_scale_is_one_over_sqrt_d_k() -> None:
    q = [[1.0, 1.0, 1.0, 1.0]]
    k = [[1.0, 2.0, 3.0, 4.0]]
    assert attention_scores(q, k).tolist() == [[5.0]]  # 10 / sqrt(4)


def test_weights_and_output_by_hand() -> None:
    q = [[1.0, 0.0]]
    k = [[1.0, 0.0], [0.0, 1.0]]
    v = [[4.0, 0.0], [0.0, 8.0]]
    # scores (ln 3, 0) -> weights (3/4, 1/4) -> output 3/4 (4, 0) + 1/4 (0, 8) = (3, 2)
    out, w = scaled_dot_product_attention(
        q, k, v, scale=math.log(3.0), return_weights=True
    )
    np.testing.assert_allclose(w, [[0.75, 0.25]], rtol=1e-15)
    np.testing.assert_allclose(out, [[3.0, 2.0]], rtol=1e-15)
    plain = scaled_dot_product_attention(q, k, v, scale=math.log(3.0))
    np.testing.assert_array_equal(plain, out)


def test_equal_scores_average_the_values() -> None:
    v = [[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]]
    out = scaled_dot_product_attention(np.zeros((1, 2)), np.ones((3, 2)), v)
    np.testing.assert_allclose(out, [[3.0, 3.0]])


def test_matches_the_loop_on_a_fixed_example() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.standard_normal((3, 4)),
        rng.standard_normal((5, 4)),
        rng.standard_normal((5, 2)),
    )
    mask = causal_mask(3, 5)
    w_ref, out_ref = loop_attention(q.tolist(), k.tolist(), v.tolist(), mask.tolist())
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)
    np.testing.assert_allclose(out, out_ref, rtol=1e-12)
    np.testing.assert_array_equal(attention_weights(q, k, mask=mask), w)


# --- masks and fully masked rows ---------------------------------------------


def test_fully_masked_row_gives_zero_weights_and_zero_output() -> None:
    q = np.array([[1.0, 2.0], [3.0, -1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    assert w[1].tolist() == [0.0, 0.0, 0.0]
    assert out[1].tolist() == [0.0, 0.0]
    assert w[0, 1] == 0.0
    assert not np.any(np.isnan(out))


def test_causal_mask_with_more_queries_than_keys_zeroes_the_first_outputs() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.standard_normal((4, 3)),
        rng.standard_normal((2, 3)),
        rng.standard_normal((2, 3)),
    )
    out, w = scaled_dot_product_attention(
        q, k, v, mask=causal_mask(4, 2), return_weights=True
    )
    assert np.all(w[:2] == 0.0)
    assert np.all(out[:2] == 0.0)
    assert w[2].tolist() == [1.0, 0.0]  # query 2 sees key 0 only
    np.testing.assert_allclose(out[2], v[0])


def test_padding_mask_through_attention_broadcasts_over_queries() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))  # (batch, n, d)
    mask = padding_mask([2, 0], 3)  # (2, 1, 3)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    assert np.all(w[0, :, 2] == 0.0)
    np.testing.assert_allclose(w[0].sum(axis=-1), 1.0)
    assert np.all(w[1] == 0.0)  # a sequence of length 0: every row fully masked
    assert np.all(out[1] == 0.0)


def test_batch_dimensions_broadcast() -> None:
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 3, 5, 4))  # (batch, heads, n_q, d_k)
    k = rng.standard_normal((3, 6, 4))  # shared over the first batch axis
    v = rng.standard_normal((6, 2))  # shared over everything
    out, w = scaled_dot_product_attention(q, k, v, return_weights=True)
    assert out.shape == (2, 3, 5, 2)
    assert w.shape == (2, 3, 5, 6)
    for b in range(2):
        for hh in range(3):
            w_ref, out_ref = loop_attention(
                q[b, hh].tolist(), k[hh].tolist(), v.tolist()
            )
            np.testing.assert_allclose(w[b, hh], w_ref, rtol=1e-12)
            np.testing.assert_allclose(out[b, hh], out_ref, rtol=1e-12)


# --- large values and dtypes -------------------------------------------------


def test_scores_of_1e4_do_not_overflow() -> None:
    q = [[100.0]]
    k = [[100.0], [100.0 - math.log(3.0) / 100.0]]
    w = attention_weights(q, k, scale=1.0)  # scores 1e4 and 1e4 - ln 3
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w, [[0.75, 0.25]], rtol=1e-9)


def test_scores_of_1e300_do_not_overflow() -> None:
    q = [[1e150]]
    k = [[1e150], [-1e150], [1e150]]
    out, w = scaled_dot_product_attention(
        q, k, [[1.0], [2.0], [3.0]], scale=1.0, return_weights=True
    )
    assert w.tolist() == [[0.5, 0.0, 0.5]]
    assert out.tolist() == [[2.0]]


def test_float32_scores_of_1e30_do_not_overflow() -> None:
    q = np.array([[1e15]], dtype=np.float32)
    k = np.array([[1e15], [-1e15]], dtype=np.float32)
    v = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    out, w = scaled_dot_product_attention(q, k, v, scale=1.0, return_weights=True)
    assert w.dtype == np.float32 and out.dtype == np.float32
    assert w.tolist() == [[1.0, 0.0]]
    assert out.tolist() == [[1.0, 2.0]]


def test_scores_that_overflow_raise() -> None:
    with pytest.raises(
        ValueError, match=r"scores .* overflow float64: shapes \(1, 1\)"
    ):
        attention_scores([[1e200]], [[1e200]])
    with pytest.raises(ValueError, match="overflow float32"):
        attention_scores(
            np.full((1, 1), 1e20, np.float32), np.full((1, 1), 1e20, np.float32)
        )


@PROPERTY
@given(attention_inputs(np.float32, st.floats(-5, 5, width=32)))
def test_float32_in_float32_out(case) -> None:
    q, k, v, mask = case
    assert attention_scores(q, k).dtype == np.float32
    assert attention_weights(q, k, mask=mask).dtype == np.float32
    out = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.dtype == np.float32
    _, out_ref = loop_attention(q.tolist(), k.tolist(), v.tolist(), mask.tolist())
    np.testing.assert_allclose(out, out_ref, rtol=1e-4, atol=1e-5)


def test_mixed_precision_promotes_to_float64() -> None:
    q = np.ones((1, 2), dtype=np.float32)
    assert scaled_dot_product_attention(q, q, np.ones((1, 2))).dtype == np.float64


# --- properties --------------------------------------------------------------


@PROPERTY
@given(attention_inputs())
def test_vectorised_attention_equals_the_loop(case) -> None:
    q, k, v, mask = case
    for m in (None, mask):
        w_ref, out_ref = loop_attention(
            q.tolist(), k.tolist(), v.tolist(), None if m is None else m.tolist()
        )
        out, w = scaled_dot_product_attention(q, k, v, mask=m, return_weights=True)
        np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-300)
        np.testing.assert_allclose(out, out_ref, rtol=1e-9, atol=1e-12)


@PROPERTY
@given(attention_inputs(), st.floats(0.01, 10.0))
def test_weights_are_a_distribution_or_all_zero(case, scale: float) -> None:
    q, k, _, mask = case
    w = attention_weights(q, k, mask=mask, scale=scale)
    assert w.shape == (q.shape[0], k.shape[0])
    assert np.all(w >= 0.0)
    assert np.all(w[~mask] == 0.0)
    sums = w.sum(axis=-1)
    has_key = mask.any(axis=-1)
    np.testing.assert_allclose(sums[has_key], 1.0, rtol=1e-12)
    assert np.all(sums[~has_key] == 0.0)


@PROPERTY
@given(attention_inputs())
def test_output_rows_lie_in_the_box_of_the_values(case) -> None:
    q, k, v, _ = case
    out = scaled_dot_product_attention(q, k, v)  # convex combinations of rows of v
    assert np.all(out <= v.max(axis=0) + 1e-9)
    assert np.all(out >= v.min(axis=0) - 1e-9)


# --- errors ------------------------------------------------------------------


def test_d_k_mismatch_names_q_and_k_and_both_shapes() -> None:
    message = r"`q` has d_k=4 but `k` has d_k=3: shapes \(2, 4\) and \(5, 3\)"
    for function in (attention_scores, attention_weights):
        with pytest.raises(ValueError, match=message):
            function(np.ones((2, 4)), np.ones((5, 3)))
    with pytest.raises(ValueError, match=message):
        scaled_dot_product_attention(np.ones((2, 4)), np.ones((5, 3)), np.ones((5, 3)))


def test_n_k_mismatch_names_k_and_v_and_both_shapes() -> None:
    with pytest.raises(
        ValueError,
        match=r"`k` has n_k=5 but `v` has n_k=4: shapes \(5, 3\) and \(4, 2\)",
    ):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((5, 3)), np.ones((4, 2)))


@pytest.mark.parametrize(
    ("shapes", "name", "shape"),
    [
        (((3,), (5, 3), (5, 2)), "q", r"\(3,\)"),
        (((2, 3), (3,), (5, 2)), "k", r"\(3,\)"),
        (((2, 3), (5, 3), (5,)), "v", r"\(5,\)"),
    ],
)
def test_arguments_need_at_least_two_dimensions(shapes, name: str, shape: str) -> None:
    q, k, v = (np.ones(s) for s in shapes)
    with pytest.raises(
        ValueError, match=rf"`{name}` must have shape \(\.\.\., .*got shape {shape}"
    ):
        scaled_dot_product_attention(q, k, v)


def test_batch_dimensions_that_do_not_broadcast_raise() -> None:
    with pytest.raises(
        ValueError,
        match=r"`q`, `k` do not broadcast: shapes \(2, 3, 4\) and \(3, 5, 4\)",
    ):
        attention_scores(np.ones((2, 3, 4)), np.ones((3, 5, 4)))
    with pytest.raises(
        ValueError, match=r"`q`, `k`, `v` do not broadcast: .*\(3, 5, 2\)"
    ):
        scaled_dot_product_attention(
            np.ones((2, 3, 4)), np.ones((5, 4)), np.ones((3, 5, 2))
        )


def test_empty_keys_and_zero_width_raise() -> None:
    with pytest.raises(ValueError, match=r"`k` has n_k=0 keys: shape \(0, 3\)"):
        attention_weights(np.ones((2, 3)), np.ones((0, 3)))
    with pytest.raises(ValueError, match=r"d_k=0: shapes \(2, 0\) and \(4, 0\)"):
        attention_scores(np.ones((2, 0)), np.ones((4, 0)))


@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_input_raises(name: str, bad: float) -> None:
    args = {"q": np.ones((2, 3)), "k": np.ones((4, 3)), "v": np.ones((4, 2))}
    args[name][0, 0] = bad
    with pytest.raises(ValueError, match=f"`{name}` contains NaN or infinite values"):
        scaled_dot_product_attention(**args)


@pytest.mark.parametrize(
    "mask", [np.ones((2, 4), dtype=int), np.ones((2, 4), dtype=float)]
)
def test_non_boolean_mask_raises_type_error(mask: np.ndarray) -> None:
    with pytest.raises(
        TypeError, match=f"mask must be boolean .*got dtype {mask.dtype}"
    ):
        scaled_dot_product_attention(
            np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2)), mask=mask
        )
    with pytest.raises(TypeError, match="mask must be boolean"):
        attention_weights(np.ones((2, 3)), np.ones((4, 3)), mask=mask)


@pytest.mark.parametrize("shape", [(4, 2), (3, 4), (2, 2, 4), (5,)])
def test_mask_of_wrong_shape_names_both_shapes(shape: tuple[int, ...]) -> None:
    mask = np.ones(shape, dtype=bool)
    pattern = (
        rf"mask of shape {re.escape(str(shape))} .*\(\.\.\., n_q, n_k\) = \(2, 4\)"
    )
    with pytest.raises(ValueError, match=pattern):
        scaled_dot_product_attention(
            np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 2)), mask=mask
        )


@pytest.mark.parametrize("scale", [0, -1.0, math.nan, math.inf, "0.5", True, 1j])
def test_bad_scale_raises(scale: object) -> None:
    with pytest.raises(ValueError, match="`scale` must be a positive finite number"):
        attention_scores(np.ones((2, 3)), np.ones((4, 3)), scale=scale)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`scale` must be a positive finite number"):
        scaled_dot_product_attention(
            np.ones((2, 3)),
            np.ones((4, 3)),
            np.ones((4, 2)),
            scale=scale,  # type: ignore[arg-type]
        )


def test_numpy_scalar_scale_is_accepted_and_keeps_float32() -> None:
    q = np.ones((1, 2), dtype=np.float32)
    assert attention_scores(q, q, scale=np.float64(0.5)).dtype == np.float32
    assert attention_scores(q, q, scale=np.float64(0.5)).tolist() == [[1.0]]


def test_non_real_input_raises_type_error() -> None:
    with pytest.raises(TypeError, match="`q` must hold real numbers"):
        attention_scores(np.array([["a", "b"]]), np.ones((1, 2)))
