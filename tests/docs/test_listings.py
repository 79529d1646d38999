"""The code a chapter shows to be read computes what the package computes.

Chapter 14 ("Assembling a small language model", ``language-model.md#assemble``)
shows the block and the forward pass of the book's language model as
``docs_src/language_model/assemble.py``: the package's ``_block`` and
``decoder_forward`` without the options of later chapters (QK-norm, chapter
20; ``theta`` and ``scale``, chapter 23), which the chapter has not taught.
The page says that the package's functions are these with those options
added, and that on the book's models they give the same values. These tests
hold both sentences true: the listing, run on every edition's trained
weights (which have no QK-norm gains) with the defaults, gives exactly the
package's arrays, with and without a KV cache; and the package's functions
still have the options the page names.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest

from attention_docs import causal_mask, language_model, load_pretrained
from attention_docs.kvcache import KVCache

ROOT = Path(__file__).resolve().parents[2]
LISTING = ROOT / "docs_src" / "language_model" / "assemble.py"
PAGES = [ROOT / "docs" / edition / "language-model.md" for edition in ("ja", "zh-Hant")]
EDITIONS = ("ja", "zh-Hant", "zh-Hans")


def load_listing():
    spec = importlib.util.spec_from_file_location("book_assemble_listing", LISTING)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def listing():
    return load_listing()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_the_page_shows_the_listing(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for section in ("block", "forward"):
        assert f'--8<-- "docs_src/language_model/assemble.py:{section}"' in text
    assert "src/attention_docs/language_model.py:block" not in text


def test_the_package_adds_the_options_the_page_names(listing) -> None:
    """The package's functions have QK-norm, ``theta`` and ``scale``; the
    listing has none of them."""
    for name in ("_block", "decoder_forward"):
        package = inspect.signature(getattr(language_model, name)).parameters
        shown = inspect.signature(getattr(listing, name)).parameters
        assert {"theta", "scale"} <= set(package)
        assert set(shown) == set(package) - {"theta", "scale"}
    assert "q_norm.gamma" in inspect.getsource(language_model._block)
    source = LISTING.read_text(encoding="utf-8")
    for word in ("q_norm", "rms_norm", "theta=", "scale="):
        assert word not in source.split("# --8<-- [start:block]")[1]


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


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_listing_computes_the_package_forward_with_a_cache(
    listing, edition: str
) -> None:
    """A prefill of 6 tokens and two steps of one, as generation runs them."""
    model = load_pretrained(edition)
    config, params = model.config, model.params
    ids = np.random.default_rng(1).integers(0, config.vocab_size, size=(2, 8))

    def caches():
        return [
            KVCache(config.d_k, batch_shape=(2, config.n_heads), capacity=16)
            for _ in range(config.n_layers)
        ]

    ours, theirs = caches(), caches()
    for start, stop in ((0, 6), (6, 7), (7, 8)):
        positions = np.arange(start, stop)
        mask = causal_mask(stop - start, stop)
        step = ids[:, start:stop]
        shown, _ = listing.decoder_forward(params, config, step, positions, mask, ours)
        package, _ = language_model.decoder_forward(
            params, config, step, positions, mask, theirs
        )
        np.testing.assert_array_equal(shown, package)
