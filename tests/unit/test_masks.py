"""Tests of attention_docs.masks: causal_mask, padding_mask, combine_masks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs.masks import causal_mask, combine_masks, padding_mask

PROPERTY = settings(deadline=None, max_examples=60, database=None)


def test_square_causal_mask_is_the_lower_triangle() -> None:
    expected = [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, True, False],
        [True, True, True, True],
    ]
    mask = causal_mask(4)
    assert mask.dtype == np.bool_
    assert mask.tolist() == expected
    assert causal_mask(4, 4).tolist() == expected


def test_causal_mask_fewer_queries_than_keys_is_bottom_right_aligned() -> None:
    # 2 new queries at positions 3 and 4 of 5 cached keys (KV cache)
    assert causal_mask(2, 5).tolist() == [
        [True, True, True, True, False],
        [True, True, True, True, True],
    ]
    # one query (decoding step) sees every key
    assert causal_mask(1, 3).tolist() == [[True, True, True]]


def test_causal_mask_more_queries_than_keys_masks_the_first_rows_fully() -> None:
    assert causal_mask(4, 2).tolist() == [
        [False, False],
        [False, False],
        [True, False],
        [True, True],
    ]


@PROPERTY
@given(st.integers(1, 12), st.integers(1, 12))
def test_causal_mask_follows_the_formula(n_q: int, n_k: int) -> None:
    expected = [[j <= i + (n_k - n_q) for j in range(n_k)] for i in range(n_q)]
    mask = causal_mask(n_q, n_k)
    assert mask.shape == (n_q, n_k)
    assert mask.tolist() == expected
    # the last query always sees every key (it is the newest position)
    assert mask[-1].all()


def test_causal_mask_differs_from_top_left_alignment_when_not_square() -> None:
    top_left = np.tril(np.ones((2, 4), dtype=bool))  # PyTorch's is_causal=True
    assert not np.array_equal(causal_mask(2, 4), top_left)
    assert np.array_equal(causal_mask(3, 3), np.tril(np.ones((3, 3), dtype=bool)))


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3", None])
def test_causal_mask_rejects_bad_sizes(bad: object) -> None:
    with pytest.raises(ValueError, match="`n_q` must be a positive integer"):
        causal_mask(bad)  # type: ignore[arg-type]
    if bad is not None:
        with pytest.raises(ValueError, match="`n_k` must be a positive integer"):
            causal_mask(2, bad)  # type: ignore[arg-type]


def test_causal_mask_accepts_numpy_integers() -> None:
    assert causal_mask(np.int64(2)).tolist() == [[True, False], [True, True]]


def test_padding_mask_by_hand() -> None:
    mask = padding_mask([3, 1, 0, 4], n_k=4)
    assert mask.dtype == np.bool_
    assert mask.shape == (4, 1, 4)
    assert mask[:, 0].tolist() == [
        [True, True, True, False],
        [True, False, False, False],
        [False, False, False, False],
        [True, True, True, True],
    ]


def test_padding_mask_broadcasts_against_batch_scores() -> None:
    scores_shape = (2, 3, 4)  # (batch, n_q, n_k)
    mask = np.broadcast_to(padding_mask(np.array([2, 4]), 4), scores_shape)
    assert mask[0].tolist() == [[True, True, False, False]] * 3
    assert mask[1].all()


def test_padding_mask_of_an_empty_batch() -> None:
    assert padding_mask([], 3).shape == (0, 1, 3)


@pytest.mark.parametrize("lengths", [[-1, 2], [2, 5]])
def test_padding_mask_rejects_lengths_outside_the_range(lengths: list[int]) -> None:
    with pytest.raises(
        ValueError, match=r"`lengths` must lie in \[0, n_k\] = \[0, 4\]"
    ):
        padding_mask(lengths, 4)


@pytest.mark.parametrize("lengths", [3, [[1, 2]]])
def test_padding_mask_rejects_lengths_that_are_not_1d(lengths: object) -> None:
    with pytest.raises(ValueError, match=r"`lengths` must be 1-D .*got shape"):
        padding_mask(lengths, 4)  # type: ignore[arg-type]


def test_padding_mask_rejects_non_integer_lengths_and_bad_n_k() -> None:
    with pytest.raises(
        TypeError, match="`lengths` must hold integers, got dtype float64"
    ):
        padding_mask([1.0, 2.0], 4)
    with pytest.raises(ValueError, match="`n_k` must be a positive integer, got 0"):
        padding_mask([0], 0)


def test_combine_masks_is_a_logical_and_with_broadcasting() -> None:
    causal = causal_mask(3)  # (3, 3)
    padding = padding_mask([3, 2], 3)  # (2, 1, 3)
    combined = combine_masks(causal, padding)
    assert combined.shape == (2, 3, 3)
    assert combined[0].tolist() == causal.tolist()
    assert combined[1].tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, False],
    ]


def test_combine_one_mask_returns_an_equal_new_array() -> None:
    mask = np.array([[True, False]])
    combined = combine_masks(mask)
    assert combined.tolist() == mask.tolist()
    assert not np.shares_memory(combined, mask)


def test_combine_three_masks() -> None:
    a = np.array([True, True, True, False])
    b = np.array([True, True, False, True])
    c = np.array([[False, True, True, True]])
    assert combine_masks(a, b, c).tolist() == [[False, True, False, False]]


def test_combine_masks_needs_at_least_one_mask() -> None:
    with pytest.raises(TypeError, match="at least one mask"):
        combine_masks()


@pytest.mark.parametrize("bad", [np.array([1, 0]), np.array([1.0, 0.0])])
def test_combine_masks_rejects_non_boolean_masks(bad: np.ndarray) -> None:
    with pytest.raises(
        TypeError, match=rf"masks\[1\] must be boolean .*got dtype {bad.dtype}"
    ):
        combine_masks(np.array([True, False]), bad)


def test_combine_masks_rejects_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(ValueError, match=r"do not broadcast.*\(2, 3\), \(4,\)"):
        combine_masks(np.ones((2, 3), dtype=bool), np.ones(4, dtype=bool))
