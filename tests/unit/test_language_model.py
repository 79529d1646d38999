"""Tests of attention_docs.language_model: the decoder-only model and its training.

The reference is written out here, independently of the code under test:
``literal_logits`` computes the model token by token with explicit sums,
rotation matrices and exponentials (no package function), and its loss,
differentiated by central finite differences, checks every hand-written
gradient. The shipped models are loaded and checked against their logs.
"""

from __future__ import annotations

import doctest
import inspect
import json
import math
import tracemalloc
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_book.language_models
from attention_book.language_models import (
    LONG_BATCH,
    LONG_FACTOR,
    LONG_STEPS,
    SMALL,
    fine_tune_edition,
    logit_growth_edition,
    long_context_rope,
    train_edition,
)
from attention_docs import causal_mask, generate, rope_frequencies
from attention_docs.language_model import (
    EDITIONS,
    LanguageModel,
    ModelConfig,
    bigram_loss,
    evaluate,
    forward,
    held_out_windows,
    init_params,
    load_corpus,
    load_pretrained,
    loss_and_gradients,
    mean_head_outputs,
    parameter_count,
    parameter_shapes,
    split_corpus,
    train_language_model,
    window_losses,
)
from attention_docs.tokenizer import CharTokenizer

PROPERTY = settings(deadline=None, max_examples=25, database=None)
TINY = ModelConfig(vocab_size=7, d_model=8, n_heads=2, n_layers=2, d_ff=12, context=6)
TINY_QK = ModelConfig(
    vocab_size=7, d_model=8, n_heads=2, n_layers=2, d_ff=12, context=6, qk_norm=True
)


def perturbed_params(config, seed=0, spread=0.3):
    """Parameters far from their first values, so that every path matters."""
    rng = np.random.default_rng(seed)
    params = init_params(config, rng)
    return {k: v + rng.normal(0.0, spread, v.shape) for k, v in params.items()}


def literal_layer_norm(row, gamma, beta):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return np.array(
        [
            (x - mean) / math.sqrt(var + 1e-5) * g + b
            for x, g, b in zip(row, gamma, beta, strict=True)
        ]
    )


def rotation(m, d, theta=None):
    """R_m for rows: block diagonal, pair (2i, 2i+1) turned by m 10000^(-2i/d)
    (or by m theta[i])."""
    r = np.zeros((d, d))
    for i in range(d // 2):
        angle = m * (10000.0 ** (-2 * i / d) if theta is None else theta[i])
        c, s = math.cos(angle), math.sin(angle)
        r[2 * i, 2 * i], r[2 * i, 2 * i + 1] = c, s  # x R: (x0 c - x1 s, x0 s + x1 c)
        r[2 * i + 1, 2 * i], r[2 * i + 1, 2 * i + 1] = -s, c
    return r


def literal_rms_norm(row, gain):
    """g_p x_p / sqrt(mean(x^2) + 1e-6), one component at a time."""
    ms = sum(x * x for x in row) / len(row)
    return np.array(
        [g * x / math.sqrt(ms + 1e-6) for x, g in zip(row, gain, strict=True)]
    )


def literal_rotated(z_row, p, which, cols, position, config, theta):
    """A head's query or key row (``which`` "q" or "k"): z W[:, cols], with QK
    norm its RMS norm times the layer's gain, then rotated by R_position."""
    row = z_row @ p[f"w_{which}"][:, cols]
    if config.qk_norm:
        row = literal_rms_norm(row, p[f"{which}_norm.gamma"])
    return row @ rotation(position, config.d_k, theta)


def literal_logits(
    params, config, ids, ablation=None, theta=None, scale=None, max_scores=None
):
    """The model's logits for one sequence, position by position.

    ``ablation``: {(layer, head): o}, that head's output set to ``o``;
    ``theta``: RoPE's angles per position; ``scale``: the scores' factor;
    ``max_scores``: a list that receives each layer's largest |S_ij|. With
    ``config.qk_norm``, every head's q and k rows are RMS-normalised with
    the layer's gains before they are rotated."""
    ablation = ablation or {}
    n, h, d_k = len(ids), config.n_heads, config.d_k
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    x = [params["embedding"][t].copy() for t in ids]
    for layer in range(config.n_layers):
        p = {
            k.split(".", 2)[2]: v
            for k, v in params.items()
            if k.startswith(f"layers.{layer}.")
        }
        z = [literal_layer_norm(row, p["norm_1.gamma"], p["norm_1.beta"]) for row in x]
        new = []
        largest = 0.0  # max |S_ij| of the layer
        for i in range(n):
            heads = []
            for head in range(h):
                if (layer, head) in ablation:
                    heads.append(np.broadcast_to(ablation[layer, head], (d_k,)))
                    continue
                cols = slice(head * d_k, (head + 1) * d_k)

                q = literal_rotated(z[i], p, "q", cols, i, config, theta)
                scores = [
                    q @ literal_rotated(z[j], p, "k", cols, j, config, theta) * scale
                    for j in range(i + 1)  # keys 0..i: the causal mask
                ]
                largest = max(largest, *(abs(s) for s in scores))
                top = max(scores)
                e = [math.exp(s - top) for s in scores]
                heads.append(
                    sum(
                        e[j] / sum(e) * (z[j] @ p["w_v"][:, cols]) for j in range(i + 1)
                    )
                )
            new.append(x[i] + np.concatenate(heads) @ p["w_o"])
        if max_scores is not None:
            max_scores.append(largest)
        x = []
        for row in new:
            z2 = literal_layer_norm(row, p["norm_2.gamma"], p["norm_2.beta"])
            hidden = np.maximum(z2 @ p["w_1"] + p["b_1"], 0.0)
            x.append(row + hidden @ p["w_2"] + p["b_2"])
    final = [
        literal_layer_norm(row, params["norm.gamma"], params["norm.beta"]) for row in x
    ]
    return np.array([row @ params["embedding"].T for row in final])


def literal_loss(params, config, windows):
    total = 0.0
    for window in windows:
        logits = literal_logits(params, config, window[:-1])
        for u, y in zip(logits, window[1:], strict=True):
            total += math.log(sum(math.exp(v - max(u)) for v in u)) + max(u) - u[y]
    return total / (len(windows) * (len(windows[0]) - 1))


@pytest.mark.parametrize("config", [TINY, TINY_QK], ids=["plain", "qk_norm"])
def test_forward_is_the_model_written_out(config) -> None:
    params = perturbed_params(config)
    ids = [3, 1, 4, 1, 5, 6]
    assert np.allclose(
        forward(params, config, ids), literal_logits(params, config, ids), atol=1e-12
    )


@pytest.mark.parametrize("config", [TINY, TINY_QK], ids=["plain", "qk_norm"])
def test_every_gradient_matches_finite_differences(config) -> None:
    params = perturbed_params(config, seed=1)
    windows = np.array([[3, 1, 4, 1, 5, 2, 6], [2, 7 - 1, 0, 0, 1, 3, 3]])
    loss, grads = loss_and_gradients(params, config, windows)
    assert loss == pytest.approx(literal_loss(params, config, windows), abs=1e-12)
    rng = np.random.default_rng(2)
    eps = 1e-5
    for name, value in params.items():
        for _ in range(3):
            index = tuple(int(rng.integers(0, s)) for s in value.shape)
            plus = {k: v.copy() for k, v in params.items()}
            minus = {k: v.copy() for k, v in params.items()}
            plus[name][index] += eps
            minus[name][index] -= eps
            numeric = (
                literal_loss(plus, config, windows)
                - literal_loss(minus, config, windows)
            ) / (2 * eps)
            assert grads[name][index] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (
                name
            )


def test_the_logits_at_a_position_ignore_later_tokens() -> None:
    params = perturbed_params(TINY)
    a = forward(params, TINY, [3, 1, 4, 1, 5])
    b = forward(params, TINY, [3, 1, 4, 6, 0])
    assert np.array_equal(a[:3], b[:3])
    assert not np.allclose(a[3:], b[3:])


def test_every_layer_s_weights_are_causal_rows_of_a_distribution() -> None:
    _, weights = forward(
        perturbed_params(TINY), TINY, [[3, 1, 4], [1, 5, 2]], return_weights=True
    )
    assert len(weights) == TINY.n_layers
    for w in weights:
        assert w.shape == (2, TINY.n_heads, 3, 3)
        assert np.all(w[..., ~causal_mask(3)] == 0.0)
        assert np.allclose(w.sum(axis=-1), 1.0)


@PROPERTY
@given(
    st.integers(2, 50),
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 20),
)
def test_the_parameter_count_is_the_formula(
    vocab, heads, half_d_k, layers, d_ff
) -> None:
    d = 2 * half_d_k * heads
    config = ModelConfig(
        vocab_size=vocab, d_model=d, n_heads=heads, n_layers=layers, d_ff=d_ff
    )
    shapes = parameter_shapes(config)
    assert sum(math.prod(s) for s in shapes.values()) == parameter_count(config)
    per_layer = 4 * d * d + 2 * d * d_ff + d_ff + d + 2 * 2 * d  # W, FFN, two norms
    assert parameter_count(config) == vocab * d + layers * per_layer + 2 * d


