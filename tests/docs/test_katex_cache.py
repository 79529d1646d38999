"""KaTeX's answers kept between builds (stages/katex.py, ``Katex.save``)."""

from __future__ import annotations

import json
from pathlib import Path

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
    file = katex.Katex.cache_file()
    assert sorted(cache.iterdir()) == sorted([file, katex.Katex.derived_file()])
    assert file.suffix == ".json"

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


def test_what_the_build_makes_of_an_answer_is_kept_too(cache, monkeypatch) -> None:
    """The MathML the book writes and the text the search reads, made once."""
    monkeypatch.setenv("BOOK_MATH", "mathml")
    first = katex.Katex()
    html = first.render(r"\sum_j a_j \mathbf{v}_j", False)
    text = first.readable(r"\sum_j a_j \mathbf{v}_j")
    first.close()
    assert "<math" in html and "\u2211" in text

    def not_again(*args):
        raise AssertionError("made again")

    monkeypatch.setattr(katex, "rewrite_mathml", not_again)
    monkeypatch.setattr(katex, "_readable", not_again)
    second = katex.Katex()
    assert second.render(r"\sum_j a_j \mathbf{v}_j", False) == html
    assert second.readable(r"\sum_j a_j \mathbf{v}_j") == text
    with pytest.raises(AssertionError, match="made again"):
        second.readable(r"\sum_i")
    second.close()


def test_the_derived_file_is_named_by_the_code_that_derives(cache, monkeypatch):
    name = katex.Katex.derived_file()
    module = cache / "katex.py"
    module.write_bytes(Path(katex.__file__).read_bytes() + b"# another rewrite\n")
    monkeypatch.setattr(katex, "__file__", str(module))
    assert katex.Katex.derived_file() != name


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
