"""Training the book's language models (``scripts/train_language_model.py``).

:func:`train_edition` reads an edition's corpus (:mod:`attention_book.corpus`),
splits it, builds the character tokenizer on the training text, trains the
model with :func:`attention_docs.language_model.train_language_model` and
writes three files into a folder (``src/attention_docs/data/`` for the
shipped models):

- ``corpus-<edition>.txt``: the prose of the edition's pages, one paragraph a
  line, frozen with the weights so that the book's numbers do not move when
  its pages change;
- ``lm-<edition>.npz``: the trained model (``LanguageModel.save``);
- ``lm-<edition>.json``: the training log (losses along the way, the bigram
  baseline, time and memory), which the book's loss plot draws.

:func:`fine_tune_edition` then continues that model's training briefly on
windows of :math:`4L` with the RoPE angles of position interpolation
(``"linear"``) or YaRN (``"yarn"``), as both papers do after rescaling, or,
as a control, with the trained angles (``"rope"``: the same training at 4L
without rescaling), and writes ``lm-<edition>-<scaling>.npz`` (float16) and
its log ``lm-<edition>-<scaling>.json``.

The same seed and corpus give the same weights on the same machine (another
BLAS may round differently).
"""

from __future__ import annotations

import json
import resource
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from attention_book.corpus import corpus
from attention_docs.language_model import (
    LanguageModel,
    ModelConfig,
    bigram_loss,
    forward,
    init_params,
    load_corpus,
    load_pretrained,
    loss_and_gradients,
    parameter_count,
    split_corpus,
    train_language_model,
)
from attention_docs.positional import rope_frequencies
from attention_docs.tokenizer import SPECIAL_TOKENS, CharTokenizer
from attention_docs.training import Adam

#: The book's model: about 0.4 M parameters.
CONFIG = {"d_model": 96, "n_heads": 4, "n_layers": 3, "d_ff": 384, "context": 128}
#: A model small enough for a test to train in seconds.
SMALL = {"d_model": 16, "n_heads": 2, "n_layers": 1, "d_ff": 32, "context": 32}
STEPS = 1500
BATCH = 16
LR = 3e-3
SEED = 0