def test_the_output_head_is_the_embedding_transposed() -> None:
    params = perturbed_params(TINY)
    logits = forward(params, TINY, [3])
    bumped = {k: v.copy() for k, v in params.items()}
    bumped["embedding"][5] += 1.0  # changes token 5's logit, not only its input row
    assert not np.isclose(forward(bumped, TINY, [3])[0, 5], logits[0, 5])
    assert "lm_head" not in parameter_shapes(TINY)


def test_the_loss_at_the_first_values_is_about_log_v() -> None:
    config = ModelConfig(
        vocab_size=50, d_model=8, n_heads=2, n_layers=1, d_ff=8, context=8
    )
    params = init_params(config, np.random.default_rng(0))
    windows = np.random.default_rng(1).integers(0, 50, (4, 9))
    loss, _ = loss_and_gradients(params, config, windows)
    assert loss == pytest.approx(math.log(50), abs=0.05)


def test_the_loss_builds_no_vocab_by_vocab_matrix() -> None:
    """Memory O(N V): V = 20000 would need 3.2 GB for a V x V table."""
    vocab, n = 20000, 3
    config = ModelConfig(
        vocab_size=vocab, d_model=4, n_heads=1, n_layers=1, d_ff=4, context=n
    )
    params = init_params(config, np.random.default_rng(0))
    windows = np.array([[1, 2, 3, 19999]])
    tracemalloc.start()
    try:
        loss_and_gradients(params, config, windows)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    param_bytes = sum(v.nbytes for v in params.values())
    logits_bytes = n * vocab * 8
    assert peak < 4 * param_bytes + 8 * logits_bytes, peak


def test_training_makes_the_loss_fall_and_is_deterministic() -> None:
    ids = np.tile([2, 3, 4, 5, 3, 2], 40)
    config = ModelConfig(
        vocab_size=6, d_model=8, n_heads=2, n_layers=1, d_ff=16, context=8
    )
    params, log = train_language_model(
        ids, config, steps=40, batch_size=4, lr=1e-2, val_ids=ids[:30], eval_every=10
    )
    assert log.val_loss[-1] < 0.5 * log.val_loss[0]
    again, _ = train_language_model(
        ids, config, steps=40, batch_size=4, lr=1e-2, val_ids=ids[:30], eval_every=10
    )
    assert all(np.array_equal(params[k], again[k]) for k in params)


def test_a_diverging_run_names_lr() -> None:
    ids = np.tile([2, 3, 4, 5], 20)
    config = ModelConfig(
        vocab_size=6, d_model=8, n_heads=2, n_layers=1, d_ff=16, context=8
    )
    with pytest.raises(ValueError, match="`lr`"):
        with np.errstate(all="raise"):
            train_language_model(ids, config, steps=50, batch_size=2, lr=1e30)


def test_the_training_script_trains_a_small_model(tmp_path) -> None:
    """The pipeline that made the shipped weights, at a reduced size."""
    text = load_corpus("ja")[:20000]
    summary = train_edition("ja", tmp_path, steps=60, config=SMALL, batch=8, text=text)
    assert summary["val_loss"][-1] < summary["val_loss"][0] - 0.5
    model = LanguageModel.load(tmp_path / "lm-ja.npz")
    assert model.config.context == SMALL["context"]
    assert (tmp_path / "corpus-ja.txt").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("scaling", ["linear", "yarn", "rope"])
