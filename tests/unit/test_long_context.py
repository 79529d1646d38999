"""Tests of RoPE's rescaled angles and ALiBi (attention_docs.positional).

Expected values are worked out by hand or from the papers' formulas written
out literally with Python's math module, not from the vectorised code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs.attention import attention_scores
from attention_docs.masks import causal_mask
from attention_docs.positional import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    rope_frequencies,
)
from attention_docs.softmax import masked_softmax

PROPERTY = settings(deadline=None, max_examples=50, database=None)


def test_frequencies_by_hand() -> None:
    # d = 8: theta_i = 10000^(-i/4) = 1, 0.1, 0.01, 0.001
    np.testing.assert_allclose(rope_frequencies(8), [1, 0.1, 0.01, 0.001], rtol=1e-14)
    # PI with s = 2: every angle halved
    np.testing.assert_allclose(
        rope_frequencies(8, scaling="linear", factor=2),
        [0.5, 0.05, 0.005, 0.0005],
        rtol=1e-14,
    )
    # NTK, d = 4, s = 4: b' = 10000 * 4^2 = 160000, theta_1 = 1/400
    np.testing.assert_allclose(
        rope_frequencies(4, scaling="ntk", factor=4), [1, 0.0025], rtol=1e-14
    )
    # NTK, d = 8, s = 8: b' = 10000 * 8^(4/3) = 160000; theta_i = 160000^(-i/4)
    # = 1, 1/20, 1/400, 1/8000 (the last pair divided by exactly s)
    np.testing.assert_allclose(
        rope_frequencies(8, scaling="ntk", factor=8),
        [1, 1 / 20, 1 / 400, 1 / 8000],
        rtol=1e-13,
    )


def test_yarn_by_the_papers_equation_by_hand() -> None:
    # L = 200 pi: turns r_i = 100 theta_i = 100, 10, 1, 0.1 for d = 8.
    # alpha = 1, beta = 32: gamma = 1, 9/31, 0, 0.
    theta = rope_frequencies(
        8, scaling="yarn", factor=4, original_length=200 * math.pi, ramp="turns"
    )
    g = 9 / 31
    want = [1.0, (1 - g) * 0.1 / 4 + g * 0.1, 0.01 / 4, 0.001 / 4]
    np.testing.assert_allclose(theta, want, rtol=1e-13)


def test_factor_one_changes_nothing() -> None:
    plain = rope_frequencies(16)
    for scaling in ("linear", "ntk"):
        np.testing.assert_allclose(
            rope_frequencies(16, scaling=scaling, factor=1), plain, rtol=1e-14
        )
    np.testing.assert_allclose(
        rope_frequencies(16, scaling="yarn", factor=1, original_length=64),
        plain,
        rtol=1e-14,
    )


@PROPERTY
@given(
    st.integers(1, 64).map(lambda h: 2 * h),
    st.floats(1.0, 64.0),
    st.floats(16.0, 10000.0),
    st.floats(0.0, 4.0),
    st.floats(0.5, 64.0),
)
def test_yarn_against_the_formula(d, s, length, alpha, width) -> None:
    beta = alpha + width
    got = rope_frequencies(
        d,
        scaling="yarn",
        factor=s,
        original_length=length,
        alpha=alpha,
        beta=beta,
        ramp="turns",
    )
    for i in range(d // 2):
        theta = 10000.0 ** (-2 * i / d)
        r = length / (2 * math.pi / theta)  # r(d) = L / lambda_d
        if r < alpha:
            gamma = 0.0
        elif r > beta:
            gamma = 1.0
        else:
            gamma = (r - alpha) / (beta - alpha)
        want = (1 - gamma) * theta / s + gamma * theta
        assert got[i] == pytest.approx(want, rel=1e-12)
        assert theta / s * (1 - 1e-12) <= got[i] <= theta * (1 + 1e-12)


def _hf_yarn(dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow):
    """transformers' _compute_yarn_parameters (truncate=True), line by line in math."""

    def find_correction_dim(num_rotations):
        return (
            dim
            * math.log(original_max_position_embeddings / (num_rotations * 2 * math.pi))
        ) / (2 * math.log(base))

    low = max(math.floor(find_correction_dim(beta_fast)), 0)
    high = min(math.ceil(find_correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    out = []
    for j in range(dim // 2):
        pos_freq = base ** (2 * j / dim)
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        extrapolation_factor = 1 - ramp
        out.append(
            1.0 / (factor * pos_freq) * (1 - extrapolation_factor)
            + 1.0 / pos_freq * extrapolation_factor
        )
    return out


def test_yarn_index_ramp_by_hand() -> None:
    # d = 8, L = 400 pi: turns 200, 20, 2, 0.2; c(32) = 4 ln(6.25) / ln(10^4)
    # = 0.80 -> 0, c(1) = 4 ln(200) / ln(10^4) = 2.30 -> 3: gamma_i = 1 - i/3.
    theta = rope_frequencies(
        8, scaling="yarn", factor=4, original_length=400 * math.pi, ramp="index"
    )
    plain = [1.0, 0.1, 0.01, 0.001]
    gamma = [1, 2 / 3, 1 / 3, 0]
    want = [(1 - g) * t / 4 + g * t for g, t in zip(gamma, plain, strict=True)]
    np.testing.assert_allclose(theta, want, rtol=1e-13)


def test_yarn_by_default_is_what_rope_type_yarn_means() -> None:
    # A config {"rope_type": "yarn", "factor": 4,
    # "original_max_position_embeddings": 128} leaves beta_fast = 32 and
    # beta_slow = 1 at transformers' defaults and ramps by the pair index.
    # The book's model: d = 24, L = 128, b = 10^4, so
    # c(32) = 24 ln(128 / 64 pi) / (2 ln 10^4) = -0.59 -> 0 and
    # c(1) = 24 ln(128 / 2 pi) / (2 ln 10^4) = 3.93 -> 4: gamma_i = 1 - i/4,
    # theta'_i / theta_i = 1, 13/16, 5/8, 7/16, then 1/4 for pairs 4 to 11.
    theta = rope_frequencies(24, scaling="yarn", factor=4, original_length=128)
    ratio = theta / 10000.0 ** (-np.arange(0, 24, 2) / 24)
    want = [1, 13 / 16, 5 / 8, 7 / 16] + [1 / 4] * 8
    np.testing.assert_allclose(ratio, want, rtol=1e-13)
    # the same as the explicit configuration's fields
    np.testing.assert_allclose(theta, _hf_yarn(24, 10000.0, 4, 128, 32, 1), rtol=1e-13)
    # by the paper's equation with the same bounds, no pair of this model
    # turns beta = 32 times (pair 0: 128 / 2 pi = 20.37 turns), so every
    # pair is scaled: pair 0 by (1 - g) / 4 + g with g = 19.37 / 31.
    turns = rope_frequencies(
        24, scaling="yarn", factor=4, original_length=128, ramp="turns"
    )
    g = (128 / (2 * math.pi) - 1) / 31
    assert turns[0] == pytest.approx((1 - g) / 4 + g, rel=1e-12)
    assert turns[0] < 0.75


def test_yarn_index_ramp_deepseek_v3() -> None:
    # DeepSeek-V3: qk_rope_head_dim 64, rope_theta 10000, factor 40,
    # original_max_position_embeddings 4096, beta_fast 32, beta_slow 1.
    # c(32) = 32 ln(4096 / 64 pi) / ln(10^4) = 10.47 -> 10,
    # c(1) = 32 ln(4096 / 2 pi) / ln(10^4) = 22.5 -> 23: the ramp spans 13 pairs.
    theta = rope_frequencies(64, scaling="yarn", factor=40, original_length=4096)
    ratio = theta / rope_frequencies(64)
    np.testing.assert_allclose(ratio[:11], 1.0, rtol=1e-14)
    np.testing.assert_allclose(ratio[23:], 1 / 40, rtol=1e-13)
    np.testing.assert_allclose(ratio[16], 6 / 13 / 40 + 7 / 13, rtol=1e-13)
    np.testing.assert_allclose(
        theta, _hf_yarn(64, 10000.0, 40, 4096, 32, 1), rtol=1e-13
    )


def test_yarn_index_ramp_agrees_outside_the_ramp() -> None:
    # d = 128, L = 4096, s = 4: the ramp runs from pair 20 to pair 46.
    kwargs = {"scaling": "yarn", "factor": 4, "original_length": 4096}
    by_turns = rope_frequencies(128, ramp="turns", **kwargs)
    by_index = rope_frequencies(128, **kwargs)
    np.testing.assert_allclose(by_index[:21], by_turns[:21], rtol=1e-14)
    np.testing.assert_allclose(by_index[46:], by_turns[46:], rtol=1e-14)
    # between, pair 30: 1 - 10/26 of theta kept against gamma_30 = 0.248
    plain = rope_frequencies(128)
    assert by_index[30] / plain[30] == pytest.approx(10 / 26 / 4 + 16 / 26)
    assert by_turns[30] / plain[30] == pytest.approx(0.4361, abs=1e-4)


@PROPERTY
@given(
    st.integers(1, 64).map(lambda h: 2 * h),
    st.sampled_from([10000.0, 500000.0, 1000000.0]),
    st.floats(1.0, 64.0),
    st.floats(16.0, 200000.0),
    st.floats(0.25, 4.0),
    st.floats(0.5, 64.0),
)
def test_yarn_index_ramp_against_transformers(d, base, s, length, alpha, width) -> None:
    beta = alpha + width
    got = rope_frequencies(
        d,
        base=base,
        scaling="yarn",
        factor=s,
        original_length=length,
        alpha=alpha,
        beta=beta,
        ramp="index",
    )
    want = _hf_yarn(d, base, s, length, beta, alpha)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@PROPERTY
@given(st.integers(2, 64).map(lambda h: 2 * h), st.floats(1.0, 64.0))
def test_ntk_against_the_formula(d, s) -> None:
    got = rope_frequencies(d, scaling="ntk", factor=s)
    b = 10000.0 * s ** (d / (d - 2))
    for i in range(d // 2):
        assert got[i] == pytest.approx(b ** (-2 * i / d), rel=1e-12)
    assert got[-1] == pytest.approx(10000.0 ** (-(d - 2) / d) / s, rel=1e-12)


def test_pi_equals_scaled_positions() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 8))
    positions = np.array([0, 3, 7, 100, 4095])
    got = apply_rope(
        x, positions, theta=rope_frequencies(8, scaling="linear", factor=4)
    )
    np.testing.assert_allclose(got, apply_rope(x, positions / 4), rtol=1e-12)


def test_apply_rope_theta_default_is_base() -> None:
    x = np.arange(8.0).reshape(1, 8)
    np.testing.assert_array_equal(
        apply_rope(x, [5], theta=rope_frequencies(8)), apply_rope(x, [5])
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"d": 3}, "`d`=3 must be even"),
        ({"d": 0}, "`d` must be a positive integer"),
        ({"d": 4, "base": 1.0}, "`base` must be a finite number greater than 1"),
        ({"d": 4, "scaling": "ntk-aware", "factor": 2}, "`scaling` must be None"),
        ({"d": 4, "factor": 2}, "`factor`=2 needs a `scaling`"),
        ({"d": 4, "scaling": "linear"}, "needs a `factor`"),
        ({"d": 4, "scaling": "linear", "factor": 0.5}, "at least 1, got 0.5"),
        ({"d": 2, "scaling": "ntk", "factor": 2}, "`d`=2 must be at least 4"),
        ({"d": 4, "scaling": "yarn", "factor": 2}, "needs `original_length`"),
        (
            {"d": 4, "scaling": "yarn", "factor": 2, "original_length": -1},
            "`original_length` must be a positive finite number",
        ),
        (
            {
                "d": 4,
                "scaling": "yarn",
                "factor": 2,
                "original_length": 8,
                "alpha": 4,
                "beta": 2,
            },
            "`alpha`=4.0 must be less than `beta`=2.0",
        ),
        (
            {"d": 4, "scaling": "yarn", "factor": 2, "original_length": 8, "alpha": -1},
            "`alpha` must be a finite number at least 0",
        ),
        ({"d": 4, "ramp": "pair"}, '`ramp` must be "index" or "turns", got'),
        (
            {"d": 4, "scaling": "linear", "factor": 2, "ramp": "turns"},
            '`ramp`="turns" needs scaling="yarn"',
        ),
        (
            {
                "d": 4,
                "scaling": "yarn",
                "factor": 2,
                "original_length": 8,
                "alpha": 0,
            },
            '`alpha`=0.0 must be positive for ramp="index"',
        ),
    ],
)
def test_frequencies_errors(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match.replace("(", r"\(")):
        rope_frequencies(**kwargs)