def train_edition(
    edition: str,
    out: Path,
    *,
    steps: int = STEPS,
    config: dict | None = None,
    batch: int = BATCH,
    text: str | None = None,
) -> dict:
    """Train ``edition``'s model into ``out``; return the training log written."""
    text = corpus(edition) if text is None else text
    train_text, val_text = split_corpus(text)
    tokenizer = CharTokenizer.from_text(train_text)
    train_ids = np.array(tokenizer.encode(train_text))
    val_ids = np.array(tokenizer.encode(val_text))
    model_config = ModelConfig(vocab_size=len(tokenizer), **(config or CONFIG))
    start = time.perf_counter()
    params, log = train_language_model(
        train_ids,
        model_config,
        steps=steps,
        batch_size=batch,
        lr=LR,
        seed=SEED,
        val_ids=val_ids,
        eval_every=max(1, steps // 30),
    )
    seconds = time.perf_counter() - start
    out.mkdir(parents=True, exist_ok=True)
    (out / f"corpus-{edition}.txt").write_text(text, encoding="utf-8")
    LanguageModel(tokenizer, model_config, params).save(out / f"lm-{edition}.npz")
    summary = {
        "edition": edition,
        "config": asdict(model_config),
        "parameters": parameter_count(model_config),
        "steps": steps,
        "batch_size": batch,
        "lr": LR,
        "seed": SEED,
        "train_characters": len(train_text),
        "val_characters": len(val_text),
        "seconds": round(seconds, 1),
        "peak_rss_mib": round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        ),
        "log_steps": log.steps.tolist(),
        "train_loss": [round(x, 4) for x in log.train_loss.tolist()],
        "val_loss": [round(x, 4) for x in log.val_loss.tolist()],
        "bigram_val_loss": round(bigram_loss(train_ids, val_ids, len(tokenizer)), 4),
    }
    (out / f"lm-{edition}.json").write_text(
        json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return summary


# -- the long-context fine-tune: PI and YaRN at 4L ---------------------------------

#: The factor s = L'/L of the fine-tune: windows of 4L.
LONG_FACTOR = 4
#: Steps and windows per step: the training's tokens per step
#: (4 windows of 4L = 16 of L), a few minutes an edition on two cores.
LONG_STEPS = 240
LONG_BATCH = 4
#: A third of the training's first step size, with the same schedule.
LONG_LR = 1e-3
#: PI, YaRN, and the control: the trained angles, fine-tuned the same way.
LONG_SCALINGS = ("linear", "yarn", "rope")
#: YaRN's ramp for the book's model: the paper's equation (by turns, Peng et
#: al., 2023, Section 3.2), whose alpha and beta the paper tunes per model
#: family. Its Llama values (alpha = 1, beta = 32) keep no pair of this model,
#: whose fastest pair turns 20.4 times in L = 128: every pair would be scaled,
#: close to PI. beta = 4 (Llama 3.1's high_freq_factor) keeps the pairs whose
#: wavelength is under L / 4 = 32 tokens (pairs 0 to 2, 20.4, 9.5 and 4.4
#: turns), scales pair 3 (2.0 turns) in part and the rest by 1 / s.
YARN_RAMP = {"alpha": 1.0, "beta": 4.0, "ramp": "turns"}


def long_context_rope(config: ModelConfig, scaling: str, factor: float):
    r"""``(theta, scale)`` of ``scaling`` at ``factor`` for a model of ``config``.

    ``theta`` is ``rope_frequencies(d_k, scaling=..., factor=...,
    original_length=L)``, for ``"yarn"`` with the ramp :data:`YARN_RAMP`
    (the paper's equation with alpha = 1, beta = 4); ``scale`` is None
    (``1/sqrt(d_k)``) for ``"linear"`` and ``1 / (t sqrt(d_k))`` for
    ``"yarn"``, with YaRN's temperature :math:`\sqrt{1/t} = 0.1 \ln s + 1`
    (Peng et al., 2023, Section 3.4). ``"rope"``, the control, keeps the trained angles
    ``rope_frequencies(d_k)`` and scale: the same fine-tune without rescaling.
    """
    d_k, length = config.d_k, config.context
    if scaling == "rope":
        return rope_frequencies(d_k), None
    ramp = YARN_RAMP if scaling == "yarn" else {}
    theta = rope_frequencies(
        d_k, scaling=scaling, factor=factor, original_length=length, **ramp
    )
    if scaling != "yarn":
        return theta, None
    t = 1 / (0.1 * np.log(factor) + 1) ** 2
    return theta, float(1 / (t * np.sqrt(d_k)))


def token_losses(model: LanguageModel, windows: np.ndarray) -> np.ndarray:
    """-log p(next token) at every position of ``windows`` (b, n + 1): (b, n).

    Read with the model's ``theta`` and ``scale``, eight windows at a time.
    """
    x, y = windows[:, :-1], windows[:, 1:]
    rows = []
    for i in range(0, len(x), 8):
        logits = forward(
            model.params,
            model.config,
            x[i : i + 8],
            theta=model.theta,
            scale=model.scale,
        )  # (b, n, V)
        u = logits - logits.max(axis=-1, keepdims=True)
        log_p = u - np.log(np.exp(u).sum(axis=-1, keepdims=True))
        rows.append(-np.take_along_axis(log_p, y[i : i + 8, :, None], axis=-1)[..., 0])
    return np.concatenate(rows)


def range_means(nll: np.ndarray, length: int) -> np.ndarray:
    """Mean of each row of ``nll`` (b, n) on [0, L), [L, 2L), [2L, n): (b, 3)."""
    ranges = [(0, length), (length, 2 * length), (2 * length, nll.shape[1])]
    return np.stack([nll[:, a:b].mean(axis=1) for a, b in ranges], axis=1)


def fine_tune_edition(
    edition: str,
    out: Path,
    scaling: str,
    *,
    factor: int = LONG_FACTOR,
    steps: int = LONG_STEPS,
    batch: int = LONG_BATCH,
    model: LanguageModel | None = None,
    text: str | None = None,
    windows: int = 16,
) -> dict:
    """Fine-tune ``edition``'s model at ``factor`` times its context; return the log.

    Starts from ``model`` (default: the shipped ``load_pretrained(edition)``)
    and trains it with :func:`train_language_model` (the same loop, Adam,
    schedule and seed as :func:`train_edition`) on windows of ``factor * L``
    drawn from the training half of ``text`` (default: the frozen corpus
    ``load_corpus(edition)``, whose split made the model), with the angles
    and scale of :func:`long_context_rope`. Writes
    ``lm-<edition>-<scaling>.npz`` (parameters as float16, with ``theta``
    and ``scale``) and ``lm-<edition>-<scaling>.json``: the steps, the time,
    the training losses, and the mean loss of up to ``windows`` held-out
    windows of ``factor * L`` per range [0, L), [L, 2L), [2L, factor L),
    before, after (the float16 weights) and read in pieces of L by the
    model it started from.
    """
    model = load_pretrained(edition) if model is None else model
    text = load_corpus(edition) if text is None else text
    train_text, val_text = split_corpus(text)
    train_ids = np.array(model.tokenizer.encode(train_text))
    val_ids = np.array(model.tokenizer.encode(val_text))
    length = model.config.context
    n = factor * length
    count = min(windows, (len(val_ids) - 1) // n)
    held = np.stack([val_ids[i * n : i * n + n + 1] for i in range(count)])
    long_config = replace(model.config, context=n)
    theta, scale = long_context_rope(model.config, scaling, factor)
    start_model = LanguageModel(
        model.tokenizer, long_config, model.params, theta=theta, scale=scale
    )
    before = range_means(token_losses(start_model, held), length)
    # piece j of a window: inputs j L .. (j + 1) L - 1, targets one later
    cuts = np.stack(
        [held[:, j * length : (j + 1) * length + 1] for j in range(factor)], axis=1
    )  # (b, s, L + 1)
    pieces = token_losses(model, cuts.reshape(-1, length + 1)).reshape(count, n)
    pieces = range_means(pieces, length)
    start = time.perf_counter()
    params, log = train_language_model(
        train_ids,
        long_config,
        steps=steps,
        batch_size=batch,
        lr=LONG_LR,
        seed=SEED,
        eval_every=max(1, steps // 12),
        params=model.params,
        theta=theta,
        scale=scale,
    )
    seconds = time.perf_counter() - start
    path = out / f"lm-{edition}-{scaling}.npz"
    out.mkdir(parents=True, exist_ok=True)
    LanguageModel(model.tokenizer, long_config, params, theta=theta, scale=scale).save(
        path, dtype="float16"
    )
    after = range_means(token_losses(LanguageModel.load(path), held), length)

    def means(losses):
        return [round(float(v), 4) for v in losses.mean(axis=0)]

    summary = {
        "edition": edition,
        "scaling": scaling,
        "factor": factor,
        "original_length": length,
        "config": asdict(long_config),
        "theta": theta.tolist(),
        **({"ramp": YARN_RAMP} if scaling == "yarn" else {}),
        "scale": scale,
        "steps": steps,
        "batch_size": batch,
        "tokens_per_step": batch * n,
        "lr": LONG_LR,
        "seed": SEED,
        "seconds": round(seconds, 1),
        "dtype": "float16",
        "log_steps": log.steps.tolist(),
        "train_loss": [round(x, 4) for x in log.train_loss.tolist()],
        "held_out_windows": count,
        "ranges": ["[0, L)", "[L, 2L)", f"[2L, {factor}L)"],
        "loss_pieces": means(pieces),
        "loss_before": means(before),
        "loss_after": means(after),
    }
    (out / f"lm-{edition}-{scaling}.json").write_text(
        json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return summary


# -- the induction model: repeated random letters ----------------------------------

#: The induction model's letters: its vocabulary (after the special tokens).
INDUCTION_LETTERS = "abcdefghijklmnop"
#: Two layers, small: the layer 2 head can only find the repeat by reading
#: what the layer 1 head wrote (Olsson et al., 2022).
INDUCTION_CONFIG = {
    "d_model": 32,
    "n_heads": 1,
    "n_layers": 2,
    "d_ff": 32,
    "context": 32,
}
INDUCTION_STEPS = 3000
INDUCTION_BATCH = 16
INDUCTION_LR = 3e-3
#: The shortest repeated block; the longest fills the whole window twice.
INDUCTION_MIN_PERIOD = 8


def successor_table(rng: np.random.Generator, letters: int) -> np.ndarray:
    """The two ids that may follow each pair of ids: shape (letters, letters, 2)."""
    return 2 + rng.integers(0, letters, size=(letters, letters, 2))


def repeated_blocks(
    rng: np.random.Generator,
    batch: int,
    length: int,
    table: np.ndarray,
    min_period: int,
) -> np.ndarray:
    """``batch`` rows of ``length`` ids: a text of the table's rule, then a block twice.

    Each row draws a period ``p`` in ``[min_period, length // 2]`` and a
    block of ``p`` distinct ids, written twice at the end of the row: the
    second copy is predictable, and only by finding the first (``p``
    varies, so no fixed offset finds it). The ``length - 2p`` ids before it
    follow ``table`` (:func:`successor_table`): after ids ``a, b`` comes
    ``table[a - 2, b - 2, c]`` with ``c`` drawn at random, so that reading
    the previous id pays off on its own. Without that, the training stayed
    near log V for thousands of steps (no previous-token head for
    an induction head to build on). Ids start at 2, after the special tokens.
    """
    letters = table.shape[0]
    rows = []
    for _ in range(batch):
        p = int(rng.integers(min_period, length // 2 + 1))
        block = 2 + rng.permutation(letters)[:p]
        text = list(2 + rng.integers(0, letters, size=2))
        while len(text) < length - 2 * p:
            text.append(int(table[text[-2] - 2, text[-1] - 2, rng.integers(2)]))
        rows.append(np.concatenate([text[: length - 2 * p], block, block]))
    return np.array(rows, dtype=np.int64)


def copy_halves(model: LanguageModel, rng: np.random.Generator, count: int = 64):
    """Mean loss on the first and second copy of ``count`` blocks of m letters.

    The block fills the window: m = context // 2. The first copy's targets
    are its letters 2..m, the second's its letters 2..m (the first letter of
    each copy follows nothing that tells it).
    """
    m = model.config.context // 2
    letters = model.config.vocab_size - 2
    first, second = [], []
    for _ in range(count):
        block = 2 + rng.permutation(letters)[:m]
        ids = np.concatenate([block, block])
        logits = forward(model.params, model.config, ids)  # (2m, V)
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        nll = -log_p[np.arange(2 * m - 1), ids[1:]]  # target of i is ids[i + 1]
        first.append(nll[: m - 1].mean())
        second.append(nll[m:].mean())
    return float(np.mean(first)), float(np.mean(second))


def induction_scores(model: LanguageModel, rng: np.random.Generator, count: int = 64):
    """Mean weight of query m + t on key t + 1 (t = 1..m), per layer and head.

    On ``count`` blocks of m = context // 2 distinct letters written twice;
    returns an array of shape (L, h). Also the mean weight on key i - 1
    (i = 2..2m), the previous-token score, of the same shape.
    """
    m = model.config.context // 2
    letters = model.config.vocab_size - 2
    t = np.arange(1, m + 1)
    i = np.arange(1, 2 * m)
    ind, prev = [], []
    for _ in range(count):
        block = 2 + rng.permutation(letters)[:m]
        ids = np.concatenate([block, block])
        _, weights = forward(model.params, model.config, ids, return_weights=True)
        a = np.stack(weights)  # (L, h, 2m, 2m)
        ind.append(a[:, :, m + t - 1, t].mean(axis=-1))  # positions from 1
        prev.append(a[:, :, i, i - 1].mean(axis=-1))
    return np.mean(ind, axis=0), np.mean(prev, axis=0)


def train_induction(
    out: Path,
    *,
    steps: int = INDUCTION_STEPS,
    config: dict | None = None,
    batch: int = INDUCTION_BATCH,
    seed: int = SEED,
) -> dict:
    """Train the induction model into ``out``; return the training log written.

    Adam (``attention_docs.training.Adam``) on :func:`loss_and_gradients` of
    fresh :func:`repeated_blocks` every step, with the step size decayed
    linearly to 0 over the last half of the steps, as
    ``train_language_model``. Writes ``lm-induction.npz`` and
    ``lm-induction.json``.
    """
    config = config or INDUCTION_CONFIG
    letters = INDUCTION_LETTERS
    model_config = ModelConfig(vocab_size=len(SPECIAL_TOKENS) + len(letters), **config)
    rng = np.random.default_rng(seed)
    params = init_params(model_config, rng)
    table = successor_table(rng, len(letters))
    adam = Adam(params, lr=INDUCTION_LR)
    every = max(1, steps // 30)
    log_steps, losses, recent = [], [], []
    start = time.perf_counter()
    for step in range(1, steps + 1):
        ids = repeated_blocks(
            rng, batch, model_config.context + 1, table, INDUCTION_MIN_PERIOD
        )
        loss, grads = loss_and_gradients(params, model_config, ids)
        adam.lr = INDUCTION_LR * min(1.0, 2 * (steps - step + 1) / steps)
        adam.step(params, grads)
        recent.append(loss)
        if step % every == 0 or step == steps:
            log_steps.append(step)
            losses.append(round(float(np.mean(recent)), 4))
            recent = []
    seconds = time.perf_counter() - start
    tokenizer = CharTokenizer([*SPECIAL_TOKENS, *letters])
    model = LanguageModel(tokenizer, model_config, params)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "lm-induction.npz")
    model = LanguageModel.load(out / "lm-induction.npz")  # the float32 weights
    first, second = copy_halves(model, np.random.default_rng(1))
    ind, prev = induction_scores(model, np.random.default_rng(2))
    summary = {
        "config": asdict(model_config),
        "parameters": parameter_count(model_config),
        "letters": letters,
        "min_period": INDUCTION_MIN_PERIOD,
        "steps": steps,
        "batch_size": batch,
        "lr": INDUCTION_LR,
        "seed": seed,
        "seconds": round(seconds, 1),
        "log_steps": log_steps,
        "train_loss": losses,
        "first_copy_loss": round(first, 4),
        "second_copy_loss": round(second, 4),
        "induction_score": np.round(ind, 3).tolist(),
        "previous_token_score": np.round(prev, 3).tolist(),
    }
    (out / "lm-induction.json").write_text(
        json.dumps(summary, indent=1) + "\n", encoding="utf-8"
    )
    return summary


# -- logit growth in training, without and with QK norm (logit-range.md) ----------

#: A step size ten times the book's training (``LR``): large enough that the
#: attention logits grow in a few hundred steps, as the page's section
#: "in-training" shows.
GROWTH_LR = 3e-2
GROWTH_STEPS = 400
GROWTH_EVERY = 50


def logit_growth_edition(
    edition: str,
    out: Path,
    *,
    steps: int = GROWTH_STEPS,
    lr: float = GROWTH_LR,
    config: dict | None = None,
    batch: int = BATCH,
    every: int = GROWTH_EVERY,
    text: str | None = None,
) -> dict:
    """Train ``edition``'s model from scratch twice at step size ``lr``: without
    and with QK norm (``ModelConfig(qk_norm=True)``), from the same seed and
    the same windows; write ``lm-<edition>-logit-growth.json`` into ``out``.

    The log holds, every ``every`` steps of each run, the validation loss and
    each layer's largest scaled score :math:`|S_{ij}|` on the validation text
    (``TrainingLog.max_score``) and the Frobenius norms of its :math:`W_Q`
    and :math:`W_K` (``w_q_norm``, ``w_k_norm``).

    The page shows the same recipe typed out (``train_growth`` in
    ``docs_src/logit_range/logit_growth.pycon``); a unit test checks that
    both call ``train_language_model`` with the same arguments.
    """
    text = load_corpus(edition) if text is None else text
    train_text, val_text = split_corpus(text)
    tokenizer = CharTokenizer.from_text(train_text)
    train_ids = np.array(tokenizer.encode(train_text))
    val_ids = np.array(tokenizer.encode(val_text))
    runs = {}
    for qk_norm in (False, True):
        model_config = ModelConfig(
            vocab_size=len(tokenizer), **(config or CONFIG), qk_norm=qk_norm
        )
        start = time.perf_counter()
        name = "qk_norm" if qk_norm else "plain"
        try:
            _, log = train_language_model(
                train_ids,
                model_config,
                steps=steps,
                batch_size=batch,
                lr=lr,
                seed=SEED,
                val_ids=val_ids,
                eval_every=every,
            )
        except ValueError as error:  # the loss diverged: say so in the log
            runs[name] = {"diverged": str(error)}
            continue
        runs[name] = {
            "seconds": round(time.perf_counter() - start, 1),
            "log_steps": log.steps.tolist(),
            "val_loss": [round(x, 4) for x in log.val_loss.tolist()],
            "max_score": [[round(x, 2) for x in row] for row in log.max_score.tolist()],
            "w_q_norm": [[round(x, 2) for x in row] for row in log.w_q_norm.tolist()],
            "w_k_norm": [[round(x, 2) for x in row] for row in log.w_k_norm.tolist()],
        }
    summary = {
        "edition": edition,
        "config": {k: v for k, v in asdict(model_config).items() if k != "qk_norm"},
        "steps": steps,
        "batch_size": batch,
        "lr": lr,
        "seed": SEED,
        "runs": runs,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / f"lm-{edition}-logit-growth.json").write_text(
        json.dumps(summary, indent=1) + "\n", encoding="utf-8"
    )
    return summary