def test_the_long_context_fine_tune_lowers_the_loss_beyond_l(tmp_path, scaling) -> None:
    """The pipeline that made the fine-tuned weights, at a reduced size."""
    text = load_corpus("ja")[:20000]
    train_edition("ja", tmp_path, steps=60, config=SMALL, batch=8, text=text)
    model = LanguageModel.load(tmp_path / "lm-ja.npz")
    summary = fine_tune_edition(
        "ja", tmp_path, scaling, steps=30, batch=2, model=model, text=text
    )
    before, after = summary["loss_before"], summary["loss_after"]
    assert after[1] < before[1] - 0.02 and after[2] < before[2] - 0.02
    tuned = LanguageModel.load(tmp_path / f"lm-ja-{scaling}.npz")
    length = SMALL["context"]
    assert tuned.config.context == LONG_FACTOR * length
    theta, scale = long_context_rope(model.config, scaling, LONG_FACTOR)
    assert np.array_equal(tuned.theta, theta) and tuned.scale == scale
    if scaling == "rope":  # the control: the trained angles and scale
        assert np.array_equal(theta, rope_frequencies(model.config.d_k))
    else:
        # YaRN by the paper's equation with beta = 4, which some pairs of
        # the book's model exceed (its fastest turns 20.4 times in L)
        ramp = {"beta": 4.0, "ramp": "turns"} if scaling == "yarn" else {}
        assert np.array_equal(
            theta,
            rope_frequencies(
                model.config.d_k,
                scaling=scaling,
                factor=4,
                original_length=length,
                **ramp,
            ),
        )
    assert (scale is None) == (scaling != "yarn")
    assert summary["log_steps"][-1] == 30 and summary["tokens_per_step"] == 2 * 128
    with np.load(tmp_path / f"lm-ja-{scaling}.npz") as data:
        assert data["param:embedding"].dtype == np.float16


#: The fine-tune as the book shows it (ch 23, #fine-tuning): the package's
#: own functions, with the arguments that made the shipped weights.
FINE_TUNE_EXAMPLE = (
    Path(__file__).resolve().parents[2] / "docs_src/long_context/fine_tune.pycon"
)


def shown_fine_tune():
    """The ``fine_tune`` function that fine_tune.pycon defines."""
    source = FINE_TUNE_EXAMPLE.read_text(encoding="utf-8")
    namespace: dict = {}
    for example in doctest.DocTestParser().get_examples(source):
        exec(compile(example.source, str(FINE_TUNE_EXAMPLE), "exec"), namespace)
    return namespace["fine_tune"]


def test_the_fine_tune_the_book_shows_made_the_shipped_weights(tmp_path) -> None:
    """The shown call at a reduced size (6 steps of one window of 4L): the
    same weights as ``fine_tune_edition``, the script's, and the loss beyond
    L falls. Its defaults are the shipped fine-tune's."""
    fine_tune = shown_fine_tune()
    defaults = inspect.signature(fine_tune).parameters
    assert defaults["steps"].default == LONG_STEPS
    assert defaults["batch_size"].default == LONG_BATCH
    assert defaults["s"].default == LONG_FACTOR
    tuned, log = fine_tune("ja", "linear", steps=6, batch_size=1)
    summary = fine_tune_edition("ja", tmp_path, "linear", steps=6, batch=1, windows=2)
    made = LanguageModel.load(tmp_path / "lm-ja-linear.npz")  # float16
    assert tuned.config == made.config and tuned.scale == made.scale
    assert np.array_equal(tuned.theta, made.theta)
    for name, value in made.params.items():
        assert np.array_equal(tuned.params[name].astype(np.float16), value), name
    before, after = summary["loss_before"], summary["loss_after"]
    assert after[1] < before[1] - 0.1 and after[2] < before[2] - 0.1
    assert log.steps[-1] == 6
    base = load_pretrained("ja").config
    for scaling in ["yarn", "rope"]:
        tuned, _ = fine_tune("ja", scaling, steps=1, batch_size=1)
        theta, scale = long_context_rope(base, scaling, LONG_FACTOR)
        assert np.array_equal(tuned.theta, theta) and tuned.scale == scale


def test_training_reads_the_angles_and_scale_it_is_given() -> None:
    """With a negligible step, the validation loss is forward's with theta, scale."""
    config = ModelConfig(
        vocab_size=6, d_model=8, n_heads=2, n_layers=1, d_ff=16, context=8
    )
    params = perturbed_params(config, seed=2)
    before = {k: v.copy() for k, v in params.items()}
    ids = np.tile([2, 3, 4, 5, 3, 2, 1], 10)
    theta, scale = np.array([0.4, 0.02]), 0.8
    _, log = train_language_model(
        ids, config, steps=1, batch_size=2, lr=1e-12, val_ids=ids[:17],
        eval_every=1, params=params, theta=theta, scale=scale,
    )  # fmt: skip
    windows = np.stack([ids[:9], ids[8:17]])  # context + 1, overlapping by one
    logits = forward(params, config, windows[:, :-1], theta=theta, scale=scale)
    log_p = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    expected = -np.take_along_axis(log_p, windows[:, 1:, None], -1).mean()
    assert log.val_loss[0] == pytest.approx(expected, abs=1e-4)
    plain = forward(params, config, windows[:, :-1])  # the trained angles
    plain = plain - np.log(np.exp(plain).sum(axis=-1, keepdims=True))
    other = -np.take_along_axis(plain, windows[:, 1:, None], -1).mean()
    assert abs(other - expected) > 1e-3
    assert all(np.array_equal(before[k], params[k]) for k in params)


