"""The trained comparison of linear-attention.md (section "trained-recall").

The page trains one head with softmax attention and one with causal linear
attention on associative recall, with gradients written by hand
(``docs_src/linear_attention/trained_recall.pycon``). The page's doctest
checks what it prints; here the page's own functions are run on small
batches and checked against what does not come from them: the batch against
its definition, the forward pass against the package's attention functions,
every gradient against central finite differences, and a short run against
a falling loss.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest

from attention_docs import linear_attention, scaled_dot_product_attention

PAGE = Path(__file__).resolve().parents[2] / "docs_src/linear_attention"
KINDS = ("softmax", "linear")


@pytest.fixture(scope="module")
def page() -> dict:
    """The page's namespace, every example before the training runs."""
    text = (PAGE / "trained_recall.pycon").read_text(encoding="utf-8")
    namespace: dict = {}
    for example in doctest.DocTestParser().get_examples(text):
        if example.source.startswith("trained = "):
            return namespace
        exec(compile(example.source, "trained_recall.pycon", "single"), namespace)
    pytest.fail("the page no longer runs `trained = ...`")


def _params(page: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    d_model, d_k = page["d_model"], page["d_k"]
    return {
        "embedding": rng.standard_normal((page["vocab"], d_model)),
        "w_q": rng.standard_normal((d_model, d_k)),
        "w_k": rng.standard_normal((d_model, d_k)),
        "w_v": rng.standard_normal((d_model, d_k)),
        "w_out": rng.standard_normal((d_k, page["n_values"])),
    }


def test_the_target_is_the_value_paired_with_the_query(page: dict) -> None:
    n_keys = page["n_keys"]
    tokens, targets = page["recall_batch"](np.random.default_rng(3), 50, 6)
    assert tokens.shape == (50, 7, 2)
    for row, target in zip(tokens, targets, strict=True):
        keys, values = row[:-1, 0], row[:-1, 1] - n_keys
        assert len(set(keys.tolist())) == 6  # distinct keys
        assert row[-1, 1] == page["vocab"] - 1  # the query's mark
        (index,) = np.flatnonzero(keys == row[-1, 0])
        assert values[index] == target


@pytest.mark.parametrize("kind", KINDS)
def test_the_forward_pass_is_the_packages_attention(page: dict, kind: str) -> None:
    params = _params(page, 0)
    tokens, _ = page["recall_batch"](np.random.default_rng(4), 8, 5)
    x, _, k, v, _, w, o, logits = page["forward"](params, tokens, kind)
    q_all = x @ params["w_q"]
    if kind == "softmax":
        expected = scaled_dot_product_attention(q_all, k, v, mask=np.tri(6, dtype=bool))
    else:
        expected = linear_attention(q_all, k, v, causal=True)
    np.testing.assert_allclose(o, expected[:, -1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(logits, o @ params["w_out"])


@pytest.mark.parametrize("kind", KINDS)
def test_the_gradients_are_the_finite_differences(page: dict, kind: str) -> None:
    params = _params(page, 1)
    for name in params:  # small weights keep the softmax away from saturation
        params[name] *= 0.5
    tokens, targets = page["recall_batch"](np.random.default_rng(5), 6, 4)
    _, grads = page["loss_and_grads"](params, tokens, targets, kind)
    rng = np.random.default_rng(6)
    h = 1e-6
    for name, value in params.items():
        assert grads[name].shape == value.shape, name
        for index in {tuple(rng.integers(0, n) for n in value.shape) for _ in range(8)}:
            if name == "embedding" and not np.any(tokens == index[0]):
                assert grads[name][index] == 0.0
                continue
            saved = value[index]
            value[index] = saved + h
            up, _ = page["loss_and_grads"](params, tokens, targets, kind)
            value[index] = saved - h
            down, _ = page["loss_and_grads"](params, tokens, targets, kind)
            value[index] = saved
            numeric = (up - down) / (2 * h)
            assert grads[name][index] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (
                name,
                index,
            )


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_run_lowers_the_loss(page: dict, kind: str) -> None:
    _, losses = page["train"](kind, steps=60, batch=32)
    assert losses.shape == (60,)
    assert np.all(np.isfinite(losses))
    assert losses[-20:].mean() < losses[:20].mean() - 0.1
