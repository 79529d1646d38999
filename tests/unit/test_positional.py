"""Tests of attention_docs.positional: sinusoidal encodings and RoPE.

Expected values come from the formulas evaluated with Python's math module,
entry by entry, not from the vectorised code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs.positional import apply_rope, sinusoidal_positional_encoding

PROPERTY = settings(deadline=None, max_examples=50, database=None)


def test_sinusoidal_encoding_entry_by_entry() -> None:
    n, d = 7, 6
    pe = sinusoidal_positional_encoding(n, d)
    for pos in range(n):
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            assert pe[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-15)
            assert pe[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-15)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_pe_at_pos_plus_k_is_a_linear_function_of_pe_at_pos(k: int) -> None:
    d = 8
    pe = sinusoidal_positional_encoding(40, d)
    m = np.zeros((d, d))  # one 2 x 2 rotation per pair, the same for every pos
    for i in range(d // 2):
        a = k / 10000 ** (2 * i / d)
        # (sin(x + a), cos(x + a)) = (sin x, cos x) @ [[cos a, -sin a], [sin a, cos a]]
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [math.cos(a), -math.sin(a)],
            [math.sin(a), math.cos(a)],
        ]
    np.testing.assert_allclose(pe[:-k] @ m, pe[k:], atol=1e-12)


def test_rope_entry_by_entry() -> None:
    x = np.arange(1.0, 9.0).reshape(2, 4)
    out = apply_rope(x, positions=[2, 5], base=100.0)
    for row, m in enumerate([2, 5]):
        for i in range(2):
            a = m * 100.0 ** (-2 * i / 4)
            x0, x1 = x[row, 2 * i], x[row, 2 * i + 1]
            assert out[row, 2 * i] == pytest.approx(x0 * math.cos(a) - x1 * math.sin(a))
            assert out[row, 2 * i + 1] == pytest.approx(
                x0 * math.sin(a) + x1 * math.cos(a)
            )


@PROPERTY
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 4),
    st.integers(-50, 50),
    st.integers(-50, 50),
    st.integers(-50, 50),
)
def test_rope_scores_depend_only_on_the_offset(seed, half, m, n, shift) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, 1, 2 * half))
    s1 = (apply_rope(q, [m]) @ apply_rope(k, [n]).T).item()
    s2 = (apply_rope(q, [m + shift]) @ apply_rope(k, [n + shift]).T).item()
    assert s1 == pytest.approx(s2, rel=1e-9, abs=1e-9)


@PROPERTY
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 4))
def test_rope_keeps_every_norm_and_position_zero_is_identity(seed, n, half) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, n, 2 * half))
    out = apply_rope(x)
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12
    )
    np.testing.assert_array_equal(out[:, 0], x[:, 0])


def test_rope_positions_broadcast_and_float32_stays() -> None:
    x = np.ones((2, 3, 4), dtype=np.float32)
    out = apply_rope(x, positions=np.array([[0, 1, 2], [5, 6, 7]]))
    assert out.shape == (2, 3, 4) and out.dtype == np.float32
    np.testing.assert_allclose(out[1, 0], apply_rope(x[0], [5, 6, 7])[0], rtol=1e-6)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sinusoidal_positional_encoding(3, 5), r"`d_model`=5 must be even"),
        (lambda: sinusoidal_positional_encoding(0, 4), r"`n` must be a positive"),
        (lambda: apply_rope(np.ones((2, 3))), r"`d`=3 \(`x` of shape \(2, 3\)\)"),
        (lambda: apply_rope(np.ones(4)), r"`x` must have shape \(\.\.\., n, d\)"),
        (lambda: apply_rope(np.ones((2, 4)), [1, 2, 3]), r"`positions` of shape"),
        (lambda: apply_rope(np.ones((2, 4)), [0, np.nan]), r"`positions` contains"),
        (lambda: apply_rope(np.ones((2, 4)), base=1.0), r"`base` must be"),
        (lambda: apply_rope(np.ones((2, 4)), base=True), r"`base` must be"),
        (lambda: apply_rope(np.full((2, 4), 1.7e308)), r"rotating `x` overflows"),
    ],
)
def test_bad_arguments_raise(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()