def test_a_model_keeps_its_angles_and_scale_through_save_and_load(tmp_path) -> None:
    tok = CharTokenizer.from_text("abcdefg"[: TINY.vocab_size - 2])
    theta = np.array([0.3, 0.007])
    model = LanguageModel(tok, TINY, perturbed_params(TINY), theta=theta, scale=0.9)
    text = "abcabcabca"  # n = 10 > context 6: the angles lift the limit
    expected = forward(model.params, TINY, tok.encode(text), theta=theta, scale=0.9)
    assert np.array_equal(model.logits(text), expected)
    model.save(tmp_path / "half.npz", dtype="float16")
    half = LanguageModel.load(tmp_path / "half.npz")
    assert np.array_equal(half.theta, theta) and half.scale == 0.9
    assert np.allclose(half.logits(text), expected, atol=0.02)
    assert len(half.attention(text)) == TINY.n_layers
    plain = LanguageModel(tok, TINY, model.params)
    plain.save(tmp_path / "plain.npz")
    loaded = LanguageModel.load(tmp_path / "plain.npz")
    assert loaded.theta is None and loaded.scale is None
    with pytest.raises(ValueError, match="`dtype`"):
        model.save(tmp_path / "x.npz", dtype="float64")
    with pytest.raises(ValueError, match="`theta`"):
        LanguageModel(tok, TINY, model.params, theta=np.ones(3))
    with pytest.raises(ValueError, match="`scale`"):
        LanguageModel(tok, TINY, model.params, scale=0.0)
    with pytest.raises(ValueError, match="`model`"):
        generate(model, "ab", 2, greedy=True)


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("scaling", ["linear", "yarn", "rope"])
def test_the_fine_tuned_models_are_the_ones_their_logs_describe(
    edition, scaling
) -> None:
    model = load_pretrained(edition, scaling)
    base = load_pretrained(edition)
    data = resources.files("attention_docs") / "data"
    name = f"lm-{edition}-{scaling}"
    log = json.loads((data / f"{name}.json").read_text(encoding="utf-8"))
    assert model.config.context == log["factor"] * base.config.context
    assert log["config"] == {**log["config"], "context": model.config.context}
    assert model.tokenizer.vocab == base.tokenizer.vocab
    if scaling == "rope":  # the control: the trained angles, fine-tuned at 4L
        theta = rope_frequencies(base.config.d_k)
        # before: the trained model read whole at 4L, which fails beyond L
        assert log["loss_after"][1] < log["loss_before"][1]
    else:
        ramp = {}
        if scaling == "yarn":  # the paper's equation, alpha = 1, beta = 4
            ramp = {"alpha": 1.0, "beta": 4.0, "ramp": "turns"}
            assert log["ramp"] == ramp
        theta = rope_frequencies(
            base.config.d_k,
            scaling=scaling,
            factor=log["factor"],
            original_length=base.config.context,
            **ramp,
        )
        assert log["loss_after"][0] < log["loss_before"][0]
    assert np.array_equal(model.theta, theta) and model.scale == log["scale"]
    # every file of an edition together: at most 5 MB
    files = [f"corpus-{edition}.txt", f"lm-{edition}.npz", f"lm-{edition}.json"]
    files += [
        f"lm-{edition}-{s}.{e}"
        for s in ("linear", "yarn", "rope")
        for e in ("npz", "json")
    ]
    assert sum(len((data / f).read_bytes()) for f in files) <= 5_000_000


def test_load_pretrained_names_the_scalings_it_has() -> None:
    with pytest.raises(ValueError, match="`scaling`"):
        load_pretrained("ja", "ntk")


def test_bigram_loss_is_the_smoothed_count_model() -> None:
    train, held = [0, 1, 0, 1, 0, 2], [0, 1, 2]
    # p(1|0) = (2 + 0.5) / (3 + 1.5), p(2|1) = (0 + 0.5) / (2 + 1.5)
    expected = -(math.log(2.5 / 4.5) + math.log(0.5 / 3.5)) / 2
    assert bigram_loss(train, held, 3, alpha=0.5) == pytest.approx(expected, rel=1e-12)


def test_split_corpus_holds_out_every_tenth_paragraph() -> None:
    text = "".join(f"{i}\n" for i in range(25))
    train, val = split_corpus(text)
    assert val == "9\n19\n"
    assert sorted((train + val).splitlines(), key=int) == [str(i) for i in range(25)]


@pytest.mark.parametrize("config", [TINY, TINY_QK], ids=["plain", "qk_norm"])
def test_save_and_load_keep_the_model(tmp_path, config) -> None:
    tok = CharTokenizer.from_text("abcdefg"[: config.vocab_size - 2])
    model = LanguageModel(tok, config, perturbed_params(config))
    model.save(tmp_path / "m.npz")
    loaded = LanguageModel.load(tmp_path / "m.npz")
    assert loaded.config == config and loaded.tokenizer.vocab == tok.vocab
    assert loaded.config.qk_norm is config.qk_norm
    assert np.allclose(loaded.logits("abc"), model.logits("abc"), atol=1e-5)
    with np.load(tmp_path / "m.npz") as data:  # files without QK norm as before
        assert ("config:qk_norm" in data.files) == config.qk_norm


# -- QK normalisation in the model (the page logit-range.md) ------------------------


def test_qk_norm_adds_two_gains_per_layer_at_one() -> None:
    shapes = parameter_shapes(TINY_QK)
    assert shapes["layers.1.q_norm.gamma"] == shapes["layers.1.k_norm.gamma"] == (4,)
    assert set(shapes) - set(parameter_shapes(TINY)) == {
        f"layers.{layer}.{n}_norm.gamma" for layer in (0, 1) for n in "qk"
    }
    assert parameter_count(TINY_QK) == parameter_count(TINY) + 2 * 2 * TINY.d_k
    params = init_params(TINY_QK, np.random.default_rng(0))
    plain = init_params(TINY, np.random.default_rng(0))
    assert np.all(params["layers.0.q_norm.gamma"] == 1.0)
    assert all(np.array_equal(plain[k], params[k]) for k in plain)  # same draws
    with pytest.raises(TypeError, match="`qk_norm` must be a bool"):
        ModelConfig(vocab_size=5, qk_norm=1)


def test_with_qk_norm_the_scores_ignore_the_size_of_w_q_and_w_k() -> None:
    params = perturbed_params(TINY_QK, seed=3)
    ids = [3, 1, 4, 1, 5, 6]
    base = forward(params, TINY_QK, ids)
    big = {
        k: v * 50.0 if k.endswith((".w_q", ".w_k")) else v for k, v in params.items()
    }
    assert np.allclose(forward(big, TINY_QK, ids), base, atol=1e-6)
    assert not np.allclose(forward(big, TINY, ids), forward(params, TINY, ids))
    # the bound |S_ij| <= sqrt(d_k) max|g^Q| max|g^K|, layer by layer
    tops: list[float] = []
    literal_logits(big, TINY_QK, ids, max_scores=tops)
    for layer, top in enumerate(tops):
        g_q = np.abs(params[f"layers.{layer}.q_norm.gamma"]).max()
        g_k = np.abs(params[f"layers.{layer}.k_norm.gamma"]).max()
        assert 0 < top <= math.sqrt(TINY.d_k) * g_q * g_k


