"""Tests of attention_docs.training: a single attention head trained by hand.

The references are independent of the code under test: the loss written out
literally (``literal_loss``: explicit sums and exponentials, no package
function) differentiated by central finite differences; Adam's steps worked
out by hand; the task's targets and the accuracy counted by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import sinusoidal_positional_encoding
from attention_docs.training import (
    PARAMETER_NAMES,
    Adam,
    TrainingResult,
    alignment_accuracy,
    cross_entropy,
    forward,
    init_params,
    loss_and_gradients,
    reversal_task,
    train,
)

PROPERTY = settings(deadline=None, max_examples=30, database=None)
REVERSED = 6 - 1 - np.arange(6)  # the correct key of each query, n = 6


def literal_loss(params, tokens, targets, positional=True):
    """The model's mean cross-entropy, written out position by position."""
    d_model = params["embedding"].shape[1]
    batch, n = tokens.shape
    pe = np.zeros((n, d_model))
    if positional:  # Vaswani et al. (2017), Section 3.5, written out
        for pos in range(n):
            for i in range(d_model // 2):
                angle = pos / 10000 ** (2 * i / d_model)
                pe[pos, 2 * i] = math.sin(angle)
                pe[pos, 2 * i + 1] = math.cos(angle)
    d_k = params["w_q"].shape[1]
    total = 0.0
    for b in range(batch):
        x = np.array([params["embedding"][t] for t in tokens[b]]) + pe
        q, k, v = x @ params["w_q"], x @ params["w_k"], x @ params["w_v"]
        for i in range(n):
            scores = [float(q[i] @ k[j]) / math.sqrt(d_k) for j in range(n)]
            e = [math.exp(s - max(scores)) for s in scores]
            out = sum(e[j] / sum(e) * v[j] for j in range(n))
            logits = out @ params["w_out"]
            log_sum = math.log(sum(math.exp(z) for z in logits))
            total += log_sum - logits[targets[b, i]]
    return total / (batch * n)


def numeric_gradients(params, tokens, targets, positional, h=1e-6):
    grads = {}
    for name in PARAMETER_NAMES:
        grad = np.zeros_like(params[name])
        for index in np.ndindex(grad.shape):
            plus = {key: value.copy() for key, value in params.items()}
            minus = {key: value.copy() for key, value in params.items()}
            plus[name][index] += h
            minus[name][index] -= h
            grad[index] = (
                literal_loss(plus, tokens, targets, positional)
                - literal_loss(minus, tokens, targets, positional)
            ) / (2 * h)
        grads[name] = grad
    return grads


@st.composite
def small_problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vocab = draw(st.integers(2, 5))
    d_model = draw(st.sampled_from([2, 4]))
    d_k = draw(st.integers(1, 3))
    batch, n = draw(st.integers(1, 2)), draw(st.integers(1, 4))
    params = init_params(rng, vocab=vocab, d_model=d_model, d_k=d_k)
    tokens, targets = reversal_task(rng, batch, n, vocab)
    return params, tokens, targets, draw(st.booleans())


# -- gradients ----------------------------------------------------------------


@pytest.mark.parametrize("positional", [True, False])
def test_every_gradient_equals_central_differences_of_the_literal_loss(
    positional,
) -> None:
    rng = np.random.default_rng(3)
    params = init_params(rng, vocab=5, d_model=4, d_k=3)
    tokens = np.array([[0, 1, 1, 4], [2, 3, 0, 1]])
    targets = tokens[:, ::-1]
    loss, grads = loss_and_gradients(params, tokens, targets, positional=positional)
    assert loss == pytest.approx(literal_loss(params, tokens, targets, positional))
    expected = numeric_gradients(params, tokens, targets, positional)
    assert list(grads) == list(PARAMETER_NAMES)
    for name in PARAMETER_NAMES:
        assert grads[name].shape == params[name].shape
        np.testing.assert_allclose(
            grads[name], expected[name], rtol=1e-5, atol=1e-8, err_msg=name
        )


@PROPERTY
@given(small_problems())
def test_gradients_give_the_directional_derivative(case) -> None:
    params, tokens, targets, positional = case
    _, grads = loss_and_gradients(params, tokens, targets, positional=positional)
    rng = np.random.default_rng(0)
    direction = {name: rng.standard_normal(p.shape) for name, p in params.items()}
    h = 1e-6
    moved = [
        {name: params[name] + sign * h * direction[name] for name in params}
        for sign in (1, -1)
    ]
    numeric = (
        literal_loss(moved[0], tokens, targets, positional)
        - literal_loss(moved[1], tokens, targets, positional)
    ) / (2 * h)
    analytic = sum(float(np.sum(grads[name] * direction[name])) for name in params)
    assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-8)


