"""KaTeX's answers kept between builds (stages/katex.py, ``Katex.save``)."""

from __future__ import annotations

import json

import pytest

from attention_book.stages import katex


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(katex, "CACHE", tmp_path)
    monkeypatch.delenv("BOOK_KATEX_CACHE", raising=False)
    return tmp_path


def test_a_formula_typeset_once_is_taken_from_the_cache_by_the_next_build(
    cache, monkeypatch
) -> None:
    first = katex.Katex()
    html = first.render(r"\frac{QK^\top}{\sqrt{d_k}}", True)
    first.close()
    (file,) = cache.iterdir()
    assert file == katex.Katex.cache_file() and file.suffix == ".json"

    def no_katex(self):
        raise AssertionError("KaTeX was started for a formula in the cache")

    monkeypatch.setattr(katex.Katex, "_start", no_katex)
    second = katex.Katex()
    assert second.render(r"\frac{QK^\top}{\sqrt{d_k}}", True) == html
    # Inline and display are different answers.
    with pytest.raises(AssertionError, match="was started"):
        second.render(r"\frac{QK^\top}{\sqrt{d_k}}", False)
    second.close()
    assert json.loads(file.read_text())[0][:2] == [r"\frac{QK^\top}{\sqrt{d_k}}", True]


def test_an_error_is_never_kept(cache) -> None:
    build = katex.Katex()
    with pytest.raises(katex.KatexError):
        build.render(r"\frac{1}", False)
    build.close()
    assert not list(cache.iterdir())


def test_the_file_is_named_by_katex_and_its_options(cache, monkeypatch) -> None:
    name = katex.Katex.cache_file()
    server = cache / "katex_server.js"
    server.write_bytes(katex.SERVER.read_bytes() + b"// other options\n")
    monkeypatch.setattr(katex, "SERVER", server)
    assert katex.Katex.cache_file() != name
    monkeypatch.setenv("BOOK_KATEX_CACHE", "0")
    assert katex.Katex.cache_file() is None


def test_an_unreadable_file_is_typeset_anew(cache) -> None:
    path = katex.Katex.cache_file()
    path.write_text('[["x", fal')  # a file cut short
    build = katex.Katex()
    assert "katex" in build.render("x", False)
    build.close()
    assert json.loads(path.read_text())[0][:2] == ["x", False]