def test_the_training_log_holds_each_layer_s_largest_score() -> None:
    ids = np.tile([2, 3, 4, 5, 6, 2, 4], 30)
    val = ids[:20]
    for config in (TINY, TINY_QK):
        params, log = train_language_model(
            ids, config, steps=6, batch_size=2, lr=1e-2, val_ids=val, eval_every=3
        )
        assert log.max_score.shape == (2, config.n_layers)
        # the last row: the trained parameters on the validation windows of 7
        tops = np.zeros(config.n_layers)
        for start in range(0, len(val) - 1, config.context):
            window = val[start : start + config.context + 1]
            found: list[float] = []
            literal_logits(params, config, window[:-1], max_scores=found)
            tops = np.maximum(tops, found)
        assert np.allclose(log.max_score[-1], tops, rtol=1e-4)
        # evaluate: the same two numbers from the parameters alone (float64)
        loss, max_score = evaluate(params, config, val)
        assert np.isclose(loss, log.val_loss[-1], rtol=1e-4)
        assert np.allclose(max_score, tops, rtol=1e-4)
        # the norms of the last measurement: those of the trained W_Q and W_K
        for name, norms in (("w_q", log.w_q_norm), ("w_k", log.w_k_norm)):
            assert norms.shape == (2, config.n_layers)
            for layer in range(config.n_layers):
                w = params[f"layers.{layer}.{name}"].astype(np.float64)
                assert np.isclose(norms[-1, layer], np.sqrt(np.sum(w * w)))
            assert not np.array_equal(norms[0], norms[-1])  # measured, not copied
    _, unlogged = train_language_model(ids, TINY, steps=2, batch_size=2)
    assert unlogged.max_score.shape == (0, TINY.n_layers)
    # the norms need no validation ids: one measurement, at the last step
    assert unlogged.w_q_norm.shape == unlogged.w_k_norm.shape == (1, TINY.n_layers)


def test_at_a_high_step_size_qk_norm_keeps_the_scores_from_growing(tmp_path) -> None:
    """The script's two runs (logit-range.md, #in-training), at a reduced size
    (the small model, 100 steps, the whole corpus of ja): without QK norm the
    largest score starts near 0 (small weights) and grows to more than twice the
    largest score with QK norm, which starts near sqrt(d_k) (unit gains)."""
    summary = logit_growth_edition(
        "ja", tmp_path, steps=100, config=SMALL, batch=8, every=50
    )
    saved = json.loads((tmp_path / "lm-ja-logit-growth.json").read_text("utf-8"))
    assert saved == summary
    plain, normed = (
        np.array(summary["runs"][k]["max_score"]) for k in ("plain", "qk_norm")
    )
    assert plain.shape == normed.shape == (2, SMALL["n_layers"])
    assert plain[-1].max() > 2 * normed[-1].max()
    assert (plain[-1] - plain[0]).max() > (normed[-1] - normed[0]).max() > 0
    for run in summary["runs"].values():
        assert run["val_loss"][-1] < run["val_loss"][0]
        for key in ("w_q_norm", "w_k_norm"):
            norms = np.array(run[key])
            assert norms.shape == (2, SMALL["n_layers"]) and (norms > 0).all()


#: The training of logit-range.md (#in-training) as the book shows it:
#: ``train_growth(edition, qk_norm)``, the recipe of the shipped logs.
GROWTH_EXAMPLE = (
    Path(__file__).resolve().parents[2] / "docs_src/logit_range/logit_growth.pycon"
)