def test_a_token_absent_from_the_batch_gets_no_embedding_gradient() -> None:
    params = init_params(np.random.default_rng(0), vocab=6, d_model=4, d_k=2)
    tokens = np.array([[0, 2, 2, 5]])
    _, grads = loss_and_gradients(params, tokens, tokens[:, ::-1])
    assert np.all(grads["embedding"][[1, 3, 4]] == 0.0)
    assert np.all(np.abs(grads["embedding"][[0, 2, 5]]).sum(axis=1) > 0.0)


def test_zero_w_out_gives_the_uniform_loss_and_gradients_by_hand() -> None:
    # w_out = 0 gives uniform probabilities: loss log(vocab), as by hand
    params = init_params(np.random.default_rng(1), vocab=4, d_model=2, d_k=2)
    params["w_out"] = np.zeros((2, 4))
    tokens = np.array([[1, 3, 0]])
    loss, grads = loss_and_gradients(params, tokens, tokens[:, ::-1])
    assert loss == pytest.approx(math.log(4))
    # every position: dlogits = (1/4 - Y) / 3, so dW_out = Z^T (1/4 - Y) / 3
    z = forward(params, tokens).output[0]
    y = np.eye(4)[[0, 3, 1]]  # the one-hot targets, tokens reversed
    np.testing.assert_allclose(grads["w_out"], z.T @ (0.25 - y) / 3)
    # G = dlogits W_out^T = 0: no gradient reaches the attention or E
    for name in ("embedding", "w_q", "w_k", "w_v"):
        assert np.all(grads[name] == 0.0), name


# -- the forward pass ---------------------------------------------------------


def test_forward_computes_each_step_of_the_model() -> None:
    rng = np.random.default_rng(2)
    params = init_params(rng, vocab=3, d_model=4, d_k=2)
    tokens = np.array([[2, 0, 2]])
    fwd = forward(params, tokens)
    pe = sinusoidal_positional_encoding(3, 4)
    x = params["embedding"][[2, 0, 2]] + pe
    np.testing.assert_allclose(fwd.x[0], x)
    np.testing.assert_allclose(fwd.q[0], x @ params["w_q"])
    s = (x @ params["w_q"]) @ (x @ params["w_k"]).T / math.sqrt(2)
    a = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(fwd.weights[0], a)
    np.testing.assert_allclose(fwd.output[0], a @ (x @ params["w_v"]))
    np.testing.assert_allclose(fwd.logits[0], fwd.output[0] @ params["w_out"])
    assert forward(params, tokens, positional=False).x[0].tolist() == (
        params["embedding"][[2, 0, 2]].tolist()
    )


@PROPERTY
@given(st.integers(0, 2**32 - 1), st.permutations(range(5)))
def test_without_positions_the_model_is_permutation_equivariant(seed, order) -> None:
    rng = np.random.default_rng(seed)
    params = init_params(rng, vocab=4, d_model=4, d_k=3)
    tokens = rng.integers(0, 4, size=(1, 5))
    order = list(order)
    fwd = forward(params, tokens, positional=False)
    permuted = forward(params, tokens[:, order], positional=False)
    np.testing.assert_allclose(permuted.logits[0], fwd.logits[0][order], atol=1e-12)
    np.testing.assert_allclose(
        permuted.weights[0], fwd.weights[0][np.ix_(order, order)], atol=1e-12
    )


def test_without_positions_equal_tokens_get_equal_weights() -> None:
    params = init_params(np.random.default_rng(4), vocab=8, d_model=16, d_k=16)
    w = forward(params, [[3, 1, 4, 1, 5, 7]], positional=False).weights[0]
    np.testing.assert_allclose(w[1], w[3])  # two queries of token 1
    np.testing.assert_allclose(w[:, 1], w[:, 3])  # two keys of token 1
    w_pos = forward(params, [[3, 1, 4, 1, 5, 7]]).weights[0]
    assert not np.allclose(w_pos[1], w_pos[3])


# -- cross-entropy ------------------------------------------------------------


