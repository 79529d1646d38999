"""Tests of attention_docs.sampling: the samplers and the generation loop.

The samplers are checked against their definitions written out here (the
probabilities raised to 1/T, the k largest, the smallest set reaching p) and
by counting draws; the loop against the whole sequence run through the model
again at every step, and batches against prompts generated one by one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs.kvcache import KVCache
from attention_docs.language_model import (
    LanguageModel,
    ModelConfig,
    decoder_forward,
    forward,
    init_params,
)
from attention_docs.masks import causal_mask
from attention_docs.sampling import generate, next_token_probs, sample_next
from attention_docs.tokenizer import CharTokenizer

PROPERTY = settings(deadline=None, max_examples=50, database=None)
LOGITS = st.lists(st.floats(-20, 20), min_size=1, max_size=12).map(np.array)


def small_model(qk_norm: bool = False) -> LanguageModel:
    tok = CharTokenizer.from_text("abcdefghij")
    config = ModelConfig(
        vocab_size=len(tok),
        d_model=8,
        n_heads=2,
        n_layers=2,
        d_ff=16,
        context=12,
        qk_norm=qk_norm,
    )
    rng = np.random.default_rng(0)
    params = {
        k: v + rng.normal(0, 0.5, v.shape) for k, v in init_params(config, rng).items()
    }
    return LanguageModel(tok, config, params)


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "qk_norm"])
def model(request) -> LanguageModel:
    return small_model(qk_norm=request.param)


def test_with_qk_norm_each_cached_step_gives_the_uncached_logits() -> None:
    """QK norm acts on each row before RoPE: the cache keeps normalised keys."""
    model = small_model(qk_norm=True)
    config, params = model.config, model.params
    ids = np.array([[3, 1, 4, 1, 5, 9, 2, 6, 5, 3]])  # (1, 10)
    full = forward(params, config, ids)  # (1, 10, V)
    caches = [
        KVCache(config.d_k, batch_shape=(1, config.n_heads))
        for _ in range(config.n_layers)
    ]
    prompt = 4
    positions = np.arange(prompt, dtype=np.float64)
    logits, _ = decoder_forward(
        params, config, ids[:, :prompt], positions, causal_mask(prompt), caches
    )
    rows = [*logits[0]]
    for t in range(prompt, ids.shape[1]):  # one token at a time
        step, _ = decoder_forward(
            params,
            config,
            ids[:, t : t + 1],
            np.array([float(t)]),
            causal_mask(1, t + 1),
            caches,
        )
        rows.append(step[0, 0])
    assert np.allclose(np.array(rows), full[0], atol=1e-12)
    plain = {k: v for k, v in params.items() if "_norm." not in k}
    other = forward(plain, ModelConfig(**{**config.__dict__, "qk_norm": False}), ids)
    assert not np.allclose(other, full, atol=1e-3)  # the norm is not idle


@PROPERTY
@given(LOGITS, st.floats(0.05, 20))
def test_temperature_raises_the_probabilities_to_1_over_t(u, t) -> None:
    p = [math.exp(x - max(u)) for x in u]
    powered = [x ** (1 / t) for x in p]
    expected = [x / sum(powered) for x in powered]
    assert np.allclose(next_token_probs(u, temperature=t), expected, atol=1e-12)


@PROPERTY
@given(LOGITS, st.integers(1, 15))
def test_top_k_keeps_the_k_most_likely(u, k) -> None:
    probs = next_token_probs(u, top_k=k)
    kept = np.flatnonzero(probs)
    assert len(kept) == min(k, len(u)) or np.count_nonzero(next_token_probs(u)) < k
    order = sorted(range(len(u)), key=lambda i: (-u[i], i))[:k]
    assert set(kept) <= set(order)
    assert math.isclose(probs.sum(), 1.0, rel_tol=1e-12)


@PROPERTY
@given(LOGITS, st.floats(0.01, 1.0))
def test_top_p_keeps_the_smallest_set_that_reaches_p(u, p) -> None:
    full = next_token_probs(u)
    order = sorted(range(len(u)), key=lambda i: (-u[i], i))
    mass, kept = 0.0, []
    for i in order:  # add tokens until their mass reaches p
        if mass >= p:
            break
        kept.append(i)
        mass += full[i]
    probs = next_token_probs(u, top_p=p)
    expected = np.zeros(len(u))
    expected[kept] = full[kept] / full[kept].sum()
    assert np.allclose(probs, expected, atol=1e-12)


def test_draws_follow_the_probabilities() -> None:
    u = np.log([0.5, 0.3, 0.15, 0.05])
    rng = np.random.default_rng(0)
    draws = sample_next(np.tile(u, (20000, 1)), rng)
    freq = np.bincount(draws, minlength=4) / draws.size
    assert np.allclose(freq, [0.5, 0.3, 0.15, 0.05], atol=0.01)
    truncated = sample_next(np.tile(u, (5000, 1)), rng, top_k=2)
    assert set(np.unique(truncated)) == {0, 1}


def test_greedy_takes_the_argmax_and_the_smaller_id_on_ties() -> None:
    assert sample_next([[1.0, 3.0, 3.0], [0.0, -1.0, -2.0]], greedy=True).tolist() == [
        1,
        0,
    ]


def test_cached_and_uncached_loops_give_the_same_tokens(model) -> None:
    for options in ({"greedy": True}, {"temperature": 0.8, "top_p": 0.9}, {"top_k": 3}):
        cached = generate(model, "abc", 8, rng=np.random.default_rng(1), **options)
        again = generate(
            model, "abc", 8, rng=np.random.default_rng(1), use_cache=False, **options
        )
        assert len(cached) == 8 and cached == again


def test_the_window_can_fill_the_context(model) -> None:
    """6 + 7 tokens: the model reads 12 = context (the last token is not read)."""
    cached = generate(model, "abcdef", 7, greedy=True)
    assert cached == generate(model, "abcdef", 7, greedy=True, use_cache=False)
    window = "abcdef" + cached[:-1]  # the 12 tokens the model reads
    assert len(window) == model.config.context
    u = model.logits(window)[-1]
    assert cached[-1] == model.tokenizer.decode([int(u[1:].argmax()) + 1])


def test_a_batch_of_prompts_of_different_lengths_is_padded_correctly(model) -> None:
    prompts = ["a", "bcdef", "ghi"]
    batch = generate(model, prompts, 6, greedy=True)
    assert batch == [generate(model, p, 6, greedy=True) for p in prompts]
    uncached = generate(model, prompts, 6, greedy=True, use_cache=False)
    assert uncached == batch
    rng_batch = generate(model, prompts, 5, rng=np.random.default_rng(3))
    assert rng_batch == generate(
        model, prompts, 5, rng=np.random.default_rng(3), use_cache=False
    )


def test_generation_stops_after_a_stop_character(model) -> None:
    free = generate(model, "abc", 9, greedy=True)
    stop = free[2]
    stopped = generate(model, "abc", 9, greedy=True, stop=stop)
    assert stopped == free[: free.index(stop) + 1]


def test_padding_is_never_generated(model) -> None:
    text = generate(model, "a", 11, rng=np.random.default_rng(0), temperature=50.0)
    assert len(text) == 11  # PAD would decode to nothing


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"temperature": 0.0}, ValueError, "`temperature` must be a positive"),
        ({"temperature": math.inf}, ValueError, "`temperature`"),
        ({"top_k": 0}, ValueError, "`top_k` must be a positive integer"),
        ({"top_p": 0.0}, ValueError, r"`top_p` must be a number in \(0, 1\]"),
        ({"top_p": 1.5}, ValueError, "`top_p`"),
    ],
)
def test_bad_options_name_themselves(kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        next_token_probs([1.0, 2.0], **kwargs)


def test_bad_generation_arguments(model) -> None:
    with pytest.raises(ValueError, match=r"read 13 tokens .* context of 12"):
        generate(model, "abcdef", 8, greedy=True)
    with pytest.raises(ValueError, match="empty string"):
        generate(model, ["ab", ""], 2, greedy=True)
    with pytest.raises(TypeError, match=r"`rng` must be a numpy\.random\.Generator"):
        generate(model, "ab", 2)
    with pytest.raises(TypeError, match="`model` must be a LanguageModel"):
        generate("model", "ab", 2, greedy=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`logits` has V=0"):
        sample_next(np.zeros((2, 0)), greedy=True)
    with pytest.raises(ValueError, match="`logits`"):
        next_token_probs([1.0, np.nan])


def test_the_logits_are_not_changed() -> None:
    u = np.array([[1.0, 2.0, 3.0]])
    next_token_probs(u, temperature=0.5, top_k=2, top_p=0.5)
    sample_next(u, np.random.default_rng(0))
    assert u.tolist() == [[1.0, 2.0, 3.0]]


def test_silent_under_errstate_raise() -> None:
    with np.errstate(all="raise"):
        probs = next_token_probs([0.0, -1e300, 1e300], temperature=1e-300)
    assert probs.tolist() == [0.0, 0.0, 1.0]