def test_the_growth_runs_the_book_shows_are_the_scripts(tmp_path, monkeypatch) -> None:
    """One recipe for the page and the script. The page's ``train_growth``
    types it out (sizes, steps, step size, batch, seed, measuring interval);
    ``logit_growth_edition`` (``scripts/train_logit_growth.py``), which made
    the shipped logs, reads it from its constants. Both call
    ``train_language_model``: every call, at both sides' defaults, gets the
    same config, the same ids and the same keywords, so a constant changed on
    one side fails here; each call then trains 2 steps, and the two logs
    agree to the last bit."""
    calls: dict[str, list] = {"page": [], "script": []}

    def recorded(side):
        def train(train_ids, config, **kwargs):
            params, log = train_language_model(
                train_ids, config, **dict(kwargs, steps=2)
            )
            calls[side].append((np.asarray(train_ids), config, kwargs, log))
            return params, log

        return train

    namespace: dict = {}
    source = GROWTH_EXAMPLE.read_text(encoding="utf-8")
    for example in doctest.DocTestParser().get_examples(source):
        exec(compile(example.source, str(GROWTH_EXAMPLE), "exec"), namespace)
    namespace["train_language_model"] = recorded("page")
    for qk_norm in (False, True):
        namespace["train_growth"]("ja", qk_norm)
    monkeypatch.setattr(
        attention_book.language_models, "train_language_model", recorded("script")
    )
    summary = logit_growth_edition("ja", tmp_path)
    assert len(calls["page"]) == len(calls["script"]) == 2
    for shown, made in zip(calls["page"], calls["script"], strict=True):
        ids, config, kwargs, log = shown
        assert np.array_equal(ids, made[0]) and config == made[1]
        assert kwargs.keys() == made[2].keys()
        for key, value in kwargs.items():
            assert np.array_equal(value, made[2][key]), key
        for field in (
            "steps",
            "train_loss",
            "val_loss",
            "max_score",
            "w_q_norm",
            "w_k_norm",
        ):
            assert np.array_equal(getattr(log, field), getattr(made[3], field))
    assert [c[1].qk_norm for c in calls["page"]] == [False, True]
    assert (summary["steps"], summary["lr"], summary["batch_size"]) == (400, 0.03, 16)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vocab_size": 1}, "`vocab_size` must be at least 2"),
        ({"vocab_size": 5, "d_model": 6, "n_heads": 4}, "`n_heads`=4 must divide"),
        ({"vocab_size": 5, "d_model": 6, "n_heads": 2}, "must be even"),
        ({"vocab_size": 5, "n_layers": 0}, "`n_layers` must be a positive integer"),
    ],
)
def test_bad_configs_name_the_field(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        ModelConfig(**kwargs)


def test_bad_ids_and_params_name_the_argument() -> None:
    params = perturbed_params(TINY)
    with pytest.raises(ValueError, match=r"`ids` holds ids from 0 to 7; .*\[0, 7\)"):
        forward(params, TINY, [0, 7])
    with pytest.raises(
        ValueError, match="`ids` has n=7 tokens; the model takes 1 to 6"
    ):
        forward(params, TINY, [0] * 7)
    with pytest.raises(TypeError, match="integer token ids"):
        forward(params, TINY, [0.5])
    bad = dict(params, **{"layers.0.w_q": np.ones((8, 7))})
    with pytest.raises(
        ValueError, match=r"`params\['layers.0.w_q'\]` has shape \(8, 7\)"
    ):
        forward(bad, TINY, [1])
    with pytest.raises(ValueError, match=r"shape \(batch, n \+ 1\)"):
        loss_and_gradients(params, TINY, [1, 2, 3])
    with pytest.raises(ValueError, match="`edition`"):
        load_pretrained("en")


def test_inputs_are_not_changed() -> None:
    params = perturbed_params(TINY)
    before = {k: v.copy() for k, v in params.items()}
    ids = np.array([[1, 2, 3, 4]])
    loss_and_gradients(params, TINY, ids)
    forward(params, TINY, ids[0])
    assert all(np.array_equal(before[k], params[k]) for k in params)
    assert ids.tolist() == [[1, 2, 3, 4]]


def test_the_trained_angles_give_the_same_logits_and_lift_the_context() -> None:
    params = perturbed_params(TINY)
    ids = np.array([[3, 1, 4, 1, 5, 6], [2, 6, 5, 3, 5, 0]])
    trained = 10000.0 ** (-np.arange(0, TINY.d_k, 2) / TINY.d_k)
    assert np.array_equal(
        forward(params, TINY, ids, theta=trained), forward(params, TINY, ids)
    )
    longer = np.concatenate([ids, ids[:, ::-1]], axis=1)  # n = 12 > context 6
    logits = forward(params, TINY, longer, theta=trained)
    assert logits.shape == (2, 12, TINY.vocab_size)
    assert np.allclose(logits[:, :6], forward(params, TINY, ids), atol=1e-12)
    assert np.allclose(
        logits[1], literal_logits(params, TINY, longer[1].tolist()), atol=1e-12
    )


def test_other_angles_and_scale_are_the_model_written_out_with_them() -> None:
    params = perturbed_params(TINY, seed=3)
    ids = [3, 1, 4, 1, 5, 6, 2, 6, 5, 3]  # n = 10 > context 6
    theta = np.array([0.3, 0.007])  # (d_k / 2,) with d_k = 4
    logits = forward(params, TINY, ids, theta=theta, scale=0.9)
    expected = literal_logits(params, TINY, ids, theta=theta, scale=0.9)
    assert np.allclose(logits, expected, atol=1e-12)
    assert not np.allclose(logits, literal_logits(params, TINY, ids), atol=1e-3)
    short = forward(params, TINY, ids[:6], scale=0.9)  # the scale alone
    assert np.allclose(short, literal_logits(params, TINY, ids[:6], scale=0.9))
    assert not np.allclose(short, forward(params, TINY, ids[:6]), atol=1e-3)


def test_bad_theta_and_scale_name_the_argument_and_change_nothing() -> None:
    params = perturbed_params(TINY)
    before = {k: v.copy() for k, v in params.items()}
    theta = np.array([1.0, 0.01])
    for bad, message in [
        (np.ones(3), r"`theta` of shape \(3,\) must have shape \(2,\)"),
        (np.ones((2, 1)), r"`theta` of shape \(2, 1\) must have shape \(2,\)"),
        (np.array([1.0, np.nan]), "`theta`"),
        (np.array([np.inf, 0.1]), "`theta`"),
    ]:
        with pytest.raises(ValueError, match=message):
            forward(params, TINY, [1] * 8, theta=bad)
    with pytest.raises(TypeError, match="`theta`"):
        forward(params, TINY, [1], theta=np.array([1j, 1.0]))
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="`scale`"):
            forward(params, TINY, [1] * 8, theta=theta, scale=bad)
    forward(params, TINY, [1] * 8, theta=theta, scale=0.5)
    assert all(np.array_equal(before[k], params[k]) for k in params)
    assert theta.tolist() == [1.0, 0.01]
    # a call with theta leaves no state behind: the limit holds again
    refusal = "`ids` has n=7 tokens; the model takes 1 to 6"
    with pytest.raises(ValueError, match=refusal):
        forward(params, TINY, [1] * 7)
    with pytest.raises(ValueError, match=refusal):
        forward(params, TINY, [1] * 7, scale=0.5)


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_shipped_model_is_the_one_its_log_describes(edition) -> None:
    model = load_pretrained(edition)
    data = resources.files("attention_docs") / "data"
    log = json.loads((data / f"lm-{edition}.json").read_text(encoding="utf-8"))
    assert parameter_count(model.config) == log["parameters"]
    assert sum(v.size for v in model.params.values()) == log["parameters"]
    train_text, val_text = split_corpus(load_corpus(edition))
    assert CharTokenizer.from_text(train_text).vocab == model.tokenizer.vocab
    assert log["val_loss"][-1] < log["bigram_val_loss"] - 0.3
    # the validation loss, measured again over the whole held-out text, in
    # windows of context + 1 ids that overlap by one (the log's measurement)
    # (the full windows in batches of 32, then the last, shorter one)
    ids = np.array(model.tokenizer.encode(val_text))
    n = model.config.context
    starts = range(0, len(ids) - 1, n)
    full = [s for s in starts if s + n + 1 <= len(ids)]
    windows = [
        np.stack([ids[s : s + n + 1] for s in full[i : i + 32]])
        for i in range(0, len(full), 32)
    ]
    windows += [ids[s : s + n + 1][np.newaxis] for s in starts if s not in full]
    total, count = 0.0, 0
    for batch in windows:  # (b, m + 1): m inputs and their next ids
        logits = forward(model.params, model.config, batch[:, :-1])  # (b, m, V)
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        targets = batch[:, 1:]
        total -= np.take_along_axis(log_p, targets[..., np.newaxis], -1).sum()
        count += targets.size
    assert count == len(ids) - 1
    assert total / count == pytest.approx(log["val_loss"][-1], abs=2e-4)


