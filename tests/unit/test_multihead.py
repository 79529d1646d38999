"""Tests of attention_docs.multihead: heads, the function and the layer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from attention_docs.attention import scaled_dot_product_attention
from attention_docs.masks import causal_mask, combine_masks, padding_mask
from attention_docs.multihead import (
    MultiHeadAttention,
    merge_heads,
    multi_head_attention,
    split_heads,
)

PROPERTY = settings(deadline=None, max_examples=50, database=None)
FINITE = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def per_head_reference(query, key, value, w_q, w_k, w_v, w_o, h, mask=None):
    """The paper's formula with an explicit loop over heads (2-D inputs only).

    head_i = Attention(Q W^Q_i, K W^K_i, V W^V_i); MultiHead = Concat(head_i) W^O,
    where W^Q_i is the i-th block of d_k columns of w_q.
    """
    d_k = w_q.shape[1] // h
    heads, weights = [], []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        head, weight = scaled_dot_product_attention(
            query @ w_q[:, cols],
            key @ w_k[:, cols],
            value @ w_v[:, cols],
            mask=mask,
            return_weights=True,
        )
        heads.append(head)
        weights.append(weight)
    return np.concatenate(heads, axis=-1) @ w_o, np.stack(weights)


def random_layer(rng, d_model):
    return tuple(rng.standard_normal((d_model, d_model)) for _ in range(4))


# --- split_heads / merge_heads -----------------------------------------------


def test_split_heads_by_hand() -> None:
    x = np.arange(12).reshape(2, 6)  # n=2, d_model=6
    heads = split_heads(x, 3)
    assert heads.shape == (3, 2, 2)
    assert heads.tolist() == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [10, 11]]]
    assert merge_heads(heads).tolist() == x.tolist()


@PROPERTY
@given(
    array_shapes(min_dims=0, max_dims=2, max_side=3),
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 3),
)
def test_merge_heads_inverts_split_heads(batch, n: int, h: int, d_k: int) -> None:
    x = np.arange(math.prod(batch) * n * h * d_k, dtype=float).reshape(
        *batch, n, h * d_k
    )
    heads = split_heads(x, h)
    assert heads.shape == (*batch, h, n, d_k)
    for i in range(h):  # head i is the i-th block of columns
        np.testing.assert_array_equal(
            heads[..., i, :, :], x[..., i * d_k : (i + 1) * d_k]
        )
    np.testing.assert_array_equal(merge_heads(heads), x)


def test_split_heads_errors() -> None:
    with pytest.raises(
        ValueError,
        match=r"d_model=5 \(`x` of shape \(2, 5\)\)"
        r" is not divisible by the number of heads h=2",
    ):
        split_heads(np.ones((2, 5)), 2)
    with pytest.raises(ValueError, match="`h` must be a positive integer, got 0"):
        split_heads(np.ones((2, 4)), 0)
    with pytest.raises(
        ValueError,
        match=r"`x` must have shape \(\.\.\., n, d_model\), got shape \(4,\)",
    ):
        split_heads(np.ones(4), 2)
    with pytest.raises(
        ValueError,
        match=r"`x` must have shape \(\.\.\., h, n, d_k\), got shape \(2, 4\)",
    ):
        merge_heads(np.ones((2, 4)))


# --- multi_head_attention ----------------------------------------------------


def test_matches_the_per_head_formula_for_cross_attention() -> None:
    rng = np.random.default_rng(0)
    query, memory = rng.standard_normal((3, 8)), rng.standard_normal((5, 8))
    layer = random_layer(rng, 8)
    out, w = multi_head_attention(query, memory, memory, *layer, 4)
    out_ref, w_ref = per_head_reference(query, memory, memory, *layer, 4)
    assert out.shape == (3, 8) and w.shape == (4, 3, 5)
    np.testing.assert_allclose(out, out_ref, rtol=1e-12)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)


def test_scale_uses_the_head_width() -> None:
    # one head of width d_k = 2 out of d_model = 4: scores divided by sqrt(2)
    query = np.array([[1.0, 0.0, 0.0, 0.0]])
    key = np.array(
        [[math.log(3.0) * math.sqrt(2.0), 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    )
    eye = np.eye(4)
    _, w = multi_head_attention(query, key, key, eye, eye, eye, eye, 2)
    np.testing.assert_allclose(w[0], [[0.75, 0.25]], rtol=1e-12)  # scores (ln 3, 0)
    np.testing.assert_allclose(w[1], [[0.5, 0.5]])  # head 2 sees only zeros


def test_batched_input_and_mask() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6))  # (batch, n, d_model)
    layer = random_layer(rng, 6)
    mask = combine_masks(causal_mask(4), padding_mask([4, 3], 4))  # (2, 4, 4)
    out, w = multi_head_attention(x, x, x, *layer, 3, mask=mask)
    assert out.shape == (2, 4, 6) and w.shape == (2, 3, 4, 4)
    for b in range(2):
        out_ref, w_ref = per_head_reference(x[b], x[b], x[b], *layer, 3, mask=mask[b])
        np.testing.assert_allclose(out[b], out_ref, rtol=1e-12)
        np.testing.assert_allclose(w[b], w_ref, rtol=1e-12)
    assert np.all(w[1, :, :, 3] == 0.0)  # padded key never attended to


def test_fully_masked_row_gives_zero_weights_and_zero_output() -> None:
    rng = np.random.default_rng(0)
    query, key = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    out, w = multi_head_attention(
        query, key, key, *random_layer(rng, 4), 2, mask=causal_mask(3, 2)
    )
    assert np.all(w[:, 0, :] == 0.0)  # every head
    assert out[0].tolist() == [0.0, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(w[:, 1:, :].sum(axis=-1), 1.0)


@st.composite
def single_head_case(draw: st.DrawFn):
    n_q, n_k, d_model = (draw(st.integers(1, 4)) for _ in range(3))
    query = draw(arrays(np.float64, (n_q, d_model), elements=FINITE))
    key = draw(arrays(np.float64, (n_k, d_model), elements=FINITE))
    value = draw(arrays(np.float64, (n_k, d_model), elements=FINITE))
    mask = draw(arrays(np.bool_, (n_q, n_k)))
    return query, key, value, mask


@PROPERTY
@given(single_head_case())
def test_one_head_with_identity_projections_is_single_head_attention(case) -> None:
    query, key, value, mask = case
    eye = np.eye(query.shape[-1])
    out, w = multi_head_attention(query, key, value, eye, eye, eye, eye, 1, mask=mask)
    ref_out, ref_w = scaled_dot_product_attention(
        query, key, value, mask=mask, return_weights=True
    )
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(w[0], ref_w, rtol=1e-12, atol=1e-300)


@PROPERTY
@given(single_head_case(), st.integers(1, 3))
def test_weights_of_every_head_are_distributions_or_zero(case, h: int) -> None:
    query, key, value, mask = case
    d_model = query.shape[-1]
    rng = np.random.default_rng(0)
    if d_model % h:
        h = 1
    _, w = multi_head_attention(
        query, key, value, *random_layer(rng, d_model), h, mask=mask
    )
    assert w.shape == (h, *mask.shape)
    assert np.all(w >= 0.0)
    assert np.all(w[:, ~mask] == 0.0)
    sums = w.sum(axis=-1)
    np.testing.assert_allclose(sums[:, mask.any(axis=-1)], 1.0, rtol=1e-12)
    assert np.all(sums[:, ~mask.any(axis=-1)] == 0.0)


def test_float32_in_float32_out() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 8)).astype(np.float32)
    layer = [w.astype(np.float32) for w in random_layer(rng, 8)]
    out, w = multi_head_attention(x, x, x, *layer, 2, mask=causal_mask(5))
    assert out.dtype == np.float32 and w.dtype == np.float32
    ref = multi_head_attention(
        x.astype(float), x, x, *[a.astype(float) for a in layer], 2, mask=causal_mask(5)
    )[0]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_large_inputs_do_not_overflow() -> None:
    eye = np.eye(2)
    query = np.array([[1e150, 0.0]])
    key = np.array([[1e150, 0.0], [-1e150, 0.0]])
    value = np.array([[1.0, 2.0], [3.0, 4.0]])
    # one head, d_k = 2: scores +-1e300 / sqrt(2)
    out, w = multi_head_attention(query, key, value, eye, eye, eye, eye, 1)
    assert w.tolist() == [[[1.0, 0.0]]]
    assert out.tolist() == [[1.0, 2.0]]


# --- errors ------------------------------------------------------------------


def args(**changes):
    base = {
        "query": np.ones((3, 4)),
        "key": np.ones((5, 4)),
        "value": np.ones((5, 4)),
        "w_q": np.eye(4),
        "w_k": np.eye(4),
        "w_v": np.eye(4),
        "w_o": np.eye(4),
        "h": 2,
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        (
            {"query": np.ones(4)},
            r"`query` must have shape \(\.\.\., n_q, d_model\), got shape \(4,\)",
        ),
        (
            {"key": np.ones(4)},
            r"`key` must have shape \(\.\.\., n_k, d_model\), got shape \(4,\)",
        ),
        (
            {"value": np.ones(4)},
            r"`value` must have shape \(\.\.\., n_k, d_model\), got shape \(4,\)",
        ),
        (
            {"key": np.ones((5, 6))},
            r"`query` has d_model=4 but `key` has d_model=6"
            r": shapes \(3, 4\) and \(5, 6\)",
        ),
        (
            {"value": np.ones((5, 6))},
            r"`query` has d_model=4 but `value` has d_model=6"
            r": shapes \(3, 4\) and \(5, 6\)",
        ),
        (
            {"value": np.ones((6, 4))},
            r"`key` has n_k=5 but `value` has n_k=6: shapes \(5, 4\) and \(6, 4\)",
        ),
        (
            {
                "query": np.ones((2, 3, 4)),
                "key": np.ones((3, 5, 4)),
                "value": np.ones((3, 5, 4)),
            },
            r"`query`, `key`, `value` do not broadcast"
            r": shapes \(2, 3, 4\) and \(3, 5, 4\)",
        ),
        (
            {"w_q": np.ones((3, 4))},
            r"`query` has d_model=4 but `w_q` has d_model=3"
            r": shapes \(3, 4\) and \(3, 4\)",
        ),
        (
            {"w_k": np.ones((4, 3))},
            r"`query` has d_model=4 but `w_k` has d_model=3"
            r": shapes \(3, 4\) and \(4, 3\)",
        ),
        (
            {"w_v": np.ones(4)},
            r"`w_v` must have shape \(d_model, d_model\), got shape \(4,\)",
        ),
        (
            {"w_o": np.ones((4, 5))},
            r"`query` has d_model=4 but `w_o` has d_model=5"
            r": shapes \(3, 4\) and \(4, 5\)",
        ),
        (
            {"h": 3},
            r"d_model=4 \(`query` of shape \(3, 4\)\)"
            r" is not divisible by the number of heads h=3",
        ),
        ({"h": 0}, "`h` must be a positive integer, got 0"),
        ({"h": 2.0}, "`h` must be a positive integer, got 2.0"),
    ],
)
def test_shape_and_head_errors(changes, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        multi_head_attention(**args(**changes))


@pytest.mark.parametrize("name", ["query", "key", "value", "w_q", "w_k", "w_v", "w_o"])
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_input_raises(name: str, bad: float) -> None:
    kwargs = args()
    kwargs[name] = kwargs[name].copy()
    kwargs[name][0, 0] = bad
    with pytest.raises(ValueError, match=f"`{name}` contains NaN or infinite values"):
        multi_head_attention(**kwargs)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_non_boolean_mask_raises_type_error(dtype) -> None:
    with pytest.raises(
        TypeError, match=f"mask must be boolean .*got dtype {np.dtype(dtype)}"
    ):
        multi_head_attention(**args(), mask=np.ones((3, 5), dtype=dtype))


@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 5), (3, 4)])
def test_mask_of_wrong_shape_raises(shape) -> None:
    pattern = rf"mask of shape \({shape[0]}, .*\(\.\.\., n_q, n_k\) = \(3, 5\)"
    with pytest.raises(ValueError, match=pattern):
        multi_head_attention(**args(), mask=np.ones(shape, dtype=bool))


# --- MultiHeadAttention ------------------------------------------------------


def test_layer_draws_its_weights_in_order() -> None:
    layer = MultiHeadAttention(8, 2, rng=np.random.default_rng(0))
    rng = np.random.default_rng(0)
    for name in ("w_q", "w_k", "w_v", "w_o"):
        expected = rng.standard_normal((8, 8)) / math.sqrt(8)
        np.testing.assert_array_equal(getattr(layer, name), expected)
    assert (layer.d_model, layer.h, layer.d_k) == (8, 2, 4)
    assert repr(layer) == "MultiHeadAttention(d_model=8, h=2)"


def test_layer_defaults_to_self_attention() -> None:
    layer = MultiHeadAttention(6, 3, rng=np.random.default_rng(0))
    x = np.random.default_rng(1).standard_normal((2, 4, 6))
    memory = np.random.default_rng(2).standard_normal((2, 7, 6))
    weights = (layer.w_q, layer.w_k, layer.w_v, layer.w_o)
    out, w = layer(x)
    ref_out, ref_w = multi_head_attention(x, x, x, *weights, 3)
    np.testing.assert_array_equal(out, ref_out)
    np.testing.assert_array_equal(w, ref_w)
    out, w = layer(x, memory)  # value defaults to key
    assert out.shape == (2, 4, 6) and w.shape == (2, 3, 4, 7)
    np.testing.assert_array_equal(
        out, multi_head_attention(x, memory, memory, *weights, 3)[0]
    )
    mask = causal_mask(4)
    np.testing.assert_array_equal(
        layer(x, mask=mask)[0], multi_head_attention(x, x, x, *weights, 3, mask=mask)[0]
    )


def test_layer_errors() -> None:
    with pytest.raises(
        ValueError, match="d_model=8 is not divisible by the number of heads h=3"
    ):
        MultiHeadAttention(8, 3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="`d_model` must be a positive integer, got 0"):
        MultiHeadAttention(0, 1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="`h` must be a positive integer, got -2"):
        MultiHeadAttention(8, -2, rng=np.random.default_rng(0))
    with pytest.raises(
        TypeError, match=r"`rng` must be a numpy\.random\.Generator, got int"
    ):
        MultiHeadAttention(8, 2, rng=0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "weight"), [("query", "w_q"), ("key", "w_k"), ("value", "w_v")]
)
def test_projection_overflow_raises_naming_the_arguments(name, weight) -> None:
    kwargs = args()
    kwargs[name] = np.full(kwargs[name].shape, 1e200)
    kwargs[weight] = np.full((4, 4), 1e200)
    pattern = rf"`{name}` @ `{weight}` overflows float64: shapes \(\d, 4\) and \(4, 4\)"
    with pytest.raises(ValueError, match=pattern):
        multi_head_attention(**kwargs)


def test_output_overflow_raises() -> None:
    kwargs = args(value=np.full((5, 4), 1e200), w_o=np.full((4, 4), 1e200))
    with pytest.raises(ValueError, match=r"Concat\(heads\) @ `w_o` overflows float64"):
        multi_head_attention(**kwargs)