def test_apply_rope_theta_errors() -> None:
    x = np.ones((2, 4))
    with pytest.raises(ValueError, match=r"`theta` of shape \(3,\) must have shape"):
        apply_rope(x, theta=[1.0, 0.1, 0.01])
    with pytest.raises(ValueError, match="`theta`"):
        apply_rope(x, theta=[1.0, np.nan])
    with pytest.raises(TypeError, match="`theta`"):
        apply_rope(x, theta=["a", "b"])


def test_slopes_by_hand() -> None:
    assert alibi_slopes(1).tolist() == [2.0**-8]
    assert alibi_slopes(2).tolist() == [2.0**-4, 2.0**-8]
    assert alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]
    # 16 heads: 2^-0.5, 2^-1, ..., 2^-8 (the paper's Section 3)
    np.testing.assert_allclose(alibi_slopes(16), [2 ** (-k / 2) for k in range(1, 17)])
    # 3 heads (reference code): 2 of H = 2 (1/16, 1/256), then 1/4 from H = 4
    assert alibi_slopes(3).tolist() == [2.0**-4, 2.0**-8, 2.0**-2]
    # 12 heads: the 8 of H = 8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 from H = 16
    np.testing.assert_allclose(
        alibi_slopes(12),
        [2.0**-k for k in range(1, 9)] + [2 ** -(k + 0.5) for k in range(4)],
    )


