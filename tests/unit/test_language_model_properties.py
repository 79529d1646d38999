"""The promises of the language-model modules at the edges, as properties.

The round-3 properties of tests/unit/test_properties.py, for the modules that
came after it (tokenizer, language_model, sampling): no floating-point
exception escapes under ``np.errstate(all="raise")`` for finite input with a
finite result; native float64 out of big-endian input; inputs unchanged;
nothing of a model changed by a call that raises.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs.language_model import (
    LanguageModel,
    ModelConfig,
    bigram_loss,
    forward,
    init_params,
    loss_and_gradients,
    train_language_model,
)
from attention_docs.sampling import generate, next_token_probs, sample_next
from attention_docs.tokenizer import CharTokenizer

PROPERTY = settings(deadline=None, max_examples=25, database=None)
CONFIG = ModelConfig(vocab_size=6, d_model=4, n_heads=1, n_layers=1, d_ff=4, context=6)


def model(scale: float = 1.0) -> LanguageModel:
    rng = np.random.default_rng(0)
    params = {k: v * scale for k, v in init_params(CONFIG, rng).items()}
    return LanguageModel(CharTokenizer.from_text("abcd"), CONFIG, params)


@PROPERTY
@given(st.floats(1e-3, 1e3), st.integers(0, 2**32 - 1))
def test_no_floating_point_exception_escapes(scale, seed) -> None:
    m = model(scale)
    ids = np.random.default_rng(seed).integers(0, 6, (2, 7))
    with np.errstate(all="raise"):
        forward(m.params, CONFIG, ids[0, :6], return_weights=True)
        try:
            loss_and_gradients(m.params, CONFIG, ids)
        except ValueError as error:  # parameters too large for the loss
            assert "`params`" in str(error)
        generate(m, ["ab", "c"], 3, greedy=True)
        generate(m, "ab", 3, rng=np.random.default_rng(seed), temperature=0.01)
        bigram_loss(ids[0], ids[1], 6)


@PROPERTY
@given(
    st.lists(st.floats(-1e308, 1e308), min_size=1, max_size=8),
    st.floats(1e-300, 1e300),
    st.integers(1, 9),
    st.floats(1e-9, 1.0),
)
def test_the_samplers_are_silent_and_give_a_distribution(u, t, k, p) -> None:
    with np.errstate(all="raise"):
        probs = next_token_probs(u, temperature=t, top_k=k, top_p=p)
        chosen = sample_next(u, np.random.default_rng(0), temperature=t, top_k=k)
    assert np.all(probs >= 0) and abs(probs.sum() - 1.0) < 1e-12
    assert probs[int(np.argmax(u))] > 0  # the most likely token is always kept
    assert 0 <= int(chosen) < len(u)


def test_training_is_silent_and_names_lr_when_it_diverges() -> None:
    ids = np.tile([1, 2, 3, 4], 10)
    with np.errstate(all="raise"):
        train_language_model(ids, CONFIG, steps=3, batch_size=2, val_ids=ids[:9])
        with pytest.raises(ValueError, match="`lr`"):
            train_language_model(ids, CONFIG, steps=30, batch_size=2, lr=1e30)


def test_big_endian_input_gives_native_float64() -> None:
    m = model()
    big = {k: v.astype(">f8") for k, v in m.params.items()}
    logits = forward(big, CONFIG, [1, 2, 3])
    _, grads = loss_and_gradients(big, CONFIG, [[1, 2, 3, 4]])
    probs = next_token_probs(np.array([0.0, 1.0], dtype=">f8"))
    for array in (logits, probs, *grads.values()):
        assert array.dtype == np.float64 and array.dtype.isnative


def test_inputs_and_models_are_unchanged_by_calls_that_raise() -> None:
    m = model()
    before = {k: v.copy() for k, v in m.params.items()}
    u = np.array([1.0, 2.0])
    for call in (
        lambda: generate(m, "abcdef", 3, greedy=True),  # longer than the context
        lambda: generate(m, "ab", 2, temperature=-1.0, rng=np.random.default_rng(0)),
        lambda: forward(m.params, CONFIG, [0, 6]),
        lambda: next_token_probs(u, top_p=2.0),
    ):
        with pytest.raises(ValueError):
            call()
    assert all(np.array_equal(before[k], m.params[k]) for k in before)
    assert u.tolist() == [1.0, 2.0]
    assert generate(m, "ab", 2, greedy=True) == generate(m, "ab", 2, greedy=True)
