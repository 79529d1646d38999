"""Tests of attention_docs.tokenizer: characters to ids and back."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs.tokenizer import PAD, SPECIAL_TOKENS, UNK, CharTokenizer

PROPERTY = settings(deadline=None, max_examples=50, database=None)


def test_ids_follow_the_code_points_after_the_special_tokens() -> None:
    tok = CharTokenizer.from_text("猫が座る。猫")
    assert tok.vocab == ("<pad>", "<unk>", "。", "が", "る", "座", "猫")
    assert tok.encode("猫が") == [6, 3]
    assert (PAD, UNK) == (0, 1)


def test_unknown_characters_and_padding() -> None:
    tok = CharTokenizer.from_text("ab")
    assert tok.encode("abz") == [2, 3, UNK]
    assert tok.decode([PAD, 2, UNK, 3, PAD]) == "a\N{REPLACEMENT CHARACTER}b"
    assert tok.decode([]) == ""


def test_min_count_drops_rare_characters() -> None:
    tok = CharTokenizer.from_text(["aab", "a"], min_count=2)
    assert tok.vocab == (*SPECIAL_TOKENS, "a")
    assert tok.encode("ab") == [2, UNK]


@PROPERTY
@given(st.text(min_size=1, max_size=40))
def test_decode_inverts_encode_on_the_training_text(text: str) -> None:
    tok = CharTokenizer.from_text(text)
    assert tok.decode(tok.encode(text)) == text
    assert len(tok) == 2 + len(set(text))


@pytest.mark.parametrize(
    ("vocab", "error", "message"),
    [
        ("abc", TypeError, "not one string"),
        (["<pad>", "<unk>", 3], TypeError, "must hold strings"),
        (["<unk>", "<pad>", "a"], ValueError, "must start with"),
        (["<pad>", "<unk>", "ab"], ValueError, "one character"),
        (["<pad>", "<unk>", "a", "a"], ValueError, r"twice: \['a'\]"),
    ],
)
def test_bad_vocabularies_are_refused(vocab, error, message) -> None:
    with pytest.raises(error, match=message):
        CharTokenizer(vocab)


def test_bad_arguments_name_themselves() -> None:
    tok = CharTokenizer.from_text("ab")
    with pytest.raises(TypeError, match="`text` must be a string"):
        tok.encode(b"ab")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`ids` must lie in \[0, 4\)"):
        tok.decode([0, 4])
    with pytest.raises(TypeError, match="`ids` must hold integers"):
        tok.decode(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="one-dimensional"):
        tok.decode([[0, 1]])
    with pytest.raises(ValueError, match="`min_count`"):
        CharTokenizer.from_text("ab", min_count=0)
    with pytest.raises(TypeError, match="`text` must be a string or strings"):
        CharTokenizer.from_text(["a", 1])  # type: ignore[list-item]
