"""The induction model: its training script, and the induction head it ships.

The page "attention-maps.md" (section "exact-pattern") draws and measures
the layer 2 head of ``load_induction_model()`` on a block of letters written
twice: the query at position m + t (from 1) puts most of its weight on key
t + 1, the token after the previous occurrence of the current one. Here that
is measured again on fresh random blocks, for the shipped model and for the
same model at its first values (which spreads its weight evenly).
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from attention_book.language_models import (
    INDUCTION_CONFIG,
    INDUCTION_LETTERS,
    repeated_blocks,
    successor_table,
    train_induction,
)
from attention_docs.language_model import (
    LanguageModel,
    init_params,
    load_induction_model,
    parameter_count,
)

#: The shipped model's layer 2 head scores about 0.67 (its log says exactly);
#: evenly spread weights give 1 / (m + t) on average, 0.04 for m = 16.
THRESHOLD = 0.5


def induction_score(model: LanguageModel, rng: np.random.Generator, m: int = 16):
    """Mean weight of query m + t on key t + 1 per layer and head: (L, h)."""
    letters = model.config.vocab_size - 2
    t = np.arange(1, m + 1)
    scores = []
    for _ in range(20):
        block = "".join(
            model.tokenizer.vocab[2 + k] for k in rng.permutation(letters)[:m]
        )
        a = np.stack(model.attention(block * 2))  # (L, h, 2m, 2m)
        scores.append(a[:, :, m + t - 1, t].mean(axis=-1))  # positions from 1
    return np.mean(scores, axis=0)


def test_the_shipped_layer_2_head_is_an_induction_head() -> None:
    model = load_induction_model()
    score = induction_score(model, np.random.default_rng(7))
    assert score[1].max() > THRESHOLD
    assert score[0].max() < THRESHOLD  # one layer cannot find the repeat


def test_an_untrained_model_has_no_induction_head() -> None:
    model = load_induction_model()
    fresh = LanguageModel(
        model.tokenizer,
        model.config,
        init_params(model.config, np.random.default_rng(0)),
    )
    assert induction_score(fresh, np.random.default_rng(7)).max() < THRESHOLD / 3


def test_the_shipped_model_is_the_one_its_log_describes() -> None:
    model = load_induction_model()
    data = resources.files("attention_docs") / "data"
    log = json.loads((data / "lm-induction.json").read_text(encoding="utf-8"))
    assert parameter_count(model.config) == log["parameters"]
    assert list(model.tokenizer.vocab[2:]) == list(log["letters"])
    assert log["second_copy_loss"] < 0.25 * log["first_copy_loss"]
    assert log["first_copy_loss"] > 0.8 * np.log(len(log["letters"]))


def test_repeated_blocks_repeat_a_block_of_distinct_ids() -> None:
    rng = np.random.default_rng(0)
    table = successor_table(rng, 16)
    ids = repeated_blocks(rng, 50, 33, table, 8)
    assert ids.shape == (50, 33)
    assert ids.min() >= 2 and ids.max() < 18
    for row in ids:  # the period p: the longest p with row[-p:] == row[-2p:-p]
        p = max(p for p in range(8, 17) if np.array_equal(row[-p:], row[-2 * p : -p]))
        assert len(set(row[-p:].tolist())) == p
        text = row[: 33 - 2 * p]
        for a, b, c in zip(text[:-2], text[1:-1], text[2:], strict=True):
            assert c in table[a - 2, b - 2]


def test_the_training_script_trains_the_induction_model(tmp_path) -> None:
    """The pipeline that made the shipped weights, shorter."""
    summary = train_induction(tmp_path, steps=30, batch=8)
    assert summary["train_loss"][-1] < summary["train_loss"][0] - 0.05
    model = LanguageModel.load(tmp_path / "lm-induction.npz")
    assert model.config.context == INDUCTION_CONFIG["context"]
    assert "".join(model.tokenizer.vocab[2:]) == INDUCTION_LETTERS
    assert summary["steps"] == 30


@pytest.mark.parametrize("name", ["lm-induction.npz", "lm-induction.json"])
def test_the_files_are_small(name) -> None:
    data = resources.files("attention_docs") / "data"
    assert len((data / name).read_bytes()) < 100_000


def test_the_page_trains_what_the_script_trains(tmp_path) -> None:
    """attention-maps.md shows the training; its code gives the script's weights.

    The page's example defines the data (``sequence``) and ``train(steps)``
    and runs a short training; ``train(steps=3000)`` there is the run that
    made the shipped weights. Run here for 20 steps, both must agree to the
    last bit (float32, as the script saves them).
    """
    page = Path(__file__).resolve().parents[2] / "docs_src/attention_maps"
    text = (page / "induction_training.pycon").read_text(encoding="utf-8")
    namespace: dict = {}
    for example in doctest.DocTestParser().get_examples(text):
        if example.source.startswith("train("):
            break
        exec(compile(example.source, "induction_training.pycon", "single"), namespace)
    else:
        pytest.fail("the page no longer calls train(...)")
    batch = 16
    assert np.array_equal(
        namespace["sequence"](np.random.default_rng(5))[None],
        repeated_blocks(np.random.default_rng(5), 1, 33, namespace["table"], 8),
    )
    with contextlib.redirect_stdout(io.StringIO()):
        namespace["train"](20, batch)
    summary_dir = tmp_path / "script"
    train_induction(summary_dir, steps=20, batch=batch)
    shipped = LanguageModel.load(summary_dir / "lm-induction.npz").params
    for key, value in namespace["params"].items():
        assert np.array_equal(value.astype(np.float32), shipped[key]), key