def test_cross_entropy_by_hand() -> None:
    assert cross_entropy(np.zeros((2, 3, 5)), np.zeros((2, 3), dtype=int)) == (
        pytest.approx(math.log(5))
    )
    # logits (2, 0): -log(e^2 / (e^2 + 1)) = log(1 + e^-2)
    assert cross_entropy([[2.0, 0.0]], [0]) == pytest.approx(math.log1p(math.exp(-2)))
    assert cross_entropy([[1000.0, 0.0]], [0]) == 0.0  # no overflow
    assert cross_entropy([[1000.0, 0.0]], [1]) == pytest.approx(1000.0)


@PROPERTY
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 6))
def test_cross_entropy_equals_the_formula(seed, rows, vocab) -> None:
    rng = np.random.default_rng(seed)
    z = 3.0 * rng.standard_normal((rows, vocab))
    y = rng.integers(0, vocab, size=rows)
    expected = np.mean(
        [
            -math.log(math.exp(z[r, y[r]]) / sum(map(math.exp, z[r])))
            for r in range(rows)
        ]
    )
    assert cross_entropy(z, y) == pytest.approx(expected)


# -- Adam ---------------------------------------------------------------------


def test_adam_two_steps_by_hand() -> None:
    params = {"w": np.array([1.0, 0.5])}
    adam = Adam(params, lr=0.1)
    adam.step(params, {"w": np.array([3.0, 0.0])})
    # m_1 = 0.3, v_1 = 0.009: m_hat = 3, v_hat = 9; zero gradient: no move
    assert params["w"][0] == pytest.approx(1.0 - 0.1 * 3.0 / (3.0 + 1e-8))
    assert params["w"][1] == 0.5
    adam.step(params, {"w": np.array([-0.5, 0.0])})
    # m_2 = 0.27 - 0.05 = 0.22, v_2 = 0.008991 + 0.00025 = 0.009241
    step_2 = 0.1 * (0.22 / 0.19) / (math.sqrt(0.009241 / 0.001999) + 1e-8)
    assert params["w"][0] == pytest.approx(1.0 - 0.1 * 3.0 / (3.0 + 1e-8) - step_2)
    assert adam.t == 2
    assert adam.m["w"][0] == pytest.approx(0.22)
    assert adam.v["w"][0] == pytest.approx(0.009241)


def test_adam_defaults_are_those_of_the_paper() -> None:
    adam = Adam({"w": np.zeros(1)})
    assert (adam.lr, adam.beta1, adam.beta2, adam.eps) == (0.001, 0.9, 0.999, 1e-8)
    assert "t=0" in repr(adam)


@PROPERTY
@given(
    st.lists(st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3), min_size=1, max_size=5).map(
        np.array
    )
)
def test_adam_first_step_moves_by_lr_against_the_sign(g) -> None:
    # step 1: m_hat = g and v_hat = g^2, so the step is lr * g / (|g| + eps)
    params = {"w": np.zeros_like(g)}
    Adam(params, lr=0.01).step(params, {"w": g})
    np.testing.assert_allclose(params["w"], -0.01 * g / (np.abs(g) + 1e-8))
    np.testing.assert_allclose(params["w"], -0.01 * np.sign(g), rtol=2e-5)


def test_adam_updates_in_place_and_checks_its_arguments() -> None:
    w = np.ones(2)
    params = {"w": w}
    adam = Adam(params)
    adam.step(params, {"w": [1.0, -1.0]})
    assert params["w"] is w and w[0] < 1.0 < w[1]
    with pytest.raises(ValueError, match="keys"):
        adam.step(params, {"v": np.ones(2)})
    with pytest.raises(ValueError, match=r"shape \(3,\), expected \(2,\)"):
        adam.step(params, {"w": np.ones(3)})
    with pytest.raises(ValueError, match="NaN"):
        adam.step(params, {"w": [np.nan, 0.0]})
    with pytest.raises(ValueError, match="lr"):
        Adam(params, lr=0.0)
    with pytest.raises(ValueError, match="beta2"):
        Adam(params, beta2=1.0)
    with pytest.raises(TypeError, match="float ndarray"):
        Adam({"w": [1.0]})
    with pytest.raises(ValueError, match="non-empty"):
        Adam({})


# -- the task and the accuracy ------------------------------------------------


