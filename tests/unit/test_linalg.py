"""Tests of attention_docs.linalg: x A = sum_i x_i a_i (the row-vector product)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_docs.linalg import row_times_matrix, weighted_sum_of_rows

PROPERTY = settings(deadline=None, max_examples=60, database=None)
FINITE = st.floats(-100, 100, allow_nan=False, allow_infinity=False)


def test_the_worked_example_both_ways() -> None:
    # (5, 6) [[1, 2], [3, 4]] = (5*1 + 6*3, 5*2 + 6*4) = 5 (1, 2) + 6 (3, 4) = (23, 34)
    assert row_times_matrix([5, 6], [[1, 2], [3, 4]]).tolist() == [23.0, 34.0]
    assert weighted_sum_of_rows([5, 6], [[1, 2], [3, 4]]).tolist() == [23.0, 34.0]


def test_one_hot_x_selects_a_row() -> None:
    b = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert row_times_matrix([0, 1], b).tolist() == [4.0, 5.0, 6.0]
    assert weighted_sum_of_rows([1, 0], b).tolist() == [1.0, 2.0, 3.0]


def test_float32_is_kept() -> None:
    x = np.array([1.0, 2.0], dtype=np.float32)
    b = np.eye(2, dtype=np.float32)
    assert row_times_matrix(x, b).dtype == np.float32
    assert weighted_sum_of_rows(x, b).dtype == np.float32


@st.composite
def vector_and_matrix(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    m, k = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    return (
        draw(arrays(np.float64, (m,), elements=FINITE)),
        draw(arrays(np.float64, (m, k), elements=FINITE)),
    )


@PROPERTY
@given(vector_and_matrix())
def test_both_sides_equal_the_index_formula(
    case: tuple[np.ndarray, np.ndarray],
) -> None:
    x, b = case
    m, d = b.shape
    expected = [math.fsum(x[i] * b[i, j] for i in range(m)) for j in range(d)]
    np.testing.assert_allclose(row_times_matrix(x, b), expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        weighted_sum_of_rows(x, b), expected, rtol=1e-9, atol=1e-9
    )


def test_length_mismatch_names_x_and_b_and_both_shapes() -> None:
    for function in (row_times_matrix, weighted_sum_of_rows):
        with pytest.raises(
            ValueError, match=r"`x` has m=3 but `b` has m=2: shapes \(3,\) and \(2, 2\)"
        ):
            function([1, 2, 3], [[1, 2], [3, 4]])


def test_wrong_dimensions_raise() -> None:
    for function in (row_times_matrix, weighted_sum_of_rows):
        with pytest.raises(
            ValueError, match=r"`x` must have shape \(m,\), got shape \(1, 2\)"
        ):
            function([[5, 6]], [[1, 2], [3, 4]])
        with pytest.raises(
            ValueError, match=r"`b` must have shape \(m, d\), got shape \(2,\)"
        ):
            function([5, 6], [1, 2])


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_input_raises(bad: float) -> None:
    for function in (row_times_matrix, weighted_sum_of_rows):
        with pytest.raises(ValueError, match="`x` contains NaN or infinite values"):
            function([bad, 1.0], [[1, 2], [3, 4]])
        with pytest.raises(ValueError, match="`b` contains NaN or infinite values"):
            function([1.0, 1.0], [[1, 2], [3, bad]])


def test_overflow_raises_instead_of_returning_inf() -> None:
    for function in (row_times_matrix, weighted_sum_of_rows):
        with pytest.raises(
            ValueError, match=r"`x` @ `b` overflows float64: shapes \(2,\) and \(2, 1\)"
        ):
            function([1e200, 1e200], [[1e200], [1e200]])


def test_a_partial_sum_that_overflows_is_no_error() -> None:
    # 1e308 + 1e308 - 1e308 + 2 = 1e308 (+ 2): the sum fits, a partial sum not
    for function in (row_times_matrix, weighted_sum_of_rows):
        out = function([1e308, 1e308, -1e308, 1.0], [[1.0, 1.0]] * 3 + [[2.0, 0.5]])
        np.testing.assert_allclose(out, [1e308, 1e308], rtol=1e-15)
