"""The code a chapter shows to be read computes what the package computes.

Chapters 14 and 15 show the package's language model as listings without
the options that later chapters add; these tests keep each listing equal
to the package's function it stands for.

Chapter 14 ("Assembling a small language model", ``language-model.md#assemble``)
shows the block and the forward pass of the book's language model as
``docs_src/language_model/assemble.py``: the package's ``_block`` and
``decoder_forward`` without the options of later chapters (the KV cache,
chapter 17; QK-norm, chapter 20; ``theta`` and ``scale``, chapter 23), which
the chapter has not taught.
The page says that the package's functions are these with those options
added, and that on the book's models they give the same values. These tests
hold both sentences true: the listing, run on every edition's trained
weights (which have no QK-norm gains) with the defaults, gives exactly the
package's arrays without a KV cache; and the package's functions still have
the options the page names.

Chapter 15 ("Training the language model", ``lm-training.md``) shows the
training loop and the backward pass as
``docs_src/language_model/training_loop.py``: the package's ``_train_loop``
without its ``rope`` argument (chapter 23) and ``_backward`` without the
backward pass of QK-norm (chapter 20). Run from the same parameters and
the same random generator, the listing's loop gives exactly the package's
losses and parameters, and its backward pass the package's gradients on
every edition's weights.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from attention_docs import causal_mask, language_model, load_pretrained
from attention_docs.training import Adam

ROOT = Path(__file__).resolve().parents[2]
LISTING = ROOT / "docs_src" / "language_model" / "assemble.py"
TRAINING = ROOT / "docs_src" / "language_model" / "training_loop.py"
PAGES = [ROOT / "docs" / edition / "language-model.md" for edition in ("ja", "zh-Hant")]
TRAINING_PAGES = [
    ROOT / "docs" / edition / "lm-training.md" for edition in ("ja", "zh-Hant")
]
EDITIONS = ("ja", "zh-Hant", "zh-Hans")


def load_listing(path: Path = LISTING):
    spec = importlib.util.spec_from_file_location(f"book_{path.stem}_listing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def listing():
    return load_listing()


@pytest.fixture(scope="module")
def training():
    return load_listing(TRAINING)


def shown_section(path: Path, name: str) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split(f"# --8<-- [start:{name}]")[1].split(f"# --8<-- [end:{name}]")[0]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_the_page_shows_the_listing(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for section in ("block", "forward"):
        assert f'--8<-- "docs_src/language_model/assemble.py:{section}"' in text
    assert "src/attention_docs/language_model.py:block" not in text


def test_the_package_adds_the_options_the_page_names(listing) -> None:
    """The package's functions have a KV cache, QK-norm, ``theta`` and
    ``scale``; the listing has none of them."""
    for name, cache in (("_block", "cache"), ("decoder_forward", "caches")):
        package = inspect.signature(getattr(language_model, name)).parameters
        shown = inspect.signature(getattr(listing, name)).parameters
        assert {cache, "theta", "scale"} <= set(package)
        assert set(shown) == set(package) - {cache, "theta", "scale"}
    assert "q_norm.gamma" in inspect.getsource(language_model._block)
    shown = shown_section(LISTING, "block") + shown_section(LISTING, "forward")
    for word in ("cache", "caches", "q_norm", "rms_norm", "theta", "scale"):
        assert not re.search(rf"\b{word}\b", shown), word


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_listing_computes_the_package_forward(listing, edition: str) -> None:
    model = load_pretrained(edition)
    config, params = model.config, model.params
    assert not config.qk_norm
    rng = np.random.default_rng(0)
    n = 24
    ids = rng.integers(0, config.vocab_size, size=(2, n))
    positions = np.arange(n)
    mask = causal_mask(n)
    shown, shown_weights = listing.decoder_forward(params, config, ids, positions, mask)
    package, weights = language_model.decoder_forward(
        params, config, ids, positions, mask
    )
    np.testing.assert_array_equal(shown, package)
    assert len(shown_weights) == len(weights) == config.n_layers
    for a, b in zip(shown_weights, weights, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("page", TRAINING_PAGES, ids=lambda p: p.parent.name)
def test_the_training_page_shows_the_listings(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for section in ("train", "backward"):
        assert f'--8<-- "docs_src/language_model/training_loop.py:{section}"' in text
        assert f"src/attention_docs/language_model.py:{section}" not in text


def test_the_package_adds_the_training_options_the_page_names(training) -> None:
    package = inspect.signature(language_model._train_loop).parameters
    shown = inspect.signature(training._train_loop).parameters
    assert set(shown) == set(package) - {"rope"}
    assert "qk_norm" in inspect.getsource(language_model._backward)
    for name in ("train", "backward"):
        section = shown_section(TRAINING, name)
        for word in ("rope", "qk_norm", "q_norm", "_rms_backward"):
            assert not re.search(rf"\b{word}\b", section), word


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_listing_computes_the_package_gradients(training, edition: str) -> None:
    model = load_pretrained(edition)
    config, params = model.config, model.params
    ids = np.random.default_rng(2).integers(0, config.vocab_size, size=(2, 17))
    logits, cache = language_model._train_forward(params, config, ids[:, :-1])
    _, d_logits = language_model._cross_entropy(logits, ids[:, 1:])
    shown = training._backward(params, config, ids[:, :-1], cache, d_logits)
    package = language_model._backward(params, config, ids[:, :-1], cache, d_logits)
    assert list(shown) == list(package)
    for name in package:
        np.testing.assert_array_equal(shown[name], package[name], err_msg=name)


def test_the_listing_trains_as_the_package_trains(training) -> None:
    """Ten steps of each loop on a small model, from the same start."""
    config = language_model.ModelConfig(
        vocab_size=40, d_model=16, n_heads=2, n_layers=2, d_ff=32, context=12
    )
    start = language_model.init_params(config, np.random.default_rng(3))
    text = np.random.default_rng(4).integers(0, config.vocab_size, size=400)
    runs = []
    for loop, extra in (
        (training._train_loop, ()),
        (language_model._train_loop, ((None, None),)),
    ):
        params = {key: a.astype(np.float32) for key, a in start.items()}
        adam = Adam(params, lr=0.01)
        rng = np.random.default_rng(5)
        losses = [
            loss for _, loss in loop(params, config, adam, rng, text, 10, 3, *extra)
        ]
        runs.append((losses, params))
    (shown_losses, shown), (package_losses, package) = runs
    assert shown_losses == package_losses
    for name in package:
        np.testing.assert_array_equal(shown[name], package[name], err_msg=name)