@PROPERTY
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 12))
def test_bias_against_the_formula(n_q, extra, h) -> None:
    n_k = n_q + extra - 1
    bias = alibi_bias(n_q, n_k, n_heads=h)
    slopes = alibi_slopes(h)
    assert bias.shape == (h, n_q, n_k)
    for head in range(h):
        for i in range(n_q):
            pos = i + n_k - n_q  # bottom-right: the query's position
            for j in range(n_k):
                assert bias[head, i, j] == -slopes[head] * abs(pos - j)


def test_bias_by_hand_and_zero_diagonal() -> None:
    # 2 heads: m = 1/16, 1/256; query 1 (position 3) of 2 against 4 keys
    bias = alibi_bias(2, 4, n_heads=2)
    assert bias[0, 1].tolist() == [-3 / 16, -2 / 16, -1 / 16, 0.0]
    assert bias[1, 0].tolist() == [-2 / 256, -1 / 256, 0.0, -1 / 256]
    assert not np.signbit(alibi_bias(5, n_heads=3)[:, range(5), range(5)]).any()


def test_bias_softmax_is_shift_invariant() -> None:
    # -m (i - j) and -m (i - j) + m i differ by a constant per row: same weights
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 1, 6, 4))
    s = attention_scores(q, k)
    bias = alibi_bias(6, n_heads=1)
    mask = causal_mask(6)
    j = np.arange(6)
    w1 = masked_softmax(s + bias, mask)
    w2 = masked_softmax(s + alibi_slopes(1)[0] * j, mask)  # +m j only
    np.testing.assert_allclose(w1, w2, rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: alibi_slopes(0), "`n_heads` must be a positive integer, got 0"),
        (lambda: alibi_slopes(2.0), "`n_heads` must be a positive integer"),
        (lambda: alibi_bias(0, n_heads=2), "`n_q` must be a positive integer"),
        (lambda: alibi_bias(2, 0, n_heads=2), "`n_k` must be a positive integer"),
        (lambda: alibi_bias(2, n_heads=True), "`n_heads` must be a positive integer"),
    ],
)
def test_alibi_errors(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()
