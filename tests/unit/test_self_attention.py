"""Tests of attention_docs.self_attention, with the book's from-scratch example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_docs.masks import causal_mask
from attention_docs.self_attention import project_qkv, self_attention

PROPERTY = settings(deadline=None, max_examples=50, database=None)
FINITE = st.floats(-3, 3, allow_nan=False, allow_infinity=False)

# The from-scratch example's output as printed by an independent implementation
# (compared with whitespace normalised).
FROM_SCRATCH_PRINTED = """
[[0.8171592 1.00426184 0.69930635 1.31138005]
[0.7915625 0.96723906 0.66875262 1.25601252]
[0.81875423 1.00416968 0.70712603 1.31194758]
[0.77771824 0.94955796 0.64721517 1.2291082 ]
[0.7857578 0.9602772 0.65909118 1.24542999]]
"""
FROM_SCRATCH_VALUES = [
    [0.8171592, 1.00426184, 0.69930635, 1.31138005],
    [0.7915625, 0.96723906, 0.66875262, 1.25601252],
    [0.81875423, 1.00416968, 0.70712603, 1.31194758],
    [0.77771824, 0.94955796, 0.64721517, 1.2291082],
    [0.7857578, 0.9602772, 0.65909118, 1.24542999],
]


def from_scratch_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Data from numpy's legacy global generator (np.random.seed(42) and
    np.random.rand, as much code still draws it), hence the NPY002 exemptions.

    The values below were computed once from it without the package.
    """
    np.random.seed(42)  # noqa: NPY002
    tokens = np.random.rand(5, 4)  # noqa: NPY002
    w_q = np.random.rand(4, 4)  # noqa: NPY002
    w_k = np.random.rand(4, 4)  # noqa: NPY002
    w_v = np.random.rand(4, 4)  # noqa: NPY002
    return tokens, w_q, w_k, w_v


def reference_numpy(tokens, w_q, w_k, w_v, attention_dim=4):
    """The example written directly in numpy, independent of the package."""
    Q = tokens @ w_q
    K = tokens @ w_k
    V = tokens @ w_v
    scores = Q @ K.T
    scaled_scores = scores / np.sqrt(attention_dim)

    def softmax(x):
        exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return exp_x / np.sum(exp_x, axis=-1, keepdims=True)

    attention_weights = softmax(scaled_scores)
    return attention_weights @ V


def test_the_from_scratch_example_is_reproduced() -> None:
    tokens, w_q, w_k, w_v = from_scratch_inputs()
    output = self_attention(tokens, w_q, w_k, w_v)  # scale 1/sqrt(d_k) = 1/sqrt(4)
    assert output.shape == (5, 4)
    # to the printed precision (8 decimals)
    np.testing.assert_allclose(output, FROM_SCRATCH_VALUES, rtol=0, atol=5e-9)
    # against the independent numpy code
    np.testing.assert_allclose(
        output, reference_numpy(tokens, w_q, w_k, w_v), rtol=1e-14
    )
    # and exactly as printed, up to whitespace
    assert str(output).split() == FROM_SCRATCH_PRINTED.split()


def test_project_qkv_by_hand() -> None:
    x = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    q, k, v = project_qkv(x, [[1.0], [0.0]], [[0.0], [1.0]], [[1.0, 2.0], [3.0, 4.0]])
    assert q.tolist() == [[1.0], [0.0], [1.0]]
    assert k.tolist() == [[0.0], [1.0], [1.0]]
    assert v.tolist() == [[1.0, 2.0], [3.0, 4.0], [4.0, 6.0]]


def test_self_attention_equals_the_loop_formula() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    w_q, w_k, w_v = (
        rng.standard_normal((3, 2)),
        rng.standard_normal((3, 2)),
        rng.standard_normal((3, 5)),
    )
    n, d_model = x.shape

    def project(w):  # X W, one entry at a time
        return [
            [sum(x[t, p] * w[p, c] for p in range(d_model)) for c in range(w.shape[1])]
            for t in range(n)
        ]

    q, k, v = project(w_q), project(w_k), project(w_v)
    expected = []
    for i in range(n):
        s = [sum(q[i][p] * k[j][p] for p in range(2)) / math.sqrt(2) for j in range(n)]
        e = [math.exp(s_j - max(s)) for s_j in s]
        a = [e_j / sum(e) for e_j in e]
        expected.append([sum(a[j] * v[j][c] for j in range(n)) for c in range(5)])
    np.testing.assert_allclose(self_attention(x, w_q, w_k, w_v), expected, rtol=1e-12)


def test_causal_first_position_returns_its_own_value() -> None:
    tokens, w_q, w_k, w_v = from_scratch_inputs()
    out = self_attention(tokens, w_q, w_k, w_v, mask=causal_mask(5))
    np.testing.assert_allclose(out[0], tokens[0] @ w_v, rtol=1e-15)
    # the last position sees everything: same as without a mask
    np.testing.assert_allclose(out[-1], FROM_SCRATCH_VALUES[-1], atol=5e-9)


