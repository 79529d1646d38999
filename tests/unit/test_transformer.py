"""Tests of attention_docs.transformer: layer norm, FFN, encoder and decoder layers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_docs.masks import padding_mask
from attention_docs.transformer import (
    DecoderLayer,
    DecoderOnlyLayer,
    EncoderLayer,
    feed_forward,
    layer_norm,
)

PROPERTY = settings(deadline=None, max_examples=60, database=None)
VALUES = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


# --- independent references, written from the formulas ----------------------


def ln_reference(x, gamma, beta, eps=1e-5):
    """Ba et al. (2016), Eq. 3 with gain and bias, one row at a time."""
    out = np.empty_like(x, dtype=float)
    for index in np.ndindex(x.shape[:-1]):
        row = x[index]
        mu = sum(row) / len(row)
        var = sum((value - mu) ** 2 for value in row) / len(row)
        out[index] = [
            g * (value - mu) / math.sqrt(var + eps) + b
            for value, g, b in zip(row, gamma, beta, strict=True)
        ]
    return out


def ffn_reference(x, w_1, b_1, w_2, b_2):
    """max(0, x W_1 + b_1) W_2 + b_2, row by row with explicit sums."""
    out = np.empty((*x.shape[:-1], w_2.shape[1]))
    for index in np.ndindex(x.shape[:-1]):
        row = x[index]
        hidden = [
            max(0.0, sum(row[p] * w_1[p, f] for p in range(len(row))) + b_1[f])
            for f in range(w_1.shape[1])
        ]
        out[index] = [
            sum(hidden[f] * w_2[f, c] for f in range(len(hidden))) + b_2[c]
            for c in range(w_2.shape[1])
        ]
    return out


def softmax_rows(s, mask=None):
    s = np.where(mask, s, -np.inf) if mask is not None else s
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mha_reference(mha, query, memory, mask=None):
    """Vaswani et al. (2017), Section 3.2.2, head by head (2-D inputs)."""
    h, d_k = mha.h, mha.d_k
    heads = []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        q = query @ mha.w_q[:, cols]
        k = memory @ mha.w_k[:, cols]
        v = memory @ mha.w_v[:, cols]
        heads.append(softmax_rows(q @ k.T / math.sqrt(d_k), mask) @ v)
    return np.concatenate(heads, axis=1) @ mha.w_o


def layer_ffn(layer, x):
    return ffn_reference(x, layer.w_1, layer.b_1, layer.w_2, layer.b_2)


def ln(layer, i, x):
    return ln_reference(
        x, getattr(layer, f"gamma_{i}"), getattr(layer, f"beta_{i}"), layer.eps
    )


def randomise_norms(layer, rng):
    """Gains and biases other than 1 and 0, so that a swapped one shows."""
    for name, array in layer.parameters().items():
        if name.startswith(("gamma", "beta", "b_")):
            array[...] = rng.uniform(0.5, 1.5, array.shape)


# --- layer_norm --------------------------------------------------------------


def test_layer_norm_by_hand() -> None:
    x = np.array([[1.0, 1.0, 3.0, 3.0], [2.0, 4.0, 4.0, 6.0]])
    # row 1: mean 2, variance 1; row 2: mean 4, variance (4 + 0 + 0 + 4) / 4 = 2
    expected = np.array(
        [
            np.array([-1.0, -1.0, 1.0, 1.0]) / math.sqrt(1.0 + 1e-5),
            np.array([-2.0, 0.0, 0.0, 2.0]) / math.sqrt(2.0 + 1e-5),
        ]
    )
    np.testing.assert_allclose(layer_norm(x), expected, rtol=1e-14)
    gamma, beta = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 0.0, -1.0])
    np.testing.assert_allclose(
        layer_norm(x, gamma, beta), expected * gamma + beta, rtol=1e-14
    )


def test_layer_norm_matches_the_formula_on_batches() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6)) * 5 + 2
    gamma, beta = rng.standard_normal(6), rng.standard_normal(6)
    for eps in (1e-5, 0.5):
        np.testing.assert_allclose(
            layer_norm(x, gamma, beta, eps=eps),
            ln_reference(x, gamma, beta, eps),
            rtol=1e-12,
            atol=1e-14,
        )


@PROPERTY
@given(
    arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(2, 9)), elements=VALUES)
)
def test_rows_get_mean_zero_and_the_predicted_variance(x) -> None:
    sigma2 = x.var(axis=-1)
    assume(np.all(sigma2 > 1e-3))  # non-constant rows, clearly above rounding
    y = layer_norm(x)
    np.testing.assert_allclose(y.mean(axis=-1), 0.0, atol=1e-12)
    # variance sigma^2 / (sigma^2 + eps): within 1e-2 of 1 since sigma^2 > 1e-3
    np.testing.assert_allclose(y.var(axis=-1), sigma2 / (sigma2 + 1e-5), rtol=1e-9)
    assert np.all(y.var(axis=-1) > 0.99)


@PROPERTY
@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 3), st.integers(2, 8)), elements=VALUES
    ),
    st.floats(-100, 100),
)
def test_adding_a_constant_to_a_row_changes_nothing(x, c: float) -> None:
    assume(np.all(x.var(axis=-1) > 1e-2))
    np.testing.assert_allclose(layer_norm(x + c), layer_norm(x), atol=1e-9)


@PROPERTY
@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 3), st.integers(2, 8)), elements=VALUES
    ),
    st.floats(1e-3, 1e3),
)
def test_scaling_a_row_changes_it_only_through_eps(x, c: float) -> None:
    assume(np.all(x.var(axis=-1) > 1e-2))
    # exact invariance when eps scales with the variance, i.e. by c^2
    np.testing.assert_allclose(
        layer_norm(c * x, eps=c * c * 1e-5), layer_norm(x), rtol=1e-9, atol=1e-12
    )
    # with a fixed eps the rows stay normalised; they differ from layer_norm(x)
    # by a factor sqrt((s + eps) / (s + eps / c^2)) per row, s = var(x)
    s = x.var(axis=-1, keepdims=True)
    factor = np.sqrt((s + 1e-5) / (s + 1e-5 / (c * c)))
    np.testing.assert_allclose(
        layer_norm(c * x), layer_norm(x) * factor, rtol=1e-9, atol=1e-12
    )


def test_a_constant_row_becomes_beta_exactly() -> None:
    beta = np.array([0.5, -1.0, 2.0])
    for value in (0.0, 0.1, -7.25, 1e300):
        row = np.full((1, 3), value)
        assert layer_norm(row, beta=beta).tolist() == [beta.tolist()]


def test_extreme_rows_do_not_overflow() -> None:
    x = np.array([[1e300, -1e300, 3e299], [1e-300, 2e-300, 0.0]])
    y = layer_norm(x)
    assert np.all(np.isfinite(y))
    # eps is negligible next to a variance of order 1e600: scale invariance
    np.testing.assert_allclose(y[0], layer_norm(x[:1] / 1e300, eps=1e-300)[0])
    # and dominant next to a variance of order 1e-600: (x - mu) / sqrt(eps) ~ 0
    np.testing.assert_allclose(y[1], 0.0, atol=1e-290)


def test_layer_norm_keeps_float32_and_accepts_one_row() -> None:
    x = np.arange(4, dtype=np.float32)
    y = layer_norm(x)
    assert y.dtype == np.float32 and y.shape == (4,)
    np.testing.assert_allclose(
        y, ln_reference(x[None], np.ones(4), np.zeros(4))[0], rtol=1e-6
    )


def test_layer_norm_errors() -> None:
    x = np.ones((2, 4))
    with pytest.raises(
        ValueError,
        match=r"`x` has d_model=4 but `gamma` has d_model=3: shapes \(2, 4\) and \(3,",
    ):
        layer_norm(x, gamma=np.ones(3))
    with pytest.raises(
        ValueError, match=r"`beta` must have shape \(d_model,\), got shape \(1, 4\)"
    ):
        layer_norm(x, beta=np.ones((1, 4)))
    for eps in (0.0, -1e-5, math.nan, math.inf, True, "1e-5"):
        with pytest.raises(ValueError, match="`eps` must be a positive finite number"):
            layer_norm(x, eps=eps)
    with pytest.raises(
        ValueError, match=r"`x` must have shape \(\.\.\., d_model\), got shape \(\)"
    ):
        layer_norm(3.0)
    with pytest.raises(ValueError, match=r"`x` has d_model=0: shape \(2, 0\)"):
        layer_norm(np.ones((2, 0)))
    with pytest.raises(ValueError, match="`x` contains NaN or infinite values"):
        layer_norm([[1.0, math.nan]])
    with pytest.raises(ValueError, match="`gamma` contains NaN or infinite values"):
        layer_norm([[1.0, 2.0]], gamma=[1.0, math.inf])
    with pytest.raises(TypeError, match="`x` is a numpy masked array"):
        layer_norm(np.ma.masked_array([[1.0, 2.0]], mask=[[False, True]]))
    with pytest.raises(
        ValueError, match=r"`gamma` \* \(normalised `x`\) \+ `beta` overflows"
    ):
        layer_norm([[1.0, 2.0]], gamma=[1e308, 1e308], beta=[1e308, 1e308])


# --- feed_forward ------------------------------------------------------------


def test_feed_forward_by_hand() -> None:
    x = np.array([[1.0, -1.0], [2.0, 0.0]])
    w_1 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    b_1 = np.array([0.0, 0.0, -1.0])
    w_2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    b_2 = np.array([0.5, 0.0])
    # x W_1 + b_1 = (1, -1, -1) and (2, 0, 1); ReLU: (1, 0, 0) and (2, 0, 1)
    # times W_2: (1, 0) and (3, 1); plus b_2: (1.5, 0) and (3.5, 1)
    assert feed_forward(x, w_1, b_1, w_2, b_2).tolist() == [[1.5, 0.0], [3.5, 1.0]]


def test_feed_forward_matches_the_formula_on_batches() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4))
    w_1, b_1 = rng.standard_normal((4, 6)), rng.standard_normal(6)
    w_2, b_2 = rng.standard_normal((6, 4)), rng.standard_normal(4)
    np.testing.assert_allclose(
        feed_forward(x, w_1, b_1, w_2, b_2),
        ffn_reference(x, w_1, b_1, w_2, b_2),
        rtol=1e-12,
        atol=1e-12,
    )


@PROPERTY
@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 6), st.randoms())
def test_permuting_the_rows_permutes_the_output(
    n: int, d_model: int, d_ff: int, random
) -> None:
    rng = np.random.default_rng(random.randrange(2**32))
    x = rng.standard_normal((n, d_model))
    weights = (
        rng.standard_normal((d_model, d_ff)),
        rng.standard_normal(d_ff),
        rng.standard_normal((d_ff, d_model)),
        rng.standard_normal(d_model),
    )
    perm = rng.permutation(n)
    np.testing.assert_array_equal(
        feed_forward(x[perm], *weights), feed_forward(x, *weights)[perm]
    )


def test_feed_forward_errors() -> None:
    x = np.ones((3, 4))
    w_1, b_1, w_2, b_2 = np.ones((4, 5)), np.ones(5), np.ones((5, 4)), np.ones(4)
    with pytest.raises(
        ValueError,
        match=r"`x` has d_model=4 but `w_1` has d_model=3: shapes \(3, 4\) and \(3, 5",
    ):
        feed_forward(x, np.ones((3, 5)), b_1, w_2, b_2)
    with pytest.raises(
        ValueError,
        match=r"`w_1` has d_ff=5 but `b_1` has d_ff=4: shapes \(4, 5\) and \(4,\)",
    ):
        feed_forward(x, w_1, np.ones(4), w_2, b_2)
    with pytest.raises(
        ValueError,
        match=r"`w_1` has d_ff=5 but `w_2` has d_ff=6: shapes \(4, 5\) and \(6, 4\)",
    ):
        feed_forward(x, w_1, b_1, np.ones((6, 4)), b_2)
    with pytest.raises(
        ValueError,
        match=r"`x` has d_model=4 but `w_2` has d_model=3: shapes \(3, 4\) and \(5, 3",
    ):
        feed_forward(x, w_1, b_1, np.ones((5, 3)), b_2)
    with pytest.raises(
        ValueError,
        match=r"`x` has d_model=4 but `b_2` has d_model=2: shapes \(3, 4\) and \(2,\)",
    ):
        feed_forward(x, w_1, b_1, w_2, np.ones(2))
    with pytest.raises(
        ValueError, match=r"`w_2` must have shape \(d_ff, d_model\), got shape \(5,\)"
    ):
        feed_forward(x, w_1, b_1, np.ones(5), b_2)
    with pytest.raises(ValueError, match="`b_1` contains NaN or infinite values"):
        feed_forward(x, w_1, np.full(5, math.nan), w_2, b_2)
    with pytest.raises(TypeError, match="`w_1` must hold real numbers"):
        feed_forward(x, w_1.astype(complex), b_1, w_2, b_2)
    with pytest.raises(
        ValueError, match=r"the hidden layer `x` @ `w_1` \+ `b_1` overflows float64"
    ):
        feed_forward(x * 1e200, w_1 * 1e200, b_1, w_2, b_2)
    with pytest.raises(ValueError, match=r"the output .* overflows float64"):
        feed_forward(x, w_1 * 1e160, b_1, w_2 * 1e160, b_2)


# --- EncoderLayer ------------------------------------------------------------


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_encoder_layer_is_the_composition_written_out(norm: str) -> None:
    rng = np.random.default_rng(2)
    layer = EncoderLayer(8, 2, 16, rng=rng, norm=norm)
    randomise_norms(layer, rng)
    x = rng.standard_normal((5, 8))
    attn = layer.self_attention
    if norm == "post":  # LayerNorm(x + Sublayer(x)) twice
        x1 = ln(layer, 1, x + mha_reference(attn, x, x))
        expected = ln(layer, 2, x1 + layer_ffn(layer, x1))
    else:  # x + Sublayer(LayerNorm(x)) twice
        z = ln(layer, 1, x)
        x1 = x + mha_reference(attn, z, z)
        expected = x1 + layer_ffn(layer, ln(layer, 2, x1))
    np.testing.assert_allclose(layer(x), expected, rtol=1e-10, atol=1e-12)


def test_post_norm_output_rows_are_normalised_and_pre_norm_rows_are_not() -> None:
    rng = np.random.default_rng(3)
    x = 3.0 * rng.standard_normal((2, 6, 16)) + 1.0
    y = EncoderLayer(16, 4, 64, rng=rng)(x)
    np.testing.assert_allclose(y.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), 1.0, atol=1e-3)
    y_pre = EncoderLayer(16, 4, 64, rng=rng, norm="pre")(x)
    assert np.abs(y_pre.mean(axis=-1)).max() > 0.1  # the residual stream is kept


def test_encoder_layer_batches_and_padding() -> None:
    rng = np.random.default_rng(4)
    layer = EncoderLayer(8, 2, 16, rng=rng)
    x = rng.standard_normal((2, 4, 8))
    mask = padding_mask([4, 2], 4)  # sequence 2 has 2 real tokens
    y, w = layer(x, mask=mask, return_weights=True)
    assert y.shape == (2, 4, 8) and w.shape == (2, 2, 4, 4)
    assert np.all(w[1, :, :, 2:] == 0.0)  # padded keys are never attended to
    np.testing.assert_allclose(y[0], layer(x[0]), rtol=1e-12)
    # the real tokens' outputs ignore whatever the padded rows hold
    x_other = x.copy()
    x_other[1, 2:] = rng.standard_normal((2, 8)) * 100
    np.testing.assert_allclose(
        layer(x_other, mask=mask)[1, :2], y[1, :2], rtol=1e-12, atol=1e-12
    )


def test_parameter_counts_of_the_base_model() -> None:
    # attention 4 d^2 (no biases), FFN 2 d d_ff + d_ff + d, layer norms 2 d each
    d, d_ff = 512, 2048
    attention, ffn, norm = 4 * d * d, 2 * d * d_ff + d_ff + d, 2 * d
    encoder = EncoderLayer(d, 8, d_ff, rng=np.random.default_rng(0))
    sizes = {name: p.size for name, p in encoder.parameters().items()}
    assert sum(sizes.values()) == attention + ffn + 2 * norm == 3_150_336
    assert sizes["w_1"] == d * d_ff and sizes["gamma_2"] == d
    decoder = DecoderLayer(d, 8, d_ff, rng=np.random.default_rng(0))
    total = sum(p.size for p in decoder.parameters().values())
    assert total == 2 * attention + ffn + 3 * norm == 4_199_936


def test_parameters_are_the_layers_own_arrays() -> None:
    layer = DecoderLayer(4, 2, 8, rng=np.random.default_rng(0))
    params = layer.parameters()
    assert set(params) == {
        *(
            f"{a}.{w}"
            for a in ("self_attention", "cross_attention")
            for w in ("w_q", "w_k", "w_v", "w_o")
        ),
        "w_1",
        "b_1",
        "w_2",
        "b_2",
        "gamma_1",
        "beta_1",
        "gamma_2",
        "beta_2",
        "gamma_3",
        "beta_3",
    }
    assert params["cross_attention.w_k"] is layer.cross_attention.w_k
    assert params["w_1"] is layer.w_1


def test_layers_draw_their_weights_in_the_documented_order() -> None:
    layer = EncoderLayer(4, 2, 6, rng=np.random.default_rng(7))
    rng = np.random.default_rng(7)
    for name in ("w_q", "w_k", "w_v", "w_o"):
        np.testing.assert_array_equal(
            getattr(layer.self_attention, name), rng.standard_normal((4, 4)) / 2.0
        )
    np.testing.assert_array_equal(layer.w_1, rng.standard_normal((4, 6)) / 2.0)
    np.testing.assert_array_equal(layer.w_2, rng.standard_normal((6, 4)) / math.sqrt(6))
    assert layer.b_1.tolist() == [0.0] * 6 and layer.gamma_1.tolist() == [1.0] * 4


def test_encoder_layer_errors() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="`d_ff` must be a positive integer, got 0"):
        EncoderLayer(8, 2, 0, rng=rng)
    with pytest.raises(ValueError, match="is not divisible by the number of heads h=3"):
        EncoderLayer(8, 3, 16, rng=rng)
    with pytest.raises(
        ValueError, match="`norm` must be 'post' or 'pre', got 'middle'"
    ):
        EncoderLayer(8, 2, 16, rng=rng, norm="middle")
    with pytest.raises(
        ValueError, match="`eps` must be a positive finite number, got 0"
    ):
        EncoderLayer(8, 2, 16, rng=rng, eps=0)
    with pytest.raises(TypeError, match=r"`rng` must be a numpy\.random\.Generator"):
        EncoderLayer(8, 2, 16, rng=0)
    layer = EncoderLayer(8, 2, 16, rng=rng)
    assert repr(layer) == "EncoderLayer(d_model=8, h=2, d_ff=16, norm='post')"
    with pytest.raises(
        ValueError,
        match=r"`x` has d_model=6 but the layer has d_model=8: shape \(5, 6\)",
    ):
        layer(np.ones((5, 6)))
    with pytest.raises(ValueError, match=r"`x` has no rows: shape \(0, 8\)"):
        layer(np.ones((0, 8)))
    with pytest.raises(ValueError, match=r"`x` must have shape \(\.\.\., n, d_model\)"):
        layer(np.ones(8))
    with pytest.raises(ValueError, match=r"mask of shape \(4, 4\) does not broadcast"):
        layer(np.ones((5, 8)), mask=np.ones((4, 4), bool))
    with pytest.raises(TypeError, match="mask must be boolean"):
        layer(np.ones((5, 8)), mask=np.ones((5, 5)))
    # attention output 1.5e308 (scores 0, values 1.5e298, W^O = 1e10 I) plus
    # x = 1.5e308: the residual sum overflows, the sub-layer itself does not
    attn = layer.self_attention
    attn.w_q[...] = attn.w_k[...] = 0.0
    attn.w_v[...], attn.w_o[...] = 1e-10 * np.eye(8), 1e10 * np.eye(8)
    with pytest.raises(
        ValueError, match=r"the residual sum `x` \+ self-attention overflows float64"
    ):
        layer(np.full((2, 8), 1.5e308))


# --- DecoderOnlyLayer ----------------------------------------------------------


def test_decoder_only_layer_is_the_pre_norm_composition_with_the_causal_mask() -> None:
    rng = np.random.default_rng(12)
    layer = DecoderOnlyLayer(8, 2, 16, rng=rng)
    randomise_norms(layer, rng)
    x = rng.standard_normal((5, 8))
    causal = np.tril(np.ones((5, 5), bool))  # row i sees 1, ..., i
    z = ln(layer, 1, x)
    x1 = x + mha_reference(layer.self_attention, z, z, causal)
    expected = x1 + layer_ffn(layer, ln(layer, 2, x1))
    y, weights = layer(x, return_weights=True)
    np.testing.assert_allclose(y, expected, rtol=1e-10, atol=1e-12)
    assert np.all(weights[:, ~causal] == 0.0) and np.all(weights[:, causal] > 0.0)
    assert layer.norm == "pre"
    assert repr(layer) == "DecoderOnlyLayer(d_model=8, h=2, d_ff=16, norm='pre')"


def test_decoder_only_layer_draws_the_weights_of_a_pre_norm_encoder_layer() -> None:
    only = DecoderOnlyLayer(4, 2, 6, rng=np.random.default_rng(5))
    encoder = EncoderLayer(4, 2, 6, rng=np.random.default_rng(5), norm="pre")
    for name, array in encoder.parameters().items():
        assert np.array_equal(only.parameters()[name], array), name


def test_decoder_only_layer_combines_a_padding_mask_with_the_causal_one() -> None:
    rng = np.random.default_rng(9)
    layer = DecoderOnlyLayer(4, 2, 8, rng=rng)
    x = rng.standard_normal((2, 4, 4))
    pad = padding_mask([4, 2], 4)  # (2, 1, 4): the second sequence has 2 tokens
    _, weights = layer(x, mask=pad, return_weights=True)
    causal = np.tril(np.ones((4, 4), bool))
    for b in range(2):
        allowed = causal & pad[b]
        for head in range(2):
            assert np.array_equal(weights[b, head] > 0.0, allowed)


def test_decoder_only_layer_output_at_i_ignores_later_positions() -> None:
    rng = np.random.default_rng(10)
    layer = DecoderOnlyLayer(4, 2, 8, rng=rng)
    x = rng.standard_normal((5, 4))
    changed = x.copy()
    changed[3:] = 100.0
    np.testing.assert_allclose(layer(changed)[:3], layer(x)[:3], rtol=1e-12)


def test_decoder_only_layer_errors_name_the_argument_and_the_class() -> None:
    rng = np.random.default_rng(11)
    with pytest.raises(TypeError, match="norm"):
        DecoderOnlyLayer(4, 2, 8, rng=rng, norm="post")  # always pre-norm
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="h"):
        DecoderOnlyLayer(4, 3, 8, rng=rng)
    assert rng.bit_generator.state == state  # nothing drawn
    layer = DecoderOnlyLayer(4, 2, 8, rng=rng)
    with pytest.raises(ValueError, match=r"^`x` .*d_model"):
        layer(np.ones((3, 5)))
    with pytest.raises(ValueError, match="mask"):
        layer(np.ones((3, 4)), mask=np.ones((2, 2), bool))
    with pytest.raises(TypeError, match="mask"):
        layer(np.ones((3, 4)), mask=np.ones((3, 3)))
    layer.w_2 = np.ones((8, 5))
    with pytest.raises(ValueError, match=r"^`DecoderOnlyLayer.w_2` has shape"):
        layer(np.ones((3, 4)))


# --- DecoderLayer ------------------------------------------------------------


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_decoder_layer_is_the_composition_written_out(norm: str) -> None:
    rng = np.random.default_rng(5)
    layer = DecoderLayer(8, 2, 16, rng=rng, norm=norm)
    randomise_norms(layer, rng)
    x, memory = rng.standard_normal((4, 8)), rng.standard_normal((6, 8))
    causal = np.tril(np.ones((4, 4), bool))
    self_attn, cross = layer.self_attention, layer.cross_attention
    if norm == "post":
        x1 = ln(layer, 1, x + mha_reference(self_attn, x, x, causal))
        x2 = ln(layer, 2, x1 + mha_reference(cross, x1, memory))
        expected = ln(layer, 3, x2 + layer_ffn(layer, x2))
    else:
        z = ln(layer, 1, x)
        x1 = x + mha_reference(self_attn, z, z, causal)
        x2 = x1 + mha_reference(cross, ln(layer, 2, x1), memory)
        expected = x2 + layer_ffn(layer, ln(layer, 3, x2))
    np.testing.assert_allclose(layer(x, memory), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_decoder_output_at_i_ignores_later_targets(norm: str) -> None:
    rng = np.random.default_rng(6)
    layer = DecoderLayer(8, 2, 16, rng=rng, norm=norm)
    x, memory = rng.standard_normal((2, 5, 8)), rng.standard_normal((2, 7, 8))
    y = layer(x, memory)
    for i in range(5):
        changed = x.copy()
        changed[:, i + 1 :] = rng.standard_normal((2, 4 - i, 8)) * 10
        y_changed = layer(changed, memory)
        np.testing.assert_array_equal(y_changed[:, : i + 1], y[:, : i + 1])
        if i < 4:
            assert not np.allclose(y_changed[:, i + 1 :], y[:, i + 1 :])
    # without the causal mask, position 1 sees position 5
    changed = x.copy()
    changed[:, 4] = rng.standard_normal((2, 8))
    assert not np.allclose(
        layer(changed, memory, causal=False)[:, 0], layer(x, memory, causal=False)[:, 0]
    )


def test_cross_attention_weights_and_source_padding() -> None:
    rng = np.random.default_rng(7)
    layer = DecoderLayer(8, 2, 16, rng=rng)
    x, memory = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 5, 8))
    src_mask = padding_mask([5, 2], 5)  # (2, 1, 5): source 2 has 2 real tokens
    y, self_w, cross_w = layer(x, memory, memory_mask=src_mask, return_weights=True)
    assert y.shape == (2, 3, 8)
    assert self_w.shape == (2, 2, 3, 3) and cross_w.shape == (2, 2, 3, 5)
    assert np.all(np.triu(self_w, 1) == 0.0)  # causal in the self-attention
    assert np.all(cross_w[0] > 0.0)  # no causal mask in the cross-attention
    assert np.all(cross_w[1, :, :, 2:] == 0.0)
    np.testing.assert_allclose(cross_w.sum(axis=-1), 1.0)
    other = memory.copy()
    other[1, 2:] = 50.0  # whatever the padded source rows hold
    np.testing.assert_allclose(
        layer(x, other, memory_mask=src_mask)[1], y[1], rtol=1e-12, atol=1e-12
    )


def test_decoder_self_mask_is_combined_with_the_causal_mask() -> None:
    rng = np.random.default_rng(8)
    layer = DecoderLayer(4, 2, 8, rng=rng)
    x, memory = rng.standard_normal((4, 4)), rng.standard_normal((3, 4))
    tgt_pad = padding_mask([3], 4)[0]  # (1, 4): target position 4 is padding
    _, self_w, _ = layer(x, memory, self_mask=tgt_pad, return_weights=True)
    expected = np.tril(np.ones((4, 4), bool)) & tgt_pad
    assert np.array_equal(self_w[0] > 0.0, expected)
    # memory shared by a batch of targets: broadcast batch dimensions
    y = layer(rng.standard_normal((3, 4, 4)), memory)
    assert y.shape == (3, 4, 4)


def test_decoder_layer_errors() -> None:
    rng = np.random.default_rng(0)
    layer = DecoderLayer(8, 2, 16, rng=rng)
    assert repr(layer) == "DecoderLayer(d_model=8, h=2, d_ff=16, norm='post')"
    x, memory = np.ones((3, 8)), np.ones((5, 8))
    with pytest.raises(
        ValueError,
        match=r"`memory` has d_model=4 but the layer has d_model=8: shape \(5, 4\)",
    ):
        layer(x, np.ones((5, 4)))
    with pytest.raises(ValueError, match=r"`memory` has no rows: shape \(0, 8\)"):
        layer(x, np.ones((0, 8)))
    with pytest.raises(
        ValueError, match="leading \\(batch\\) dimensions of `x`, `memory`"
    ):
        layer(np.ones((2, 3, 8)), np.ones((4, 5, 8)))
    with pytest.raises(
        ValueError, match=r"self_mask of shape \(3, 5\) does not broadcast"
    ):
        layer(x, memory, self_mask=np.ones((3, 5), bool))
    with pytest.raises(
        ValueError, match=r"memory_mask of shape \(3, 3\) does not broadcast"
    ):
        layer(x, memory, memory_mask=np.ones((3, 3), bool))
    with pytest.raises(TypeError, match="memory_mask must be boolean"):
        layer(x, memory, memory_mask=np.ones((3, 5), int))
    with pytest.raises(TypeError, match="`causal` must be True or False, got 1"):
        layer(x, memory, causal=1)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_an_overflow_inside_a_layer_names_the_sub_layer_and_x(norm) -> None:
    layer = EncoderLayer(4, 2, 4, rng=np.random.default_rng(0), norm=norm)
    layer.self_attention.w_q *= 1e300  # scores of about 1e300 * 1e300
    layer.self_attention.w_k *= 1e300
    with pytest.raises(
        ValueError, match=r"^the self-attention sub-layer overflows for this `x`: in it"
    ):
        layer(np.random.default_rng(1).standard_normal((3, 4)))
    decoder = DecoderLayer(4, 2, 4, rng=np.random.default_rng(0), norm=norm)
    decoder.cross_attention.w_k *= 1e300
    decoder.cross_attention.w_q *= 1e300
    with pytest.raises(
        ValueError, match=r"^the cross-attention sub-layer overflows for this `x` and"
    ):
        decoder(np.ones((3, 4)) * [1, -1, 2, 0], np.ones((2, 4)) * [2, 0, -1, 1])
