r"""Text to token ids and back: a character-level tokenizer.

A language model reads integers, not text. :class:`CharTokenizer` gives every
character of a corpus its own id, which is the natural unit of Japanese and
Chinese text (one character is one syllable and, very often, one morpheme),
and needs no dictionary. A few ids are reserved:

- ``PAD`` (id 0) fills the rows of a batch whose sequences are shorter;
- ``UNK`` (id 1) stands for a character the vocabulary does not hold.

Subword tokenizers (byte-pair encoding, Sennrich et al., 2016, "Neural
Machine Translation of Rare Words with Subword Units", ACL 2016; the unigram
language model, Kudo, 2018, ACL 2018) merge frequent sequences of characters
into one token; the book's page "From text to tokens" (tokens.md) trains one
with the ``sentencepiece`` library on the same text and compares.

>>> tok = CharTokenizer.from_text("注意は注意")
>>> tok.vocab
('<pad>', '<unk>', 'は', '意', '注')
>>> tok.encode("注意は")
[4, 3, 2]
>>> tok.decode([4, 3, 2])
'注意は'
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_positive_int, shown

__all__ = ["PAD", "SPECIAL_TOKENS", "UNK", "CharTokenizer"]

#: Id of the padding token ``"<pad>"``.
PAD = 0
#: Id of the unknown-character token ``"<unk>"``.
UNK = 1
#: The reserved tokens, in the order of their ids.
SPECIAL_TOKENS = ("<pad>", "<unk>")


class CharTokenizer:
    r"""One token per character; ids 0 and 1 reserved for padding and unknown.

    Parameters
    ----------
    vocab : sequence of str
        The tokens in the order of their ids: ``"<pad>"``, ``"<unk>"``, then
        single characters, each once.

    Attributes
    ----------
    vocab : tuple of str
        As given; ``len(tokenizer)`` is its length, the model's vocabulary
        size :math:`V`.

    Raises
    ------
    ValueError
        If ``vocab`` does not start with ``"<pad>"``, ``"<unk>"``, or holds a
        token that is not one character, or a character twice.
    TypeError
        If ``vocab`` is a string or holds something other than strings.

    Notes
    -----
    A character is a Unicode code point: text in the NFC form is encoded as
    it is written (the book's pages are), and no normalisation is applied.
    Memory: the vocabulary and a dictionary from character to id, O(V).

    Examples
    --------
    >>> tok = CharTokenizer(["<pad>", "<unk>", "a", "b"])
    >>> tok.encode("abc")  # "c" is unknown
    [2, 3, 1]
    >>> len(tok)
    4
    """

    def __init__(self, vocab: Sequence[str]) -> None:
        if isinstance(vocab, str):
            raise TypeError("`vocab` must be a sequence of tokens, not one string")
        tokens = tuple(vocab)
        for token in tokens:
            if not isinstance(token, str):
                raise TypeError(
                    f"`vocab` must hold strings, got {type(token).__name__} "
                    f"{shown(token)}"
                )
        if tokens[: len(SPECIAL_TOKENS)] != SPECIAL_TOKENS:
            raise ValueError(
                f"`vocab` must start with {SPECIAL_TOKENS}, got "
                f"{tokens[: len(SPECIAL_TOKENS)]}"
            )
        chars = tokens[len(SPECIAL_TOKENS) :]
        for char in chars:
            if len(char) != 1:
                raise ValueError(
                    f"every token of `vocab` after the special ones must be one "
                    f"character, got {char!r}"
                )
        if len(set(chars)) != len(chars):
            twice = sorted(c for c, n in collections.Counter(chars).items() if n > 1)
            raise ValueError(f"`vocab` holds characters twice: {twice}")
        self._vocab = tokens
        self._ids = {char: i for i, char in enumerate(tokens)}

    @classmethod
    def from_text(
        cls, text: str | Iterable[str], *, min_count: int = 1
    ) -> CharTokenizer:
        """The tokenizer of every character that occurs ``min_count`` times or more.

        Parameters
        ----------
        text : str or iterable of str
            The corpus (or its pieces).
        min_count : int, optional
            A character seen fewer times becomes ``UNK`` (default 1: keep all).

        Returns
        -------
        CharTokenizer
            The special tokens, then the characters in code-point order, so
            that the same text always gives the same ids.

        Raises
        ------
        ValueError
            If ``min_count`` is not a positive integer.
        TypeError
            If ``text`` is not a string or an iterable of strings.
        """
        min_count = check_positive_int("min_count", min_count)
        pieces = [text] if isinstance(text, str) else list(text)
        counts: collections.Counter[str] = collections.Counter()
        for piece in pieces:
            if not isinstance(piece, str):
                raise TypeError(
                    f"`text` must be a string or strings, got {type(piece).__name__}"
                )
            counts.update(piece)
        kept = sorted(char for char, n in counts.items() if n >= min_count)
        return cls((*SPECIAL_TOKENS, *kept))

    @property
    def vocab(self) -> tuple[str, ...]:
        """The tokens in the order of their ids."""
        return self._vocab

    def __len__(self) -> int:
        return len(self._vocab)

    def __repr__(self) -> str:
        return f"CharTokenizer(<{len(self)} tokens>)"

    def encode(self, text: str) -> list[int]:
        """The id of every character of ``text`` (``UNK`` for an unknown one).

        Raises
        ------
        TypeError
            If ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"`text` must be a string, got {type(text).__name__}")
        return [self._ids.get(char, UNK) for char in text]

    def decode(self, ids: ArrayLike) -> str:
        """The text of the ids ``ids``; padding is dropped, ``UNK`` shown as ``"�"``.

        Parameters
        ----------
        ids : array_like of int, shape (n,)
            Token ids, each in ``[0, len(self))``.

        Raises
        ------
        ValueError
            If ``ids`` is not one-dimensional or holds an id out of range.
        TypeError
            If ``ids`` does not hold integers.
        """
        array = np.asarray(ids)
        if array.size == 0:
            return ""
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"`ids` must hold integers, got dtype {array.dtype}")
        if array.ndim != 1:
            raise ValueError(f"`ids` must be one-dimensional, got shape {array.shape}")
        if array.min() < 0 or array.max() >= len(self):
            raise ValueError(
                f"`ids` must lie in [0, {len(self)}), got values from "
                f"{int(array.min())} to {int(array.max())}"
            )
        shown_tokens = {PAD: "", UNK: "\N{REPLACEMENT CHARACTER}"}
        return "".join(shown_tokens.get(int(i), self._vocab[int(i)]) for i in array)
