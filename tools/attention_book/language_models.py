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

The same seed and corpus give the same weights on the same machine (another
BLAS may round differently).
"""

from __future__ import annotations

import json
import resource
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from attention_book.corpus import corpus
from attention_docs.language_model import (
    LanguageModel,
    ModelConfig,
    bigram_loss,
    forward,
    init_params,
    loss_and_gradients,
    parameter_count,
    split_corpus,
    train_language_model,
)
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
