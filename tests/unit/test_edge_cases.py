"""Edge cases found by adversarial testing of the package, one test each.

Each test states the behaviour the package promises at an edge (values near the
largest float, scores near the overflow threshold, masked arrays, odd axis
arguments, ...), and each one failed before the fix it guards.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import (
    KVCache,
    MultiHeadAttention,
    attention_scores,
    attention_weights,
    blockwise_attention,
    masked_softmax,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    self_attention,
    sinusoidal_positional_encoding,
    softmax,
    split_heads,
)

PROPERTY = settings(deadline=None, max_examples=60, database=None)


def blockwise(q, k, v, **kwargs):
    return blockwise_attention(q, k, v, block_size=2, **kwargs)


ATTENTION = pytest.mark.parametrize(
    "attend", [scaled_dot_product_attention, blockwise], ids=["plain", "blockwise"]
)


# --- The output is a convex combination of the value rows, never inf ---------


@ATTENTION
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_at_the_largest_float_stay_finite(attend, dtype) -> None:
    big = np.finfo(dtype).max
    rng = np.random.default_rng(0)
    q = rng.standard_normal((6, 4)).astype(dtype)
    k = rng.standard_normal((5, 4)).astype(dtype)
    v = np.full((5, 3), big, dtype=dtype)
    v[:, 2] = -big
    out = attend(q, k, v)
    # Every weighted average of equal numbers is that number, exactly.
    assert out.dtype == dtype
    assert np.all(out[:, :2] == big)
    assert np.all(out[:, 2] == -big)


@ATTENTION
def test_values_of_both_signs_near_the_largest_float(attend) -> None:
    big = np.finfo(np.float64).max
    q = np.zeros((1, 2))  # equal scores: the output is the plain average
    k = np.ones((2, 2))
    v = np.array([[big], [-big]])
    assert attend(q, k, v).tolist() == [[0.0]]
    v = np.array([[big], [big / 2]])
    assert attend(q, k, v).tolist() == [[0.75 * big]]


@st.composite
def huge_values(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_q, n_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 9)), 3
    spread = draw(st.sampled_from([1.0, 10.0]))
    q = spread * rng.standard_normal((n_q, 2))
    k = rng.standard_normal((n_k, 2))
    exponent = draw(st.sampled_from([0, 300, 307, 308]))
    v = rng.uniform(-1.79, 1.79, (n_k, d_v)) * 10.0**exponent
    mask = rng.random((n_q, n_k)) < 0.7
    return q, k, v, mask


@ATTENTION
@PROPERTY
@given(huge_values())
def test_every_output_component_lies_between_its_columns_extremes(attend, case):
    q, k, v, mask = case
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning either
        out = attend(q, k, v, mask=mask)
    assert np.all(np.isfinite(out))
    visible = mask.any(axis=1)
    for i in range(len(q)):
        if not visible[i]:
            assert np.all(out[i] == 0.0)
            continue
        assert np.all(v.min(axis=0) <= out[i])
        assert np.all(out[i] <= v.max(axis=0))


# --- Overflow after the scores is an error naming the caller's arguments -----


def test_multi_head_score_overflow_names_query_key_and_their_shapes() -> None:
    eye = np.eye(8)
    query = np.full((5, 8), 1e160)  # projections are finite, scores are not
    key = np.full((7, 8), 1e160)
    with pytest.raises(ValueError) as error:
        multi_head_attention(query, key, key, eye, eye, eye, eye, 2)
    message = str(error.value)
    assert message == (
        "the scores (`query` @ `w_q`) @ (`key` @ `w_k`)^T * scale overflow "
        "float64: shapes (5, 8) and (7, 8), scale=0.5"
    )
    assert "(2, 5, 4)" not in message  # no head-split shape


def test_multi_head_layer_score_overflow_names_query_and_key() -> None:
    mha = MultiHeadAttention(4, 2, rng=np.random.default_rng(0))
    mha.w_q = mha.w_k = np.eye(4)
    with pytest.raises(ValueError, match=r"^the scores \(`query` @ `w_q`\)"):
        mha(np.full((3, 4), 1e160))


def test_self_attention_score_overflow_names_x_and_the_weights() -> None:
    x = np.full((3, 2), 1e160)
    eye = np.eye(2)
    with pytest.raises(ValueError) as error:
        self_attention(x, eye, eye, eye)
    assert str(error.value).startswith(
        "the scores (`x` @ `w_q`) @ (`x` @ `w_k`)^T * scale overflow float64: "
        "shapes (3, 2) and (3, 2)"
    )


def test_multi_head_output_projection_overflow_raises() -> None:
    eye = np.eye(4)
    x = np.full((3, 4), 1e300)
    w_o = np.full((4, 4), 1e10)
    with pytest.raises(ValueError, match=r"Concat\(heads\) @ `w_o` overflows"):
        multi_head_attention(x, x, x, eye * 1e-300, eye * 1e-300, eye, w_o, 2)


# --- No spurious warnings, no false overflow ----------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: softmax([1.7e308, -1.7e308]),
        lambda: softmax([-1000.0, 0.0]),  # e^-1000 underflows to 0
        lambda: masked_softmax([1.7e308, -1.7e308, 0.0], [True, True, False]),
        lambda: attention_weights([[1e154]], [[1.3e154], [-1.3e154]], scale=1.0),
        lambda: scaled_dot_product_attention(
            [[1e154]], [[1.3e154], [-1.3e154]], [[1.0], [2.0]], scale=1.0
        ),
        lambda: blockwise_attention(
            [[1e154]], [[1.3e154], [-1.3e154]], [[1.0], [2.0]], scale=1.0, block_size=1
        ),
    ],
    ids=["softmax", "underflow", "masked", "weights", "plain", "blockwise"],
)
def test_scores_near_the_overflow_threshold_raise_no_floating_point_error(call):
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        result = np.asarray(call())
    assert np.all(np.isfinite(result))


def test_the_extreme_scores_give_the_exact_weights() -> None:
    w = attention_weights([[1e154]], [[1.3e154], [-1.3e154]], scale=1.0)
    assert w.tolist() == [[1.0, 0.0]]


def test_only_the_unscaled_product_overflows_no_error() -> None:
    q = k = np.full((1, 4), 1e155)  # q @ k^T = 4e310 overflows; times 1e-10 not
    assert attention_scores(q, k, scale=1e-10).tolist() == [[pytest.approx(4e300)]]
    out = scaled_dot_product_attention(q, k, [[2.0]], scale=1e-10)
    assert out.tolist() == [[2.0]]


def test_a_scale_above_one_that_overflows_the_queries_is_still_exact() -> None:
    q = np.array([[1e300]])  # q * 1e10 overflows, (q @ k^T) * 1e10 does not
    k = np.array([[1e-300]])
    assert attention_scores(q, k, scale=1e10).tolist() == [[pytest.approx(1e10)]]


# --- A mask may carry batch dimensions that only v has ------------------------


@ATTENTION
def test_mask_with_batch_dimensions_of_v_only(attend) -> None:
    rng = np.random.default_rng(1)
    q = rng.standard_normal((3, 4))
    k = rng.standard_normal((5, 4))
    v = rng.standard_normal((2, 5, 6))
    mask = rng.random((2, 3, 5)) < 0.6
    out = attend(q, k, v, mask=mask)
    assert out.shape == (2, 3, 6)
    for b in range(2):
        expected = scaled_dot_product_attention(q, k, v[b], mask=mask[b])
        np.testing.assert_allclose(out[b], expected, rtol=1e-12, atol=1e-14)


def test_weights_get_the_output_batch_dimensions() -> None:
    q, k = np.zeros((3, 4)), np.zeros((5, 4))
    mask = np.ones((2, 3, 5), dtype=bool)
    mask[1, :, 0] = False
    out, w = scaled_dot_product_attention(
        q, k, np.ones((2, 5, 1)), mask=mask, return_weights=True
    )
    assert out.shape == (2, 3, 1)
    assert w.shape == (2, 3, 5)
    assert w[0, 0].tolist() == [0.2] * 5
    assert w[1, 0].tolist() == [0.0, 0.25, 0.25, 0.25, 0.25]


# --- numpy masked arrays are refused ------------------------------------------

MASKED = np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]], mask=[[False, True]] * 2)


@pytest.mark.parametrize("position", ["q", "k", "v"])
def test_masked_array_inputs_are_refused(position: str) -> None:
    args = {"q": np.ones((2, 2)), "k": np.ones((2, 2)), "v": np.ones((2, 2))}
    args[position] = MASKED
    for attend in (scaled_dot_product_attention, blockwise_attention):
        with pytest.raises(TypeError, match=rf"^`{position}` is a numpy masked array"):
            attend(**args)


def test_masked_array_mask_is_refused() -> None:
    mask = np.ma.masked_array([[True, False]], mask=[[False, True]])
    with pytest.raises(TypeError, match=r"^`mask` is a numpy masked array"):
        scaled_dot_product_attention(
            np.ones((1, 2)), np.ones((2, 2)), np.ones((2, 2)), mask=mask
        )
    with pytest.raises(TypeError, match=r"^`mask` is a numpy masked array"):
        masked_softmax([1.0, 2.0], mask[0])


@pytest.mark.parametrize(
    "call",
    [
        lambda: softmax(MASKED),
        lambda: split_heads(MASKED, 2),
        lambda: multi_head_attention(
            MASKED, MASKED, MASKED, *np.eye(2)[None].repeat(4, 0), 1
        ),
        lambda: padding_mask(np.ma.masked_array([1, 2], mask=[False, True]), 3),
    ],
    ids=["softmax", "split_heads", "multi_head_attention", "padding_mask"],
)
def test_masked_arrays_are_refused_everywhere(call) -> None:
    with pytest.raises(TypeError, match="numpy masked array"):
        call()


# --- softmax's axis is an integer ----------------------------------------------


@pytest.mark.parametrize("axis", [True, False, 1.5, 1.0, None, "0", [0]])
def test_softmax_axis_must_be_an_integer(axis) -> None:
    for function in (
        softmax,
        lambda x, axis: masked_softmax(x, np.ones((2, 2), bool), axis),
    ):
        with pytest.raises(TypeError, match=r"^`axis` must be an integer, got "):
            function(np.zeros((2, 2)), axis=axis)


def test_softmax_accepts_numpy_integers() -> None:
    x = np.array([[0.0, np.log(3.0)], [0.0, 0.0]])
    assert np.round(softmax(x, axis=np.int64(0)), 6).tolist() == [
        [0.5, 0.75],
        [0.5, 0.25],
    ]


# --- What the docstrings say ----------------------------------------------------


def test_float16_is_computed_and_returned_in_float32() -> None:
    x = np.ones((2, 4), dtype=np.float16)
    assert scaled_dot_product_attention(x, x, x).dtype == np.float32
    assert blockwise_attention(x, x, x).dtype == np.float32
    assert softmax(x).dtype == np.float32


def test_split_heads_returns_a_view() -> None:
    x = np.arange(8.0).reshape(2, 4)
    heads = split_heads(x, 2)
    assert np.shares_memory(heads, x)
    heads[1, 0, 0] = -1.0  # head 1, row 0, first column = x[0, 2]
    assert x[0, 2] == -1.0


def test_multi_head_layer_weights_have_variance_one_over_d_model() -> None:
    mha = MultiHeadAttention(256, 4, rng=np.random.default_rng(0))
    for w in (mha.w_q, mha.w_k, mha.w_v, mha.w_o):
        assert abs(w.var() * 256 - 1.0) < 0.02  # 65536 draws: sd of var ~ 0.6 %
        assert abs(w.mean()) < 0.01


# --- Lean: one n x n array ------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_plain_attention_holds_one_n_by_n_array(dtype) -> None:
    n, d = 256, 16
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((n, d)).astype(dtype) for _ in range(3))
    mask = np.tril(np.ones((n, n), dtype=bool))
    for kwargs in ({}, {"mask": mask}):
        tracemalloc.start()
        try:
            out = scaled_dot_product_attention(q, k, v, **kwargs)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert out.dtype == dtype
        one = n * n * np.dtype(dtype).itemsize
        assert peak <= 1.5 * one, (kwargs.keys(), peak / one)


def test_multi_head_attention_without_keys_is_an_error_naming_key() -> None:
    """No keys leaves every weight undefined: an error, not numpy's own message."""
    layer = MultiHeadAttention(4, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"`key` has n_k=0 rows: shape \(0, 4\)"):
        layer(np.ones((3, 4)), np.ones((0, 4)), np.ones((0, 4)))


def test_self_attention_of_no_tokens_is_an_error_naming_x() -> None:
    w = np.eye(4)
    with pytest.raises(
        ValueError, match=r"`x` has no tokens \(n=0\): shape \(2, 0, 4\)"
    ):
        self_attention(np.ones((2, 0, 4)), w, w, w)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: KVCache(2**64), "d_k"),
        (lambda: KVCache(4, capacity=2**63), "capacity"),
        (lambda: sinusoidal_positional_encoding(2**64, 4), "n"),
        (lambda: MultiHeadAttention(2**64, 2, rng=np.random.default_rng(0)), "d_model"),
    ],
)
def test_a_size_beyond_an_array_dimension_is_refused_by_name(call, name) -> None:
    """Not numpy's "Maximum allowed dimension exceeded", which names nothing."""
    with pytest.raises(ValueError, match=rf"`{name}` is too large for an array"):
        call()