@PROPERTY
@given(
    st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 7), st.integers(1, 9)
)
def test_reversal_task_reverses_every_sequence(seed, batch, n, vocab) -> None:
    tokens, targets = reversal_task(np.random.default_rng(seed), batch, n, vocab)
    assert tokens.shape == targets.shape == (batch, n)
    assert tokens.dtype.kind == "i" and 0 <= tokens.min() and tokens.max() < vocab
    for b in range(batch):
        assert targets[b].tolist() == tokens[b].tolist()[::-1]


def test_reversal_task_draws_every_token_about_equally_often() -> None:
    tokens, _ = reversal_task(np.random.default_rng(0), 1000, 6, 8)
    counts = np.bincount(tokens.ravel(), minlength=8)
    assert counts.sum() == 6000
    assert np.all(np.abs(counts - 750) < 100)  # 750 expected, sd about 26


def test_alignment_accuracy_by_hand() -> None:
    w = np.array(
        [
            [[0.1, 0.2, 0.7], [0.3, 0.4, 0.3], [0.5, 0.25, 0.25]],
            [[0.6, 0.2, 0.2], [0.1, 0.8, 0.1], [0.5, 0.5, 0.0]],
        ]
    )
    # correct keys 2, 1, 0: right, right, right / wrong, right, tie
    assert alignment_accuracy(w, [2, 1, 0]) == pytest.approx(4 / 6)
    assert alignment_accuracy(w, [[2, 1, 0], [0, 1, 0]]) == pytest.approx(5 / 6)
    # a difference of 1e-12 is a tie under the default tolerance only
    close = np.array([[0.5 + 1e-12, 0.5 - 1e-12]])
    assert alignment_accuracy(close, [0]) == 0.0
    assert alignment_accuracy(close, [0], tol=0.0) == 1.0
    assert alignment_accuracy([[1.0]], [0]) == 1.0  # a single key


# -- training -----------------------------------------------------------------


@pytest.fixture(scope="module")
def test_set():
    return reversal_task(np.random.default_rng(12345), 1000, 6, 8)


@pytest.mark.parametrize("seed", [0, 1])
def test_with_positions_training_learns_the_reversal(seed, test_set) -> None:
    tokens, targets = test_set
    result = train(positional=True, seed=seed)
    assert result.losses.shape == (200,)
    assert result.losses[0] > 2.0  # about log 8 = 2.08 or more at the start
    assert result.losses[-1] < 0.05
    fwd = result.forward(tokens)
    assert cross_entropy(fwd.logits, targets) < 0.05
    assert np.mean(fwd.logits.argmax(axis=-1) == targets) > 0.99
    assert alignment_accuracy(fwd.weights, REVERSED) >= 0.95
    # the weights before training do not show the alignment
    assert alignment_accuracy(result.weights(tokens, trained=False), REVERSED) < 0.5


def test_without_positions_the_same_training_fails(test_set) -> None:
    tokens, targets = test_set
    result = train(positional=False, seed=0)
    fwd = result.forward(tokens)
    # no model without positions does better in expectation than 1/(n-1) = 0.2
    # and than a loss of 1.29 (the entropy of the target given the token and
    # the multiset of tokens, counted over all 8**6 sequences)
    assert alignment_accuracy(fwd.weights, REVERSED) < 0.25
    assert cross_entropy(fwd.logits, targets) > 1.2
    assert result.losses[-20:].mean() > 1.2


def test_train_keeps_the_initial_parameters_and_its_settings() -> None:
    result = train(steps=2, seed=7, vocab=5, d_model=4, d_k=2, n=3, batch=2)
    assert isinstance(result, TrainingResult)
    expected = init_params(np.random.default_rng(7), vocab=5, d_model=4, d_k=2)
    for name in PARAMETER_NAMES:
        np.testing.assert_array_equal(result.initial_params[name], expected[name])
        assert not np.array_equal(result.params[name], expected[name])
    assert (result.n, result.vocab, result.positional) == (3, 5, True)
    assert result.weights([[0, 1, 2]]).shape == (1, 3, 3)
    # the positional and the position-free runs start from the same point
    other = train(steps=1, seed=7, vocab=5, d_model=4, d_k=2, positional=False)
    assert np.array_equal(other.initial_params["w_q"], expected["w_q"])


# -- errors -------------------------------------------------------------------


