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
    parameter_count,
    split_corpus,
    train_language_model,
)
from attention_docs.tokenizer import CharTokenizer

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
