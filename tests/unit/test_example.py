"""The running example: its numbers are the ones the book computes by hand."""

from __future__ import annotations

import math

import numpy as np

from attention_docs import running_example, scaled_dot_product_attention


def test_shapes_and_dtype() -> None:
    x, w_q, w_k, w_v = running_example()
    assert x.shape == (3, 4)
    assert w_q.shape == w_k.shape == w_v.shape == (4, 4)
    assert {a.dtype for a in (x, w_q, w_k, w_v)} == {np.dtype(np.float64)}


def test_every_call_returns_new_arrays() -> None:
    first = running_example()
    first.x[0, 0] = 99.0
    assert running_example().x[0, 0] == 1.0


def test_the_raw_scores_are_the_books_integers() -> None:
    x, w_q, w_k, _ = running_example()
    # Q K^T, entry by entry, as the pages compute it by hand.
    expected = [[1, 2, 1], [1, 1, 2], [2, 1, 1]]
    q, k = x @ w_q, x @ w_k
    for i in range(3):
        for j in range(3):
            assert sum(q[i, p] * k[j, p] for p in range(4)) == expected[i][j]


def test_weights_and_output_match_the_hand_computation() -> None:
    x, w_q, w_k, w_v = running_example()
    # softmax(0.5, 1, 0.5) with math.exp: each row is a rotation of it.
    e_half, e_one = math.exp(0.5), math.exp(1.0)
    small, large = e_half / (2 * e_half + e_one), e_one / (2 * e_half + e_one)
    assert round(small, 3) == 0.274 and round(large, 3) == 0.452
    weights = np.array(
        [[small, large, small], [small, small, large], [large, small, small]]
    )
    v = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]], dtype=float)
    np.testing.assert_array_equal(x @ w_v, v)
    output = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    np.testing.assert_allclose(output, weights @ v, rtol=1e-15, atol=0)