def test_batched_input() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 4))
    w_q, w_k, w_v = (rng.standard_normal((4, 4)) for _ in range(3))
    out = self_attention(x, w_q, w_k, w_v)
    assert out.shape == (3, 5, 4)
    np.testing.assert_allclose(out[1], self_attention(x[1], w_q, w_k, w_v), rtol=1e-14)


@st.composite
def sequence_and_permutation(draw: st.DrawFn):
    n, d_model, d_k, d_v = (
        draw(st.integers(1, 6)),
        *(draw(st.integers(1, 4)) for _ in range(3)),
    )
    x = draw(arrays(np.float64, (n, d_model), elements=FINITE))
    w_q = draw(arrays(np.float64, (d_model, d_k), elements=FINITE))
    w_k = draw(arrays(np.float64, (d_model, d_k), elements=FINITE))
    w_v = draw(arrays(np.float64, (d_model, d_v), elements=FINITE))
    perm = np.array(draw(st.permutations(range(n))), dtype=int)
    return x, w_q, w_k, w_v, perm


@PROPERTY
@given(sequence_and_permutation())
def test_self_attention_without_mask_is_permutation_equivariant(case) -> None:
    x, w_q, w_k, w_v, perm = case
    out = self_attention(x, w_q, w_k, w_v)
    out_of_permuted = self_attention(x[perm], w_q, w_k, w_v)
    np.testing.assert_allclose(out_of_permuted, out[perm], rtol=1e-9, atol=1e-9)


# --- errors ------------------------------------------------------------------


def weights(d_model=4, d_k=2, d_v=3):
    return np.ones((d_model, d_k)), np.ones((d_model, d_k)), np.ones((d_model, d_v))


def test_x_needs_two_dimensions() -> None:
    with pytest.raises(
        ValueError,
        match=r"`x` must have shape \(\.\.\., n, d_model\), got shape \(4,\)",
    ):
        self_attention(np.ones(4), *weights())


@pytest.mark.parametrize("name", ["w_q", "w_k", "w_v"])
def test_projection_rows_must_match_d_model(name: str) -> None:
    w = dict(zip(["w_q", "w_k", "w_v"], weights(), strict=True))
    w[name] = np.ones((3, w[name].shape[1]))
    pattern = (
        rf"`x` has d_model=4 but `{name}` has d_model=3: shapes \(5, 4\) and \(3, \d\)"
    )
    with pytest.raises(ValueError, match=pattern):
        project_qkv(np.ones((5, 4)), **w)
    with pytest.raises(ValueError, match=pattern):
        self_attention(np.ones((5, 4)), **w)


def test_projection_must_be_a_matrix() -> None:
    w_q, w_k, _ = weights()
    with pytest.raises(
        ValueError, match=r"`w_v` must have shape \(d_model, d_v\), got shape \(4,\)"
    ):
        project_qkv(np.ones((5, 4)), w_q, w_k, np.ones(4))


def test_w_q_and_w_k_must_have_the_same_d_k() -> None:
    with pytest.raises(
        ValueError,
        match=r"`w_q` has d_k=2 but `w_k` has d_k=3: shapes \(4, 2\) and \(4, 3\)",
    ):
        project_qkv(np.ones((5, 4)), np.ones((4, 2)), np.ones((4, 3)), np.ones((4, 3)))


@pytest.mark.parametrize("name", ["x", "w_q", "w_k", "w_v"])
def test_non_finite_input_raises(name: str) -> None:
    args = dict(zip(["w_q", "w_k", "w_v"], weights(), strict=True), x=np.ones((5, 4)))
    args[name][0, 0] = math.nan
    with pytest.raises(ValueError, match=f"`{name}` contains NaN or infinite values"):
        self_attention(**args)


def test_mask_and_scale_errors_propagate() -> None:
    with pytest.raises(TypeError, match=r"mask must be boolean .*got dtype int64"):
        self_attention(
            np.ones((5, 4)), *weights(), mask=np.ones((5, 5), dtype=np.int64)
        )
    with pytest.raises(ValueError, match=r"mask of shape \(4, 4\) .*\(5, 5\)"):
        self_attention(np.ones((5, 4)), *weights(), mask=np.ones((4, 4), dtype=bool))
    with pytest.raises(
        ValueError, match="`scale` must be a positive finite number, got -1"
    ):
        self_attention(np.ones((5, 4)), *weights(), scale=-1)


@pytest.mark.parametrize("name", ["w_q", "w_k", "w_v"])
def test_projection_overflow_raises_naming_x_and_the_weight(name: str) -> None:
    args = dict(zip(["w_q", "w_k", "w_v"], weights(), strict=True))
    args[name] = np.full(args[name].shape, 1e200)
    pattern = rf"`x` @ `{name}` overflows float64: shapes \(5, 4\) and \(4, \d\)"
    with pytest.raises(ValueError, match=pattern):
        project_qkv(np.full((5, 4), 1e200), **args)
    with pytest.raises(ValueError, match=pattern):
        self_attention(np.full((5, 4), 1e200), **args)
