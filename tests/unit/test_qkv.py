"""Tests of attention_docs.qkv: the Query / Key / Value objects of the object view."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_docs.attention import scaled_dot_product_attention
from attention_docs.qkv import Key, Query, Value

EXAMPLE_KEYS = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
EXAMPLE_VALUES = [[0.5, 0.2, 0.1], [0.1, 0.7, 0.3], [0.3, 0.4, 0.6]]
EXAMPLE_QUERY = [0.2, 0.8, 0.1]


def reference_loops(query, keys, values):
    """The object view's example as plain loops, independent of the package."""
    scores = np.array([np.dot(query, key) for key in keys])
    exp_scores = np.exp(scores - np.max(scores))
    attention_weights = exp_scores / np.sum(exp_scores)
    output = sum(w * v for w, v in zip(attention_weights, values, strict=True))
    return output, attention_weights


def example_objects():
    keys = [Key(np.array(k)) for k in EXAMPLE_KEYS]
    values = [Value(np.array(v)) for v in EXAMPLE_VALUES]
    return Query(np.array(EXAMPLE_QUERY)), keys, values


def test_the_example_output_prints_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    query, keys, values = example_objects()
    output_vector, _ = query.retrieve_values(keys, values, scaled=False)
    print("Output vector:", output_vector)
    assert (
        capsys.readouterr().out == "Output vector: [0.25588256 0.4930077  0.31917147]\n"
    )
    # the value as first printed elsewhere, whitespace normalised
    assert str(output_vector).split() == "[0.25588256 0.4930077 0.31917147]".split()


def test_the_example_matches_the_reference_loops() -> None:
    query, keys, values = example_objects()
    output, weights = query.retrieve_values(keys, values, scaled=False)
    ref_output, ref_weights = reference_loops(
        EXAMPLE_QUERY, np.array(EXAMPLE_KEYS), np.array(EXAMPLE_VALUES)
    )
    np.testing.assert_allclose(output, ref_output, rtol=1e-15)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-15)
    assert output.shape == (3,) and weights.shape == (3,)


def test_weights_are_the_unscaled_softmax_by_hand() -> None:
    query, keys, _ = example_objects()
    # one-hot keys: the scores are the query's entries, not divided by sqrt(3)
    exps = [math.exp(s) for s in EXAMPLE_QUERY]
    expected = [e / sum(exps) for e in exps]
    np.testing.assert_allclose(
        query.compute_attention_weights(keys, scaled=False), expected, rtol=1e-15
    )


def test_scaled_weights_divide_the_scores_by_sqrt_d_k() -> None:
    query, keys, values = example_objects()
    exps = [math.exp(s / math.sqrt(3)) for s in EXAMPLE_QUERY]
    expected = [e / sum(exps) for e in exps]
    np.testing.assert_allclose(
        query.compute_attention_weights(keys, scaled=True), expected, rtol=1e-15
    )
    output, weights = query.retrieve_values(keys, values, scaled=True)
    np.testing.assert_allclose(weights, expected, rtol=1e-15)
    expected_output = [
        sum(w * v[c] for w, v in zip(expected, EXAMPLE_VALUES, strict=True))
        for c in range(3)
    ]
    np.testing.assert_allclose(output, expected_output, rtol=1e-14)


def test_scaled_by_default_like_every_other_function() -> None:
    # the default divides by sqrt(d_k), as scaled_dot_product_attention does
    query, keys, values = example_objects()
    q, k = np.array([EXAMPLE_QUERY]), np.array(EXAMPLE_KEYS)
    want_out, want_w = scaled_dot_product_attention(
        q, k, np.array(EXAMPLE_VALUES), return_weights=True
    )
    np.testing.assert_allclose(query.compute_attention_weights(keys), want_w[0])
    output, weights = query.retrieve_values(keys, values)
    np.testing.assert_allclose(weights, want_w[0])
    np.testing.assert_allclose(output, want_out[0])


def test_retrieve_by_hand() -> None:
    keys = [Key([1.0, 0.0]), Key([0.0, 1.0])]
    values = [Value([4.0, 0.0]), Value([0.0, 8.0])]
    output, weights = Query([math.log(3.0), 0.0]).retrieve_values(
        keys, values, scaled=False
    )
    np.testing.assert_allclose(weights, [0.75, 0.25], rtol=1e-15)
    np.testing.assert_allclose(output, [3.0, 2.0], rtol=1e-15)


def test_keys_can_be_any_iterable() -> None:
    query, keys, values = example_objects()
    out, _ = query.retrieve_values(iter(keys), tuple(values), scaled=False)
    np.testing.assert_allclose(out, [0.25588256, 0.4930077, 0.31917147], atol=5e-9)


def test_vectors_are_stored_as_float_arrays_and_repr() -> None:
    key = Key([1, 0, 0])
    assert key.vector.dtype == np.float64
    assert key.vector.tolist() == [1.0, 0.0, 0.0]
    assert repr(key) == "Key([1.0, 0.0, 0.0])"
    assert repr(Value([0.5, 0.25])) == "Value([0.5, 0.25])"
    assert repr(Query([0.2])) == "Query([0.2])"


# --- errors ------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Key, Value, Query])
def test_vector_must_be_finite_and_1d(cls) -> None:
    with pytest.raises(
        ValueError, match=r"`vector` must have shape \(d,\), got shape \(1, 2\)"
    ):
        cls([[1.0, 2.0]])
    with pytest.raises(ValueError, match="`vector` contains NaN or infinite values"):
        cls([1.0, math.nan])


def test_empty_keys_or_values_raise() -> None:
    query, keys, _ = example_objects()
    with pytest.raises(ValueError, match="`keys` is empty: need at least one Key"):
        query.compute_attention_weights([])
    with pytest.raises(ValueError, match="`values` is empty: need at least one Value"):
        query.retrieve_values(keys, [])


def test_wrong_object_types_raise_type_error() -> None:
    query, keys, values = example_objects()
    with pytest.raises(TypeError, match=r"`keys\[1\]` must be a Key, got Value"):
        query.compute_attention_weights([keys[0], values[1]])
    with pytest.raises(TypeError, match=r"`values\[0\]` must be a Value, got ndarray"):
        query.retrieve_values(keys, [np.ones(3)] * 3)


def test_dimension_mismatches_name_the_objects_and_shapes() -> None:
    query, keys, values = example_objects()
    with pytest.raises(
        ValueError,
        match=r"`keys\[0\]` has dimension=3 but `keys\[2\]` has dimension=2"
        r": shapes \(3,\) and \(2,\)",
    ):
        query.compute_attention_weights([keys[0], keys[1], Key([1.0, 0.0])])
    with pytest.raises(
        ValueError,
        match=r"`query` has d_k=2 but `keys` has d_k=3: shapes \(2,\) and \(3, 3\)",
    ):
        Query([1.0, 0.0]).compute_attention_weights(keys)
    with pytest.raises(ValueError, match=r"`query` has d_k=2 but `keys` has d_k=3"):
        Query([1.0, 0.0]).retrieve_values(keys, values)
    with pytest.raises(
        ValueError,
        match=r"`keys` has n_keys=3 but `values` has n_keys=2"
        r": shapes \(3, 3\) and \(2, 3\)",
    ):
        query.retrieve_values(keys, values[:2])
    with pytest.raises(
        ValueError,
        match=r"`values\[0\]` has dimension=3 but `values\[1\]` has dimension=2",
    ):
        query.retrieve_values(keys, [values[0], Value([1.0, 2.0]), values[2]])