# -- per-window losses and held-out windows (the page attention-maps.md) ------------


def test_window_losses_are_the_written_out_losses_of_each_window() -> None:
    params = perturbed_params(TINY)
    windows = np.array([[3, 1, 4, 1, 5, 6, 2], [2, 6, 0, 0, 5, 3, 1]])
    got = window_losses(params, TINY, windows)
    assert got.shape == (2,)
    for w, window in enumerate(windows):
        assert got[w] == pytest.approx(literal_loss(params, TINY, [window]), abs=1e-12)
    # their mean is the loss of loss_and_gradients (another forward pass)
    assert got.mean() == pytest.approx(loss_and_gradients(params, TINY, windows)[0])


def zero_head_output_rows(params, config, layer, head):
    """A copy of ``params`` with the d_k rows of W^O that ``head`` multiplies at 0."""
    d_k = config.d_k
    changed = dict(params)
    w_o = params[f"layers.{layer}.w_o"].copy()
    w_o[head * d_k : (head + 1) * d_k] = 0
    changed[f"layers.{layer}.w_o"] = w_o
    return changed


class SetValues:
    """A layer's cache that records V, or sets one head's values to ``o``."""

    def __init__(self, head=None, o=None):
        self.head, self.o = head, o
        self.calls = 0

    def append(self, k, v):
        self.calls += 1
        self.keys, self.values = k, v.copy()
        if self.head is not None:
            self.values[:, self.head] = self.o


def test_caches_see_every_layer_and_change_nothing_when_they_keep_the_values() -> None:
    params = perturbed_params(TINY, seed=1)
    windows = np.array([[3, 1, 4, 1, 5, 6, 2], [0, 1, 2, 3, 4, 5, 6]])
    kept = [SetValues() for _ in range(TINY.n_layers)]
    got = window_losses(params, TINY, windows, caches=kept)
    assert np.array_equal(got, window_losses(params, TINY, windows))
    assert [c.calls for c in kept] == [1] * TINY.n_layers
    assert kept[0].values.shape == (2, TINY.n_heads, 6, TINY.d_k)


@pytest.mark.parametrize("layer, head", [(0, 0), (1, 1)])
def test_zero_values_of_a_head_are_its_w_o_rows_at_zero(layer, head) -> None:
    """A V = 0 when V = 0: the same model as the head's rows of W^O at 0."""
    params = perturbed_params(TINY, seed=2)
    windows = np.array([[3, 1, 4, 1, 5, 6, 2], [6, 5, 4, 3, 2, 1, 0]])
    caches = [None] * TINY.n_layers
    caches[layer] = SetValues(head, 0.0)
    by_values = window_losses(params, TINY, windows, caches=caches)
    by_rows = window_losses(
        zero_head_output_rows(params, TINY, layer, head), TINY, windows
    )
    assert np.allclose(by_values, by_rows, rtol=0, atol=1e-12)
    assert not np.allclose(by_rows, window_losses(params, TINY, windows))


def test_a_constant_value_makes_the_head_s_weights_irrelevant() -> None:
    """V[head] = o in every row: A V = o whatever A (its rows sum to 1)."""
    params = perturbed_params(TINY, seed=3)
    windows = np.array([[3, 1, 4, 1, 5, 6, 2], [6, 5, 4, 3, 2, 1, 0]])
    o = np.random.default_rng(4).normal(size=TINY.d_k)
    other = dict(params)  # other queries and keys for head 2 of layer 1
    cols = slice(TINY.d_k, 2 * TINY.d_k)
    for name in ("layers.0.w_q", "layers.0.w_k"):
        other[name] = params[name].copy()
        other[name][:, cols] = np.random.default_rng(5).normal(size=(8, TINY.d_k))
    same = [
        window_losses(p, TINY, windows, caches=[SetValues(1, o), None])
        for p in (params, other)
    ]
    assert np.allclose(same[0], same[1], rtol=0, atol=1e-12)
    # without the replacement, those queries and keys do change the losses
    assert not np.allclose(
        window_losses(params, TINY, windows), window_losses(other, TINY, windows)
    )


# -- head_ablation and mean_head_outputs ---------------------------------------


@pytest.mark.parametrize(
    "ablation",
    [{(0, 1): 0.0}, {(1, 0): np.arange(4) / 4 - 0.5}, {(0, 0): 0.3, (1, 1): -0.2}],
)
def test_head_ablation_sets_the_head_s_output_as_the_literal_model(ablation) -> None:
    params = perturbed_params(TINY, seed=6)
    ids = [3, 1, 4, 1, 5, 6]
    got = forward(params, TINY, ids, head_ablation=ablation)
    assert np.allclose(got, literal_logits(params, TINY, ids, ablation), atol=1e-9)
    assert not np.allclose(got, forward(params, TINY, ids), atol=1e-6)


@pytest.mark.parametrize("layer", [0, 1])
def test_zero_ablation_of_every_head_of_a_layer_skips_its_attention(layer) -> None:
    """Every head at 0: X' = X + 0, the layer's W^O at 0 (the sublayer skipped)."""
    params = perturbed_params(TINY, seed=7)
    windows = np.array([[3, 1, 4, 1, 5, 6, 2], [6, 5, 4, 3, 2, 1, 0]])
    skipped = dict(params)
    skipped[f"layers.{layer}.w_o"] = np.zeros_like(params[f"layers.{layer}.w_o"])
    every = {(layer, head): 0 for head in range(TINY.n_heads)}
    got = window_losses(params, TINY, windows, head_ablation=every)
    assert np.allclose(got, window_losses(skipped, TINY, windows), rtol=0, atol=1e-12)
    one = window_losses(params, TINY, windows, head_ablation={(layer, 1): 0})
    by_rows = zero_head_output_rows(params, TINY, layer, 1)
    assert np.allclose(one, window_losses(by_rows, TINY, windows), rtol=0, atol=1e-12)