def test_errors_name_the_argument() -> None:
    rng = np.random.default_rng(0)
    params = init_params(rng, vocab=4, d_model=4, d_k=2)
    tokens = np.array([[0, 1, 2]])
    with pytest.raises(ValueError, match="keys"):
        forward({"w_q": params["w_q"]}, tokens)
    bad = {**params, "w_k": np.ones((3, 2))}
    with pytest.raises(ValueError, match=r"params\['w_k'\]` has d_model=3"):
        forward(bad, tokens)
    bad = {**params, "w_out": np.ones((2, 5))}
    with pytest.raises(ValueError, match=r"vocab=4 .* vocab=5"):
        forward(bad, tokens)
    with pytest.raises(ValueError, match=r"params\['w_v'\]` must have shape"):
        forward({**params, "w_v": np.ones(4)}, tokens)
    with pytest.raises(ValueError, match="NaN"):
        forward({**params, "w_q": np.full((4, 2), np.nan)}, tokens)
    with pytest.raises(ValueError, match=r"token ids in \[0, 4\)"):
        forward(params, [[0, 4]])
    with pytest.raises(ValueError, match=r"shape \(batch, n\)"):
        forward(params, [0, 1])
    with pytest.raises(TypeError, match="integers"):
        forward(params, [[0.0, 1.0]])
    with pytest.raises(TypeError, match="masked array"):
        forward(params, np.ma.masked_array([[0, 1]], mask=[[False, True]]))
    with pytest.raises(TypeError, match="positional"):
        forward(params, tokens, positional=1)
    odd = init_params(rng, vocab=4, d_model=3, d_k=2)
    with pytest.raises(ValueError, match="even d_model"):
        forward(odd, tokens)
    assert forward(odd, tokens, positional=False).weights.shape == (1, 3, 3)
    with pytest.raises(ValueError, match="overflows float64 with these `params`"):
        forward(
            {**params, "w_q": params["w_q"] * 1e200, "w_k": params["w_k"] * 1e200},
            tokens,
        )
    huge = {**params, "embedding": np.full((4, 4), 1e200)}
    with pytest.raises(ValueError, match="overflows float64 with these `params`"):
        forward({**huge, "w_out": np.full((2, 4), 1e200)}, tokens)
    with pytest.raises(ValueError, match="shape of `tokens`"):
        loss_and_gradients(params, tokens, [[0, 1]])
    with pytest.raises(ValueError, match=r"ids in \[0, 4\)"):
        loss_and_gradients(params, tokens, [[0, 1, 9]])
    with pytest.raises(TypeError, match="Generator"):
        reversal_task(np.random.RandomState(0), 1, 2, 3)
    with pytest.raises(ValueError, match="`n` must be a positive integer"):
        reversal_task(rng, 1, 0, 3)
    with pytest.raises(TypeError, match="Generator"):
        init_params(0)
    with pytest.raises(ValueError, match="lr"):
        train(lr=-1.0)
    with pytest.raises(ValueError, match="steps"):
        train(steps=0)


def test_cross_entropy_and_accuracy_errors() -> None:
    with pytest.raises(ValueError, match="without its last axis"):
        cross_entropy(np.zeros((2, 3)), [0])
    with pytest.raises(ValueError, match=r"ids in \[0, 3\)"):
        cross_entropy(np.zeros((1, 3)), [3])
    with pytest.raises(TypeError, match="integers"):
        cross_entropy(np.zeros((1, 3)), [0.0])
    with pytest.raises(ValueError, match="NaN"):
        cross_entropy([[np.inf, 0.0]], [0])
    with pytest.raises(ValueError, match=r"shape \(\.\.\., n_q, n_k\)"):
        alignment_accuracy([0.5, 0.5], [0])
    with pytest.raises(ValueError, match="does not broadcast"):
        alignment_accuracy(np.ones((2, 3, 3)) / 3, [0, 1])
    with pytest.raises(ValueError, match=r"key indices in \[0, 3\)"):
        alignment_accuracy(np.ones((3, 3)) / 3, [0, 1, 3])
    with pytest.raises(TypeError, match="integers"):
        alignment_accuracy(np.ones((3, 3)) / 3, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="tol"):
        alignment_accuracy(np.ones((3, 3)) / 3, [0, 1, 2], tol=-1.0)
    with pytest.raises(ValueError, match="empty"):
        alignment_accuracy(np.ones((0, 3)), np.zeros(0, dtype=int))
