"""Tests of attention_docs.softmax: softmax and masked_softmax."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from attention_docs.softmax import masked_softmax, softmax

PROPERTY = settings(deadline=None, max_examples=60, database=None)
FINITE = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
BIG32 = float(np.float32(1e30))  # 1e30 rounded to float32
SCORES = arrays(
    np.float64, array_shapes(min_dims=1, max_dims=3, max_side=5), elements=FINITE
)


def loop_softmax(row: list[float], keep: list[bool] | None = None) -> list[float]:
    """Softmax of one row written from the formula, with math.exp."""
    keep = [True] * len(row) if keep is None else keep
    kept = [x for x, k in zip(row, keep, strict=True) if k]
    if not kept:
        return [0.0] * len(row)
    m = max(kept)
    exps = [math.exp(x - m) if k else 0.0 for x, k in zip(row, keep, strict=True)]
    total = sum(exps)
    return [e / total for e in exps]


# --- values computed by hand -------------------------------------------------


def test_softmax_of_log_weights_gives_the_weights() -> None:
    # e^0 : e^{ln 3} = 1 : 3
    np.testing.assert_allclose(softmax([0.0, math.log(3.0)]), [0.25, 0.75], rtol=1e-15)


def test_softmax_of_equal_entries_is_uniform() -> None:
    assert softmax([2.0, 2.0, 2.0, 2.0]).tolist() == [0.25, 0.25, 0.25, 0.25]


def test_softmax_matches_the_loop_formula() -> None:
    row = [1.0, 2.0, 3.0, -4.5]
    np.testing.assert_allclose(softmax(row), loop_softmax(row), rtol=1e-15)


def test_softmax_along_axis_0_normalises_columns() -> None:
    x = np.array([[0.0, 1.0], [math.log(3.0), 1.0]])
    np.testing.assert_allclose(softmax(x, axis=0), [[0.25, 0.5], [0.75, 0.5]])


def test_integer_input_gives_float64_and_float16_gives_float32() -> None:
    assert softmax([1, 2]).dtype == np.float64
    assert softmax(np.array([True, False])).dtype == np.float64
    assert softmax(np.array([1.0, 2.0], dtype=np.float16)).dtype == np.float32


def test_masked_softmax_by_hand() -> None:
    x = np.array([[0.0, 5.0, math.log(3.0)], [1.0, 2.0, 3.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    out = masked_softmax(x, mask)
    np.testing.assert_allclose(out[0], [0.25, 0.0, 0.75], rtol=1e-15)
    assert out[0, 1] == 0.0
    assert out[1].tolist() == [0.0, 0.0, 0.0]


def test_masked_softmax_broadcasts_the_mask() -> None:
    x = np.zeros((2, 3, 4))
    mask = np.array([True, True, False, False])  # (4,) -> (2, 3, 4)
    out = masked_softmax(x, mask)
    assert out.shape == (2, 3, 4)
    assert np.all(out[..., :2] == 0.5)
    assert np.all(out[..., 2:] == 0.0)


def test_masked_softmax_with_all_true_mask_is_softmax() -> None:
    x = np.array([[1.0, -2.0, 0.5]])
    np.testing.assert_allclose(
        masked_softmax(x, np.ones((1, 3), dtype=bool)), [loop_softmax(x[0].tolist())]
    )


def test_fully_masked_row_is_zero_not_nan_not_uniform() -> None:
    out = masked_softmax(np.array([[1.0, 2.0]]), np.array([[False, False]]))
    assert out.tolist() == [[0.0, 0.0]]


# --- large scores ------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        ([1e4, 1e4 - math.log(3.0)], [0.75, 0.25]),
        ([1e300, 1e300], [0.5, 0.5]),
        ([1e300, -1e300], [1.0, 0.0]),
        ([-1e300, -1e300, -1e300, -1e300], [0.25, 0.25, 0.25, 0.25]),
    ],
)
def test_large_float64_scores_do_not_overflow(
    x: list[float], expected: list[float]
) -> None:
    out = softmax(x)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=0)


def test_large_float32_scores_do_not_overflow() -> None:
    out = softmax(np.array([1e30, 1e30, -1e30], dtype=np.float32))
    assert out.dtype == np.float32
    assert out.tolist() == [0.5, 0.5, 0.0]
    masked = masked_softmax(
        np.array([1e30, 3e38], dtype=np.float32), np.array([True, False])
    )
    assert masked.dtype == np.float32
    assert masked.tolist() == [1.0, 0.0]


# --- properties --------------------------------------------------------------


@PROPERTY
@given(SCORES)
def test_softmax_rows_are_non_negative_and_sum_to_one(x: np.ndarray) -> None:
    w = softmax(x)
    assert w.shape == x.shape
    assert np.all(w >= 0.0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@PROPERTY
@given(SCORES, st.data())
def test_softmax_is_invariant_to_a_constant_per_row(
    x: np.ndarray, data: st.DataObject
) -> None:
    shift = data.draw(arrays(np.float64, (*x.shape[:-1], 1), elements=FINITE))
    np.testing.assert_allclose(softmax(x + shift), softmax(x), rtol=1e-9, atol=1e-15)


@PROPERTY
@given(
    arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)), elements=FINITE)
)
def test_softmax_equals_the_loop_formula(x: np.ndarray) -> None:
    expected = [loop_softmax(row) for row in x.tolist()]
    np.testing.assert_allclose(softmax(x), expected, rtol=1e-12, atol=1e-300)


@PROPERTY
@given(
    arrays(
        np.float32,
        array_shapes(min_dims=1, max_dims=3, max_side=5),
        elements=st.floats(-BIG32, BIG32, width=32),
    )
)
def test_float32_stays_float32_and_sums_to_one(x: np.ndarray) -> None:
    w = softmax(x)
    assert w.dtype == np.float32
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-5)


@st.composite
def scores_and_masks(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    shape = draw(array_shapes(min_dims=1, max_dims=3, max_side=5))
    return draw(arrays(np.float64, shape, elements=FINITE)), draw(
        arrays(np.bool_, shape)
    )


@PROPERTY
@given(scores_and_masks())
def test_masked_entries_are_exactly_zero_and_kept_rows_sum_to_one(
    case: tuple[np.ndarray, np.ndarray],
) -> None:
    x, mask = case
    w = masked_softmax(x, mask)
    assert np.all(w[~mask] == 0.0)
    assert np.all(w >= 0.0)
    sums = w.sum(axis=-1)
    has_key = mask.any(axis=-1)
    np.testing.assert_allclose(sums[has_key], 1.0, rtol=1e-12)
    assert np.all(sums[~has_key] == 0.0)


@PROPERTY
@given(scores_and_masks())
def test_masked_softmax_equals_the_loop_formula(
    case: tuple[np.ndarray, np.ndarray],
) -> None:
    x, mask = case
    rows, keeps = x.reshape(-1, x.shape[-1]), mask.reshape(-1, x.shape[-1])
    expected = [
        loop_softmax(r, k) for r, k in zip(rows.tolist(), keeps.tolist(), strict=True)
    ]
    got = masked_softmax(x, mask).reshape(-1, x.shape[-1])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)


# --- errors ------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_input_raises(bad: float) -> None:
    with pytest.raises(ValueError, match="`x` contains NaN or infinite values"):
        softmax([1.0, bad])
    with pytest.raises(ValueError, match="`x` contains NaN or infinite values"):
        masked_softmax([1.0, bad], [True, False])


def test_non_real_input_raises_type_error() -> None:
    with pytest.raises(
        TypeError, match="`x` must hold real numbers, got dtype complex128"
    ):
        softmax(np.array([1j, 2.0]))


@pytest.mark.parametrize(
    ("mask", "dtype"), [(np.array([1, 0]), "int64"), (np.array([1.0, 0.0]), "float64")]
)
def test_non_boolean_mask_raises_type_error(mask: np.ndarray, dtype: str) -> None:
    with pytest.raises(TypeError, match=f"mask must be boolean .*got dtype {dtype}"):
        masked_softmax([1.0, 2.0], mask)


def test_mask_of_wrong_shape_raises() -> None:
    with pytest.raises(ValueError, match=r"mask of shape \(2, 2\).*\(2, 3\)"):
        masked_softmax(np.zeros((2, 3)), np.ones((2, 2), dtype=bool))
    # the mask must broadcast *to* x, not enlarge it
    with pytest.raises(ValueError, match=r"mask of shape \(4, 2, 3\).*\(2, 3\)"):
        masked_softmax(np.zeros((2, 3)), np.ones((4, 2, 3), dtype=bool))


def test_bad_axis_and_empty_axis_raise() -> None:
    with pytest.raises(
        ValueError, match=r"`axis`=2 is out of range for `x` with shape \(2, 3\)"
    ):
        softmax(np.zeros((2, 3)), axis=2)
    with pytest.raises(
        ValueError, match=r"`x` has no entries along axis 1: shape \(2, 0\)"
    ):
        softmax(np.zeros((2, 0)))