def test_mean_head_outputs_are_the_mean_of_a_v_and_mean_ablation_uses_them() -> None:
    params = perturbed_params(TINY, seed=8)
    windows = np.array([[3, 1, 4, 1, 5, 6, 2], [6, 5, 4, 3, 2, 1, 0]])
    o = mean_head_outputs(params, TINY, windows[:, :-1])
    assert o.shape == (TINY.n_layers, TINY.n_heads, TINY.d_k)
    # layer 1 (counting from 0: layer 0) reads the embeddings: A V written out
    z = np.array(
        [
            [
                literal_layer_norm(
                    params["embedding"][t],
                    params["layers.0.norm_1.gamma"],
                    params["layers.0.norm_1.beta"],
                )
                for t in w
            ]
            for w in windows[:, :-1]
        ]
    )  # (2, 6, d_model)
    _, weights = forward(params, TINY, windows[:, :-1], return_weights=True)
    for head in range(TINY.n_heads):
        v = z @ params["layers.0.w_v"][:, head * TINY.d_k : (head + 1) * TINY.d_k]
        want = (weights[0][:, head] @ v).mean(axis=(0, 1))
        assert np.allclose(o[0, head], want, rtol=0, atol=1e-12)
    # mean ablation: the head's output is the given mean at every position
    ablation = {(1, 0): o[1, 0]}
    got = window_losses(params, TINY, windows, head_ablation=ablation)
    want = literal_loss_per_window(params, windows, ablation)
    assert np.allclose(got, want, rtol=0, atol=1e-9)


def literal_loss_per_window(params, windows, ablation):
    losses = []
    for w in windows:
        logits = literal_logits(params, TINY, list(w[:-1]), ablation)
        z = logits - logits.max(axis=-1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        losses.append(-np.mean([log_p[i, t] for i, t in enumerate(w[1:])]))
    return np.array(losses)


def test_head_ablation_changes_no_argument_and_no_later_call() -> None:
    params = perturbed_params(TINY, seed=9)
    saved = {k: v.copy() for k, v in params.items()}
    windows = np.array([[3, 1, 4, 1, 5, 6, 2]])
    o = np.full(TINY.d_k, 0.5)
    base = window_losses(params, TINY, windows)
    window_losses(params, TINY, windows, head_ablation={(0, 1): o})
    forward(params, TINY, windows[0, :-1], head_ablation={(1, 1): o})
    mean_head_outputs(params, TINY, windows[:, :-1])
    assert all(np.array_equal(params[k], saved[k]) for k in saved)
    assert np.array_equal(o, np.full(TINY.d_k, 0.5))
    assert np.array_equal(window_losses(params, TINY, windows), base)


def test_head_ablation_keeps_the_weights_up_to_its_layer() -> None:
    params = perturbed_params(TINY, seed=10)
    ids = [3, 1, 4, 1, 5, 6]
    _, before = forward(params, TINY, ids, return_weights=True)
    _, after = forward(
        params, TINY, ids, return_weights=True, head_ablation={(0, 1): 0}
    )
    assert np.array_equal(after[0], before[0])  # the ablated head's own too
    assert not np.allclose(after[1], before[1])


def test_head_ablation_refuses_what_names_no_head() -> None:
    params = perturbed_params(TINY)
    windows = [[1, 2, 3]]
    for key in [(2, 0), (0, 2), (-1, 0)]:
        with pytest.raises(ValueError, match=r"`head_ablation` key .*layer must lie"):
            window_losses(params, TINY, windows, head_ablation={key: 0})
    with pytest.raises(TypeError, match="`head_ablation` keys must be"):
        window_losses(params, TINY, windows, head_ablation={0: 0})
    with pytest.raises(TypeError, match="`head_ablation` keys must be"):
        forward(params, TINY, [1, 2], head_ablation={(0, 1.0): 0})
    with pytest.raises(TypeError, match="`head_ablation` must be a dict"):
        forward(params, TINY, [1, 2], head_ablation=[(0, 1)])
    with pytest.raises(ValueError, match=r"`head_ablation\[\(0, 1\)\]` must be"):
        forward(params, TINY, [1, 2], head_ablation={(0, 1): np.zeros(3)})
    with pytest.raises(ValueError, match=r"`head_ablation\[\(0, 1\)\]` holds NaN"):
        forward(params, TINY, [1, 2], head_ablation={(0, 1): np.nan})
    with pytest.raises(ValueError, match="`caches` or `head_ablation`, not both"):
        window_losses(
            params, TINY, windows, caches=[None, None], head_ablation={(0, 1): 0}
        )


def test_window_losses_refuse_what_they_cannot_read() -> None:
    params = perturbed_params(TINY)
    with pytest.raises(ValueError, match="`ids` must have shape"):
        window_losses(params, TINY, [3, 1, 4])
    with pytest.raises(ValueError, match="`ids` must have shape"):
        window_losses(params, TINY, [[3]])
    with pytest.raises(ValueError, match="`ids` has n=8"):
        window_losses(params, TINY, [[1] * 8])
    with pytest.raises(ValueError, match="`ids` holds ids"):
        window_losses(params, TINY, [[1, 9]])
    with pytest.raises(ValueError, match="`caches` must have one entry per layer"):
        window_losses(params, TINY, [[1, 2]], caches=[None])
    with pytest.raises(TypeError, match=r"`caches\[1\]`"):
        window_losses(params, TINY, [[1, 2]], caches=[None, object()])
    with pytest.raises(ValueError, match="`params"):
        window_losses({}, TINY, [[1, 2]])


@pytest.mark.parametrize("edition", EDITIONS)
def test_held_out_windows_are_slices_of_the_validation_text(edition) -> None:
    held_out = split_corpus(load_corpus(edition))[1]
    windows = held_out_windows(edition, 129, step=128)
    assert windows == [held_out[s : s + 129] for s in range(0, 16 * 128, 128)]
    assert held_out_windows(edition, 5, 3) == [
        held_out[0:5],
        held_out[5:10],
        held_out[10:15],
    ]


def test_held_out_windows_name_their_arguments() -> None:
    length = len(split_corpus(load_corpus("ja"))[1])
    assert len(held_out_windows("ja", length, 1)) == 1
    with pytest.raises(ValueError, match=r"`count`=2 windows of `n`=.*`step`="):
        held_out_windows("ja", length, 2)
    with pytest.raises(ValueError, match="`edition`"):
        held_out_windows("en", 4)
    for kwargs, name in [
        ({"n": 0}, "`n`"),
        ({"n": 4, "count": 0}, "`count`"),
        ({"n": 4, "step": -1}, "`step`"),
    ]:
        with pytest.raises(ValueError, match=name):
            held_out_windows("ja", **kwargs)
