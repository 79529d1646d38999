"""The promises of every public function's docstring, as Hypothesis properties.

Each property draws arguments (batch dimensions that broadcast, with sizes
of 0 among them, float32 and float64, values of every magnitude where the
function promises to handle them) and checks what the docstring promises:

- the shape, with zero-size dimensions kept as numpy's ``matmul`` keeps them;
- the dtype (float32 stays float32, anything mixed gives float64);
- the values, against the formula written out literally in this file (loops,
  ``math.fsum``, exact ``Fraction``/``Decimal`` arithmetic), never against
  the package's own code;
- no warning and no floating-point exception, under ``np.errstate(all="raise")``
  with every warning an error;
- the caller's arrays are never changed, and a call that raises leaves an
  object's state as it was;
- every error names the argument the caller passed.

The settings keep the whole file to a few seconds: few examples each, no
deadline (the first call of a function is slow), no example database.
"""

from __future__ import annotations

import math
import re
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import attention_docs as ad
from attention_docs.training import (
    Adam,
    alignment_accuracy,
    cross_entropy,
    forward,
    init_params,
    loss_and_gradients,
    reversal_task,
    train,
)

PROPERTY = settings(
    max_examples=20,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
FLOATS = (np.float32, np.float64)


# -- helpers -------------------------------------------------------------------


@contextmanager
def strict() -> Iterator[None]:
    """Every warning an error, every floating-point event an exception."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            yield


def call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` under :func:`strict`; no array argument changes."""
    arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, np.ndarray)]
    before = [(a.copy(), a.dtype, a.shape) for a in arrays]
    try:
        with strict():
            return function(*args, **kwargs)
    finally:
        for a, (copy, dtype, shape) in zip(arrays, before, strict=True):
            assert a.dtype == dtype and a.shape == shape
            np.testing.assert_array_equal(a, copy, err_msg="an argument changed")


def expected_dtype(*arrays: np.ndarray) -> np.dtype[Any]:
    """float32 if every array is float32, float64 otherwise."""
    if all(a.dtype == np.float32 for a in arrays):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def precision(*arrays: np.ndarray) -> np.dtype[Any]:
    """float32 if any array is float32: the computation is only that precise."""
    if any(a.dtype == np.float32 for a in arrays):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def tolerance(dtype: np.dtype[Any]) -> dict[str, float]:
    return (
        {"rtol": 2e-4, "atol": 1e-5}
        if dtype == np.float32
        else {
            "rtol": 1e-9,
            "atol": 1e-12,
        }
    )


@st.composite
def random_array(draw: st.DrawFn, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A standard-normal array of ``shape`` and ``dtype`` (a drawn seed)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.standard_normal(shape).astype(dtype)


@st.composite
def qkv_arguments(draw: st.DrawFn, *, mask: bool = True) -> dict[str, Any]:
    """q, k, v (maybe a mask) with broadcasting batch dimensions, sizes 0 included."""
    batch = draw(
        mutually_broadcastable_shapes(
            num_shapes=3, min_dims=0, max_dims=2, min_side=0, max_side=2
        )
    )
    q_batch, k_batch, v_batch = batch.input_shapes
    # the mask broadcasts to the batch of q, k and v: some of its dimensions
    # kept, others 1, leading ones dropped
    full = np.broadcast_shapes(q_batch, k_batch, v_batch)
    kept = [draw(st.sampled_from([n, 1])) for n in full]
    m_batch = tuple(kept[draw(st.integers(0, len(kept))) :])
    n_q = draw(st.integers(0, 3))
    n_k = draw(st.integers(1, 3))
    d_k = draw(st.integers(1, 3))
    d_v = draw(st.integers(0, 3))
    dtypes = [draw(st.sampled_from(FLOATS)) for _ in range(3)]
    args = {
        "q": draw(random_array((*q_batch, n_q, d_k), dtypes[0])),
        "k": draw(random_array((*k_batch, n_k, d_k), dtypes[1])),
        "v": draw(random_array((*v_batch, n_k, d_v), dtypes[2])),
    }
    if mask and draw(st.booleans()):
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        args["mask"] = rng.random((*m_batch, n_q, n_k)) < 0.6
    return args


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def batch_of(*arrays: np.ndarray) -> tuple[int, ...]:
    return np.broadcast_shapes(*(a.shape[:-2] for a in arrays))


def literal_attention(q, k, v, mask=None, scale=None):
    """softmax(q k^T * scale, masked) v, one query at a time, in float64 loops."""
    batch = np.broadcast_shapes(
        q.shape[:-2],
        k.shape[:-2],
        v.shape[:-2],
        () if mask is None else mask.shape[:-2],
    )
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    q, k, v = (np.broadcast_to(a, (*batch, *a.shape[-2:])) for a in (q, k, v))
    if mask is None:
        mask = np.ones((n_q, n_k), bool)
    mask = np.broadcast_to(mask, (*batch, n_q, n_k))
    weights = np.zeros((*batch, n_q, n_k))
    out = np.zeros((*batch, n_q, d_v))
    for index in np.ndindex(*batch, n_q):
        b, i = index[:-1], index[-1]
        keys = [j for j in range(n_k) if mask[(*b, i, j)]]
        if not keys:
            continue  # a fully masked query: zero weights, zero output
        scores = {
            j: scale * math.fsum(np.multiply(q[b][i], k[b][j], dtype=np.float64))
            for j in keys
        }
        top = max(scores.values())
        total = math.fsum(math.exp(s - top) for s in scores.values())
        for j in keys:
            weights[(*b, i, j)] = math.exp(scores[j] - top) / total
        out[(*b, i)] = weights[b][i] @ v[b].astype(np.float64)
    return out, weights


# -- scaled dot-product attention and its relatives --------------------------------


@PROPERTY
@given(qkv_arguments())
def test_attention_shapes_dtypes_values(args) -> None:
    q, k, v = args["q"], args["k"], args["v"]
    mask = args.get("mask")
    out, w = call(ad.scaled_dot_product_attention, **args, return_weights=True)
    batch = np.broadcast_shapes(
        batch_of(q, k, v), () if mask is None else mask.shape[:-2]
    )
    dtype = expected_dtype(q, k, v)
    assert out.shape == (*batch, q.shape[-2], v.shape[-1]) and out.dtype == dtype
    # the weights are those of attention_weights: the dtype of q and k
    assert w.shape == (*batch, q.shape[-2], k.shape[-2])
    assert w.dtype == expected_dtype(q, k)
    want_out, want_w = literal_attention(q, k, v, mask)
    np.testing.assert_allclose(out, want_out, **tolerance(precision(q, k, v)))
    np.testing.assert_allclose(w, want_w, **tolerance(expected_dtype(q, k)))
    # the other two stages, and the blockwise computation, agree
    qk_dtype = expected_dtype(q, k)
    scores = call(ad.attention_scores, q, k)
    assert scores.shape == (*batch_of(q, k), q.shape[-2], k.shape[-2])
    assert scores.dtype == qk_dtype
    if mask is not None and not broadcasts_to(mask.shape, scores.shape):  # v's
        with pytest.raises(ValueError, match=r"^mask of shape .* does not broadcast"):
            call(ad.attention_weights, q, k, mask=mask)
        return
    weights = call(ad.attention_weights, q, k, mask=mask)
    assert weights.dtype == qk_dtype
    np.testing.assert_allclose(
        np.broadcast_to(weights, w.shape), want_w, **tolerance(qk_dtype)
    )
    block = call(ad.blockwise_attention, **args, block_size=2)
    assert block.shape == out.shape and block.dtype == dtype
    np.testing.assert_allclose(block, want_out, **tolerance(precision(q, k, v)))


@PROPERTY
@given(qkv_arguments(), st.data())
def test_backward_against_the_textbook_formula(args, data) -> None:
    q, k, v = args["q"], args["k"], args["v"]
    mask = args.get("mask")
    _, a = literal_attention(q, k, v, mask)
    batch = a.shape[:-2]
    g = data.draw(random_array((*batch, q.shape[-2], v.shape[-1]), np.float64))
    dq, dk, dv = call(ad.scaled_dot_product_attention_backward, **args, grad_output=g)
    assert (dq.shape, dk.shape, dv.shape) == (q.shape, k.shape, v.shape)
    dtype = expected_dtype(q, k, v, g)
    assert dq.dtype == dk.dtype == dv.dtype == dtype
    # dV = A^T G, dA = G V^T, dS = A (dA - rowsum(dA A)), dQ = dS K s, dK = dS^T Q s
    scale = 1 / math.sqrt(q.shape[-1])
    qb, kb, vb = (np.broadcast_to(x, (*batch, *x.shape[-2:])) for x in (q, k, v))
    want_dv = np.swapaxes(a, -1, -2) @ g
    da = g @ np.swapaxes(vb, -1, -2)
    ds = a * (da - (da * a).sum(axis=-1, keepdims=True))
    want_dq = ds @ kb * scale
    want_dk = np.swapaxes(ds, -1, -2) @ qb * scale

    def summed(x, shape):  # the gradient of a broadcast argument: summed copies
        x = x.sum(axis=tuple(range(x.ndim - len(shape))))
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
        return x.sum(axis=axes, keepdims=True)

    # A is computed in the precision of q, k and v
    low = precision(q, k, v) == np.float32
    tol = {"rtol": 1e-3, "atol": 1e-4} if low else tolerance(dtype)
    np.testing.assert_allclose(dq, summed(want_dq, q.shape), **tol)
    np.testing.assert_allclose(dk, summed(want_dk, k.shape), **tol)
    np.testing.assert_allclose(dv, summed(want_dv, v.shape), **tol)
    # the blockwise backward pass, from the forward pass's output and
    # log-sum-exp: the same gradients, in blocks that need not divide n
    out, lse = call(ad.blockwise_attention, **args, block_size=2, return_lse=True)
    assert lse.shape == out.shape[:-1] and lse.dtype == out.dtype
    scores = np.broadcast_to(qb @ np.swapaxes(kb, -1, -2) * scale, a.shape)
    keep = np.ones(a.shape, bool) if mask is None else np.broadcast_to(mask, a.shape)
    for index in np.ndindex(*lse.shape):  # lse_i = log sum_j e^{S_ij}, visible j
        visible = scores[index][keep[index]].astype(np.float64)
        want = -math.inf if visible.size == 0 else np.logaddexp.reduce(visible)
        assert lse[index] == pytest.approx(want, rel=tol["rtol"], abs=tol["atol"])
    block_size = data.draw(st.integers(1, 4))
    grads = call(
        ad.blockwise_attention_backward,
        **args,
        output=out,
        lse=lse,
        grad_output=g,
        block_size=block_size,
    )
    for got, want, x in zip(grads, (want_dq, want_dk, want_dv), (q, k, v), strict=True):
        assert got.shape == x.shape and got.dtype == dtype
        np.testing.assert_allclose(got, summed(want, x.shape), **tol)


@PROPERTY
@given(qkv_arguments(), st.integers(0, 3), st.data())
def test_additive_attention(args, d_a, data) -> None:
    q, k, v = args["q"], args["k"], args["v"]
    mask = args.get("mask")
    w_q = data.draw(random_array((q.shape[-1], d_a), np.float64))
    w_k = data.draw(random_array((k.shape[-1], d_a), np.float64))
    w_a = data.draw(random_array((d_a,), np.float64))
    out, w = call(
        ad.additive_attention, q, k, v, w_q, w_k, w_a, mask=mask, return_weights=True
    )
    batch = np.broadcast_shapes(
        batch_of(q, k, v), () if mask is None else mask.shape[:-2]
    )
    assert out.shape == (*batch, q.shape[-2], v.shape[-1])
    assert w.shape == (*batch, q.shape[-2], k.shape[-2])
    # S_ij = tanh(q_i W_q + k_j W_k) w_a, written out entry by entry
    qb = np.broadcast_to(q, (*batch, *q.shape[-2:])).astype(np.float64)
    kb = np.broadcast_to(k, (*batch, *k.shape[-2:])).astype(np.float64)
    scores = np.zeros(w.shape)
    for index in np.ndindex(*w.shape):
        *b, i, j = index
        hidden = np.tanh(qb[(*b, i)] @ w_q + kb[(*b, j)] @ w_k)
        scores[index] = math.fsum(hidden * w_a)
    keep = np.ones(w.shape, bool) if mask is None else np.broadcast_to(mask, w.shape)
    want = np.zeros(w.shape)
    for index in np.ndindex(*w.shape[:-1]):
        row, visible = scores[index], keep[index]
        if visible.any():
            e = np.where(visible, np.exp(row - row[visible].max()), 0.0)
            want[index] = e / e.sum()
    np.testing.assert_allclose(w, want, rtol=2e-4, atol=1e-6)


@PROPERTY
@given(
    mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, max_side=3),
    st.sampled_from(FLOATS),
    st.data(),
)
def test_softmax_and_masked_softmax(shapes, dtype, data) -> None:
    x_shape, m_shape = shapes.input_shapes
    x = data.draw(random_array(x_shape, dtype)) * 30
    if x.shape[-1] == 0:  # no entries along the axis: an error naming `x`
        with pytest.raises(ValueError, match="`x` has no entries along axis"):
            call(ad.softmax, x)
        return
    w = call(ad.softmax, x)
    assert w.shape == x.shape and w.dtype == dtype
    for index in np.ndindex(*x.shape[:-1]):
        row = [float(value) for value in x[index]]
        top = max(row)
        total = math.fsum(math.exp(value - top) for value in row)
        want = [math.exp(value - top) / total for value in row]
        np.testing.assert_allclose(w[index], want, **tolerance(np.dtype(dtype)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    mask = rng.random(m_shape) < 0.5
    if np.broadcast_shapes(x.shape, mask.shape) != x.shape:
        with pytest.raises(ValueError, match=r"mask of shape .* does not broadcast"):
            call(ad.masked_softmax, x, mask)
        return
    mw = call(ad.masked_softmax, x, mask)
    assert mw.shape == x.shape and mw.dtype == dtype
    full = np.broadcast_to(mask, x.shape)
    assert np.all(mw[~full] == 0)
    sums = mw.sum(axis=-1)
    np.testing.assert_allclose(sums, full.any(axis=-1).astype(float), rtol=1e-5)


# -- masks, linear algebra, heads ---------------------------------------------------


@PROPERTY
@given(st.integers(1, 6), st.integers(1, 6), st.lists(st.integers(0, 6), max_size=3))
def test_masks(n_q, n_k, lengths) -> None:
    causal = call(ad.causal_mask, n_q, n_k)
    assert causal.shape == (n_q, n_k) and causal.dtype == bool
    for i in range(n_q):
        for j in range(n_k):
            assert causal[i, j] == (j <= i + (n_k - n_q))
    lengths = [min(n, n_k) for n in lengths]
    padding = call(ad.padding_mask, np.array(lengths, dtype=np.int64), n_k)
    assert padding.shape == (len(lengths), 1, n_k)
    for b, length in enumerate(lengths):
        assert padding[b, 0].tolist() == [j < length for j in range(n_k)]
    both = call(ad.combine_masks, causal, padding)
    assert both.shape == np.broadcast_shapes(causal.shape, padding.shape)
    np.testing.assert_array_equal(both, causal & padding)


@PROPERTY
@given(st.integers(0, 4), st.integers(0, 4), st.sampled_from(FLOATS), st.data())
def test_row_times_matrix_is_the_weighted_sum(m, n, dtype, data) -> None:
    x = data.draw(random_array((m,), dtype))
    b = data.draw(random_array((m, n), np.float64))
    for function in (ad.row_times_matrix, ad.weighted_sum_of_rows):
        out = call(function, x, b)
        assert out.shape == (n,) and out.dtype == np.float64
        want = [
            math.fsum(float(x[i]) * float(b[i, j]) for i in range(m)) for j in range(n)
        ]
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


@PROPERTY
@given(
    st.lists(st.integers(0, 2), max_size=2),
    st.integers(0, 3),
    st.sampled_from([1, 2, 3]),
    st.integers(0, 2),
    st.sampled_from([np.float32, np.float64, np.int64, np.bool_]),
)
def test_split_and_merge_heads(batch, n, h, d_k, dtype) -> None:
    x = np.arange(math.prod([*batch, n, h * d_k])).reshape(*batch, n, h * d_k)
    x = x.astype(dtype)
    heads = call(ad.split_heads, x, h)
    assert heads.shape == (*batch, h, n, d_k) and heads.dtype == x.dtype
    for index in np.ndindex(*batch, h, n, d_k):
        *b, i, t, p = index
        assert heads[index] == x[(*b, t, i * d_k + p)]
    merged = call(ad.merge_heads, heads)
    assert merged.dtype == x.dtype
    np.testing.assert_array_equal(merged, x)


# -- projections, self-attention, multi-head ---------------------------------------


@PROPERTY
@given(
    st.lists(st.integers(0, 2), max_size=2),
    st.integers(1, 3),
    st.integers(0, 3),
    st.integers(1, 3),
    st.integers(0, 3),
    st.sampled_from(FLOATS),
    st.data(),
)
def test_project_qkv_and_self_attention(batch, n, d_model, d_k, d_v, dtype, data):
    x = data.draw(random_array((*batch, n, d_model), dtype))
    w_q, w_k = (data.draw(random_array((d_model, d_k), dtype)) for _ in range(2))
    w_v = data.draw(random_array((d_model, d_v), dtype))
    q, k, v = call(ad.project_qkv, x, w_q, w_k, w_v)
    assert (q.shape, k.shape, v.shape) == (
        (*batch, n, d_k),
        (*batch, n, d_k),
        (*batch, n, d_v),
    )
    assert q.dtype == k.dtype == v.dtype == np.dtype(dtype)
    out = call(ad.self_attention, x, w_q, w_k, w_v, mask=ad.causal_mask(n))
    assert out.shape == (*batch, n, d_v) and out.dtype == np.dtype(dtype)
    x64 = x.astype(np.float64)
    want, _ = literal_attention(
        x64 @ w_q.astype(np.float64),
        x64 @ w_k.astype(np.float64),
        x64 @ w_v.astype(np.float64),
        ad.causal_mask(n),
    )
    np.testing.assert_allclose(out, want, **tolerance(np.dtype(dtype)))


@PROPERTY
@given(
    mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=2, max_side=2),
    st.integers(0, 3),
    st.integers(1, 3),
    st.sampled_from([1, 2]),
    st.data(),
)
def test_multi_head_attention(shapes, n_q, n_k, h, data) -> None:
    d_model = 2 * h
    q_batch, k_batch, v_batch = shapes.input_shapes
    query = data.draw(random_array((*q_batch, n_q, d_model), np.float64))
    key = data.draw(random_array((*k_batch, n_k, d_model), np.float64))
    value = data.draw(random_array((*v_batch, n_k, d_model), np.float64))
    w = [data.draw(random_array((d_model, d_model), np.float64)) for _ in range(4)]
    out, weights = call(ad.multi_head_attention, query, key, value, *w, h)
    batch = shapes.result_shape
    assert out.shape == (*batch, n_q, d_model)
    assert weights.shape == (*batch, h, n_q, n_k)  # also v's own batch dimensions
    # head i: the literal attention of the i-th column blocks, then Concat W^O
    d_k = d_model // h
    heads = []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        head, head_w = literal_attention(
            query @ w[0][:, cols], key @ w[1][:, cols], value @ w[2][:, cols]
        )
        heads.append(head)
        np.testing.assert_allclose(weights[..., i, :, :], head_w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out, np.concatenate(heads, axis=-1) @ w[3], atol=1e-9)


@PROPERTY
@given(st.lists(st.integers(0, 2), max_size=2), st.integers(1, 3), st.data())
def test_layers_keep_shapes_and_their_weights(batch, n, data) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    norm = data.draw(st.sampled_from(["post", "pre"]))
    encoder = ad.EncoderLayer(4, 2, 6, rng=rng, norm=norm)
    decoder = ad.DecoderLayer(4, 2, 6, rng=rng, norm=norm)
    mha = ad.MultiHeadAttention(4, 2, rng=rng)
    before = {
        name: array.copy()
        for layer in (encoder, decoder)
        for name, array in layer.parameters().items()
    }
    x = data.draw(random_array((*batch, n, 4), np.float64))
    memory = data.draw(random_array((*batch, n + 1, 4), np.float64))
    y, w = call(encoder, x, return_weights=True)
    assert y.shape == x.shape and w.shape == (*batch, 2, n, n)
    z, self_w, cross_w = call(decoder, x, memory, return_weights=True)
    assert z.shape == x.shape and cross_w.shape == (*batch, 2, n, n + 1)
    assert np.all(np.triu(self_w, 1) == 0)  # causal: nothing after the query
    out, mw = call(mha, x)
    assert out.shape == x.shape and mw.shape == (*batch, 2, n, n)
    with pytest.raises(ValueError, match="`x` has d_model=3 but the layer has"):
        call(encoder, x[..., :3])
    after = {
        name: array
        for layer in (encoder, decoder)
        for name, array in layer.parameters().items()
    }
    for name, array in before.items():
        np.testing.assert_array_equal(after[name], array)


# -- layer normalisation and the feed-forward network -------------------------------


def exact_layer_norm(row: np.ndarray, eps: float) -> list[float]:
    """(x - mu) / sqrt(sigma^2 + eps) in exact rational arithmetic, then rounded."""
    values = [Fraction(float(x)) for x in row]
    mu = sum(values) / len(values)
    var = sum((x - mu) ** 2 for x in values) / len(values)
    with localcontext() as context:
        context.prec = 60
        context.Emin, context.Emax = -999999, 999999

        def decimal(x: Fraction) -> Decimal:
            return Decimal(x.numerator) / Decimal(x.denominator)

        denominator = (decimal(var) + decimal(Fraction(eps))).sqrt()
        return [float(decimal(x - mu) / denominator) for x in values]


@PROPERTY
@given(
    st.lists(st.integers(0, 2), max_size=2),
    st.integers(1, 4),
    st.sampled_from(FLOATS),
    st.integers(-320, 300),
    st.sampled_from([1e-5, 1e-2, 1.0]),
    st.data(),
)
def test_layer_norm_at_every_magnitude(batch, d_model, dtype, exponent, eps, data):
    finfo = np.finfo(dtype)
    exponent = int(
        np.clip(exponent, math.log10(finfo.tiny) + 2, math.log10(finfo.max) - 2)
    )
    x = data.draw(random_array((*batch, d_model), np.float64)) * 10.0**exponent
    x = x.astype(dtype)
    out = call(ad.layer_norm, x, eps=eps)
    assert out.shape == x.shape and out.dtype == np.dtype(dtype)
    for index in np.ndindex(*batch):
        want = exact_layer_norm(x[index], eps)
        np.testing.assert_allclose(
            out[index], want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-30
        )


@PROPERTY
@given(
    st.lists(st.integers(0, 2), max_size=2),
    st.integers(1, 3),
    st.integers(0, 3),
    st.data(),
)
def test_feed_forward_row_by_row(batch, d_model, d_ff, data) -> None:
    x = data.draw(random_array((*batch, 2, d_model), np.float64))
    w_1 = data.draw(random_array((d_model, d_ff), np.float64))
    b_1 = data.draw(random_array((d_ff,), np.float64))
    w_2 = data.draw(random_array((d_ff, d_model), np.float64))
    b_2 = data.draw(random_array((d_model,), np.float64))
    out = call(ad.feed_forward, x, w_1, b_1, w_2, b_2)
    assert out.shape == x.shape
    for index in np.ndindex(*x.shape[:-1]):
        hidden = [
            max(0.0, math.fsum(x[index] * w_1[:, j]) + b_1[j]) for j in range(d_ff)
        ]
        want = [
            math.fsum(np.array(hidden) * w_2[:, p]) + b_2[p] for p in range(d_model)
        ]
        np.testing.assert_allclose(out[index], want, rtol=1e-9, atol=1e-12)


# -- positions ----------------------------------------------------------------------


@PROPERTY
@given(st.integers(1, 5), st.sampled_from([2, 4, 6]))
def test_sinusoidal_encoding_is_the_formula(n, d_model) -> None:
    pe = call(ad.sinusoidal_positional_encoding, n, d_model)
    assert pe.shape == (n, d_model) and pe.dtype == np.float64
    for pos in range(n):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            assert math.isclose(pe[pos, 2 * i], math.sin(angle), abs_tol=1e-12)
            assert math.isclose(pe[pos, 2 * i + 1], math.cos(angle), abs_tol=1e-12)


@PROPERTY
@given(
    st.lists(st.integers(0, 2), max_size=2),
    st.integers(0, 3),
    st.sampled_from([0, 2, 4]),
    st.sampled_from(FLOATS),
    st.data(),
)
def test_apply_rope_rotates_each_pair(batch, n, d, dtype, data) -> None:
    x = data.draw(random_array((*batch, n, d), dtype))
    positions = data.draw(random_array((n,), np.float64)) * 10
    out = call(ad.apply_rope, x, positions)
    assert out.shape == x.shape and out.dtype == np.dtype(dtype)
    for index in np.ndindex(*batch, n):
        m = positions[index[-1]]
        for i in range(d // 2):
            angle = m * 10000.0 ** (-2 * i / d)
            a, b = float(x[(*index, 2 * i)]), float(x[(*index, 2 * i + 1)])
            want = (
                a * math.cos(angle) - b * math.sin(angle),
                a * math.sin(angle) + b * math.cos(angle),
            )
            np.testing.assert_allclose(
                out[(*index, slice(2 * i, 2 * i + 2))],
                want,
                **tolerance(np.dtype(dtype)),
            )
    # one position per row: positions that would add rows are refused
    with pytest.raises(
        ValueError, match=r"`positions` of shape \(.*\) does not broadcast"
    ):
        call(ad.apply_rope, x, np.zeros(n + 2))


# -- the KV cache -------------------------------------------------------------------


@PROPERTY
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.sampled_from(FLOATS),
    st.sampled_from([(), (2,), (1, 2)]),
    st.data(),
)
def test_kv_cache_equals_causal_attention(steps, dtype, batch_shape, data) -> None:
    n = sum(steps)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    k = rng.integers(-4, 5, (*batch_shape, n, 3))  # integers: exact in float32
    v = rng.standard_normal((*batch_shape, n, 2)).astype(dtype)
    q = rng.standard_normal((*batch_shape, n, 3)).astype(dtype)
    cache = ad.KVCache(3, 2, batch_shape=batch_shape, dtype=dtype, capacity=1)
    rows, start = [], 0
    for t in steps:
        call(cache.append, k[..., start : start + t, :], v[..., start : start + t, :])
        rows.append(call(cache.attend, q[..., start : start + t, :]))
        start += t
        # a failing append changes nothing
        keys, values = cache.keys.copy(), cache.values.copy()
        with pytest.raises(ValueError, match="`v` has d_v=3 but the cache has d_v=2"):
            call(cache.append, k[..., :1, :], np.zeros((*batch_shape, 1, 3), dtype))
        assert len(cache) == start
        np.testing.assert_array_equal(cache.keys, keys)
        np.testing.assert_array_equal(cache.values, values)
    assert cache.keys.dtype == np.dtype(dtype)
    out = np.concatenate(rows, axis=-2)
    assert out.dtype == np.dtype(dtype)
    want, _ = literal_attention(q, k.astype(np.float64), v, ad.causal_mask(n))
    np.testing.assert_allclose(out, want, **tolerance(np.dtype(dtype)))


@PROPERTY
@given(st.lists(st.integers(1, 2**40), min_size=6, max_size=6))
def test_kv_cache_bytes_is_the_exact_product(sizes) -> None:
    n_layers, n_kv_heads, d_k, n_tokens, size, batch = sizes
    got = call(
        ad.kv_cache_bytes,
        n_layers,
        n_kv_heads,
        d_k,
        n_tokens,
        bytes_per_value=size,
        batch=batch,
    )
    assert got == 2 * math.prod(sizes)


# -- the objects ---------------------------------------------------------------------


@PROPERTY
@given(
    st.integers(1, 4), st.integers(1, 3), st.integers(0, 3), st.booleans(), st.data()
)
def test_query_key_value_objects(n_keys, d_k, d_v, scaled, data) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    k, v, q = (
        rng.standard_normal((n_keys, d_k)),
        rng.standard_normal((n_keys, d_v)),
        rng.standard_normal(d_k),
    )
    query = ad.Query(q)
    keys, values = [ad.Key(row) for row in k], [ad.Value(row) for row in v]
    out, w = call(query.retrieve_values, keys, values, scaled=scaled)
    want_out, want_w = literal_attention(q[None], k, v, scale=None if scaled else 1.0)
    np.testing.assert_allclose(w, want_w[0], rtol=1e-9)
    np.testing.assert_allclose(out, want_out[0], rtol=1e-9, atol=1e-12)
    weights = call(query.compute_attention_weights, keys, scaled=scaled)
    np.testing.assert_allclose(weights, want_w[0], rtol=1e-9)


# -- training ------------------------------------------------------------------------


@PROPERTY
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=2),
    st.integers(1, 4),
    st.sampled_from([1.0, 1e100, 1e300, 1.7e308]),
    st.data(),
)
def test_cross_entropy_is_the_exact_mean(batch, vocab, magnitude, data) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    logits = rng.uniform(-1.0, 1.0, (*batch, vocab)) * magnitude
    targets = rng.integers(0, vocab, batch)
    # l = max z - z_y + log sum_c exp(z_c - max z), exactly, as a Fraction
    losses = []
    for index in np.ndindex(*batch):
        row = [float(z) for z in logits[index]]
        top = max(row)
        shifts = [Fraction(z) - Fraction(top) for z in row]  # <= 0, exactly
        tail = math.log(math.fsum(math.exp(d) if d > -800 else 0.0 for d in shifts))
        losses.append(Fraction(top) - Fraction(row[targets[index]]) + Fraction(tail))
    mean = sum(losses) / len(losses)
    if mean > Fraction(np.finfo(np.float64).max):
        with pytest.raises(ValueError, match="the cross-entropy overflows float64"):
            call(cross_entropy, logits, targets)
        return
    got = call(cross_entropy, logits, targets)
    assert math.isfinite(got)
    assert math.isclose(got, float(mean), rel_tol=1e-12, abs_tol=1e-12)


def literal_adam(theta, grads, lr, beta1, beta2, eps):
    """Algorithm 1 of Kingma and Ba, one entry at a time, in exact fractions."""
    m = v = Fraction(0)
    theta = Fraction(theta)
    for t, g in enumerate(grads, start=1):
        g = Fraction(g)
        m = Fraction(beta1) * m + (1 - Fraction(beta1)) * g
        v = Fraction(beta2) * v + (1 - Fraction(beta2)) * g * g
        m_hat = m / (1 - Fraction(beta1) ** t)
        v_hat = v / (1 - Fraction(beta2) ** t)
        root = (
            Fraction(math.sqrt(v_hat))
            if v_hat < 2**1000
            else Fraction(math.isqrt(int(v_hat)))
        )
        theta -= Fraction(lr) * m_hat / (root + Fraction(eps))
        if v > Fraction(np.finfo(np.float64).max):  # v_t is no float
            return None
    return float(theta)


@PROPERTY
@given(
    st.lists(
        st.floats(-1e155, 1e155, allow_nan=False, allow_subnormal=False)
        | st.sampled_from([0.0, 3e155, -3e155, 1e-300]),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from([0.001, 0.1]),
)
def test_adam_follows_algorithm_1(grads, lr) -> None:
    params = {"w": np.array([1.0])}
    adam = Adam(params, lr=lr)
    for t, g in enumerate(grads, start=1):
        want = literal_adam(1.0, grads[:t], lr, 0.9, 0.999, 1e-8)
        if want is None:  # the moving average v_t overflows: an error, no change
            before = params["w"].copy(), adam.m["w"].copy(), adam.v["w"].copy()
            with pytest.raises(ValueError, match=r"`grads\['w'\]`\*\*2 overflows"):
                call(adam.step, params, {"w": np.array([g])})
            assert adam.t == t - 1
            assert (params["w"], adam.m["w"], adam.v["w"]) == before
            return
        call(adam.step, params, {"w": np.array([g])})
        assert adam.t == t
        assert math.isclose(params["w"][0], want, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize(
    ("param", "grad", "error", "message"),
    [
        ([1.0, 2.0], [1.0, 1.0], TypeError, r"`params\['w'\]` must be a float ndarray"),
        (np.array([1, 2]), [1.0, 1.0], TypeError, "got an array of dtype int64"),
        ("read-only", [1.0, 1.0], ValueError, r"`params\['w'\]` is read-only"),
        (np.ones(2), [1e200, 1.0], ValueError, r"`grads\['w'\]`\*\*2 overflows"),
        (np.ones(2), [1.0, np.nan], ValueError, r"`grads\['w'\]` contains NaN"),
        (np.ones(2), [1.0], ValueError, r"`grads\['w'\]` has shape \(1,\)"),
    ],
)
def test_adam_step_that_raises_changes_nothing(param, grad, error, message) -> None:
    params = {"b": np.zeros(3), "w": np.ones(2)}
    adam = Adam(params, lr=0.1)
    adam.step(params, {"b": np.ones(3), "w": np.ones(2)})
    if isinstance(param, str):
        param = np.ones(2)
        param.flags.writeable = False
    state = (
        adam.t,
        {n: a.copy() for n, a in adam.m.items()},
        {n: a.copy() for n, a in adam.v.items()},
        params["b"].copy(),
    )
    with pytest.raises(error, match=message):
        call(adam.step, {"b": params["b"], "w": param}, {"b": np.ones(3), "w": grad})
    assert adam.t == state[0]
    for name in adam.m:
        np.testing.assert_array_equal(adam.m[name], state[1][name])
        np.testing.assert_array_equal(adam.v[name], state[2][name])
    np.testing.assert_array_equal(params["b"], state[3])  # b came first: unchanged


@PROPERTY
@given(st.integers(1, 3), st.integers(1, 4), st.integers(2, 5), st.data())
def test_training_functions(batch, n, vocab, data) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    tokens, targets = call(reversal_task, rng, batch, n, vocab)
    assert tokens.shape == targets.shape == (batch, n)
    np.testing.assert_array_equal(targets, tokens[:, ::-1])
    params = init_params(rng, vocab=vocab, d_model=4, d_k=2)
    fwd = call(forward, params, tokens)
    assert fwd.logits.shape == (batch, n, vocab)
    loss, grads = call(loss_and_gradients, params, tokens, targets)
    assert math.isclose(loss, cross_entropy(fwd.logits, targets), rel_tol=1e-12)
    assert {name: g.shape for name, g in grads.items()} == {
        name: p.shape for name, p in params.items()
    }
    keys = n - 1 - np.arange(n)
    weights = fwd.weights
    correct = [
        all(weights[b, i, keys[i]] > weights[b, i, j] + 1e-9 for j in others)
        for b in range(batch)
        for i in range(n)
        for others in [[j for j in range(n) if j != keys[i]]]
    ]
    want = np.mean(correct)
    assert call(alignment_accuracy, weights, keys) == want


# -- errors name the caller's arguments ------------------------------------------------


def _arguments() -> list[tuple[str, Callable[..., Any], dict[str, Any]]]:
    rng = np.random.default_rng(0)

    def r(*shape):
        return rng.standard_normal(shape)

    cache = ad.KVCache(2, 2)
    cache.append(r(2, 2), r(2, 2))
    layer = ad.EncoderLayer(4, 2, 4, rng=rng)
    decoder = ad.DecoderLayer(4, 2, 4, rng=rng)
    return [
        ("attention_scores", ad.attention_scores, {"q": r(2, 3), "k": r(4, 3)}),
        ("attention_weights", ad.attention_weights, {"q": r(2, 3), "k": r(4, 3)}),
        (
            "sdpa",
            ad.scaled_dot_product_attention,
            {"q": r(2, 3), "k": r(4, 3), "v": r(4, 2)},
        ),
        (
            "blockwise",
            ad.blockwise_attention,
            {"q": r(2, 3), "k": r(4, 3), "v": r(4, 2)},
        ),
        (
            "backward",
            ad.scaled_dot_product_attention_backward,
            {"q": r(2, 3), "k": r(4, 3), "v": r(4, 2), "grad_output": r(2, 2)},
        ),
        (
            "blockwise_backward",
            ad.blockwise_attention_backward,
            {
                "q": r(2, 3),
                "k": r(4, 3),
                "v": r(4, 2),
                "output": r(2, 2),
                "lse": r(2),
                "grad_output": r(2, 2),
            },
        ),
        (
            "additive",
            ad.additive_attention,
            {
                "q": r(2, 3),
                "k": r(4, 3),
                "v": r(4, 2),
                "w_q": r(3, 2),
                "w_k": r(3, 2),
                "w_a": r(2),
            },
        ),
        ("softmax", ad.softmax, {"x": r(2, 3)}),
        ("masked_softmax", ad.masked_softmax, {"x": r(2, 3), "mask": np.ones(3, bool)}),
        ("row_times_matrix", ad.row_times_matrix, {"x": r(2), "b": r(2, 3)}),
        ("weighted_sum_of_rows", ad.weighted_sum_of_rows, {"x": r(2), "b": r(2, 3)}),
        (
            "project_qkv",
            ad.project_qkv,
            {"x": r(3, 4), "w_q": r(4, 2), "w_k": r(4, 2), "w_v": r(4, 2)},
        ),
        (
            "self_attention",
            ad.self_attention,
            {"x": r(3, 4), "w_q": r(4, 2), "w_k": r(4, 2), "w_v": r(4, 2)},
        ),
        (
            "multi_head_attention",
            ad.multi_head_attention,
            {
                "query": r(3, 4),
                "key": r(2, 4),
                "value": r(2, 4),
                "w_q": r(4, 4),
                "w_k": r(4, 4),
                "w_v": r(4, 4),
                "w_o": r(4, 4),
                "h": 2,
            },
        ),
        ("layer_norm", ad.layer_norm, {"x": r(2, 3), "gamma": r(3), "beta": r(3)}),
        ("rms_norm", ad.rms_norm, {"x": r(2, 3), "gain": r(3)}),
        (
            "qk_norm",
            ad.qk_norm,
            {"q": r(2, 3), "k": r(4, 3), "gain_q": r(3), "gain_k": r(3)},
        ),
        ("soft_cap", ad.soft_cap, {"x": r(2, 3), "cap": 5.0}),
        (
            "linear_attention",
            ad.linear_attention,
            {"q": r(2, 3), "k": r(4, 3), "v": r(4, 2)},
        ),
        (
            "latent_attention",
            ad.latent_attention,
            {
                "x": r(3, 8),
                "params": ad.latent_attention_params(
                    8, 2, 4, 4, 4, 2, rng=np.random.default_rng(1)
                ),
                "n_heads": 2,
            },
        ),
        (
            "feed_forward",
            ad.feed_forward,
            {"x": r(2, 3), "w_1": r(3, 4), "b_1": r(4), "w_2": r(4, 3), "b_2": r(3)},
        ),
        ("apply_rope", ad.apply_rope, {"x": r(3, 4), "positions": r(3)}),
        (
            "cross_entropy",
            cross_entropy,
            {"logits": r(2, 3), "targets": np.array([0, 2])},
        ),
        (
            "alignment_accuracy",
            alignment_accuracy,
            {"weights": r(2, 3), "keys": [0, 1]},
        ),
        ("KVCache.append", cache.append, {"k": r(1, 2), "v": r(1, 2)}),
        ("KVCache.attend", cache.attend, {"q": r(1, 2)}),
        ("EncoderLayer", layer, {"x": r(3, 4)}),
        ("DecoderLayer", decoder, {"x": r(3, 4), "memory": r(2, 4)}),
        ("Query", ad.Query, {"vector": r(3)}),
    ]


ARGUMENTS = _arguments()


@pytest.mark.parametrize(
    ("label", "function", "kwargs"), ARGUMENTS, ids=[a[0] for a in ARGUMENTS]
)
def test_every_array_argument_is_named_in_its_errors(label, function, kwargs) -> None:
    call(function, **kwargs)  # the arguments themselves are fine
    for name, value in kwargs.items():
        if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
            continue
        bad = value.copy()
        bad.flat[0] = np.nan
        with pytest.raises(ValueError, match=f"`{name}` contains NaN or infinite"):
            call(function, **{**kwargs, name: bad})
        with pytest.raises(TypeError, match=f"`{name}` must hold real numbers"):
            call(function, **{**kwargs, name: value.astype(complex)})
        with pytest.raises(TypeError, match=f"`{name}` is a numpy masked array"):
            call(function, **{**kwargs, name: np.ma.masked_array(value)})
        huge = np.array(value, dtype=np.longdouble)
        huge.flat[0] = np.longdouble(np.finfo(np.float64).max) * 16
        if np.isfinite(huge.flat[0]):  # a longdouble wider than float64
            with pytest.raises(
                ValueError, match=f"`{name}` has dtype .* beyond the range"
            ):
                call(function, **{**kwargs, name: huge})


@pytest.mark.parametrize(
    ("call_with", "name"),
    [
        (
            lambda x: ad.attention_scores(np.ones((1, 2)), np.ones((1, 2)), scale=x),
            "scale",
        ),
        (lambda x: ad.KVCache(2).attend(np.ones((1, 2)), scale=x), None),
        (lambda x: ad.apply_rope(np.ones((1, 2)), base=x), "base"),
        (lambda x: ad.layer_norm(np.ones(2), eps=x), "eps"),
        (lambda x: ad.rms_norm(np.ones(2), eps=x), "eps"),
        (lambda x: ad.qk_norm(np.ones((1, 2)), np.ones((1, 2)), eps=x), "eps"),
        (lambda x: ad.soft_cap(np.ones(2), x), "cap"),
        (
            lambda x: ad.EncoderLayer(2, 1, 2, rng=np.random.default_rng(0), eps=x),
            "eps",
        ),
        (lambda x: Adam({"w": np.ones(1)}, lr=x), "lr"),
        (lambda x: Adam({"w": np.ones(1)}, eps=x), "eps"),
        (lambda x: Adam({"w": np.ones(1)}, beta2=x), "beta2"),
        (lambda x: alignment_accuracy(np.eye(2), [0, 1], tol=x), "tol"),
        (lambda x: train(seed=-x, steps=1), "seed"),
        (lambda x: ad.causal_mask(-x), "n_q"),
        (
            lambda x: ad.blockwise_attention(
                np.ones((1, 2)), np.ones((1, 2)), np.ones((1, 2)), block_size=-x
            ),
            "block_size",
        ),
        (
            lambda x: ad.blockwise_attention_backward(
                *[np.ones((1, 2))] * 4, np.zeros(1), np.ones((1, 2)), block_size=-x
            ),
            "block_size",
        ),
    ],
)
@pytest.mark.parametrize(
    "value",
    [10**400, 10**5000, np.longdouble("1e4000")],
    ids=["int-400-digits", "int-5000-digits", "longdouble"],
)
def test_huge_numbers_are_refused_by_name(call_with, name, value) -> None:
    if name is None:  # an empty cache refuses first, whatever the scale
        with pytest.raises(ValueError, match="the cache is empty"):
            call(call_with, value)
        return
    if not np.isfinite(np.longdouble("1e4000")) and not isinstance(value, int):
        pytest.skip("np.longdouble is float64 here")
    with pytest.raises(ValueError, match=f"^`{name}` must be"):
        call(call_with, value)


# -- the choices at the edges ---------------------------------------------------------


def test_empty_dimensions_follow_numpy() -> None:
    q, k = np.ones((3, 2)), np.ones((4, 2))
    # an empty batch in v alone, or no value components: empty outputs
    assert call(ad.scaled_dot_product_attention, q, k, np.ones((0, 4, 5))).shape == (
        0,
        3,
        5,
    )
    assert call(ad.blockwise_attention, q, k, np.ones((0, 4, 5))).shape == (0, 3, 5)
    assert call(ad.scaled_dot_product_attention, q, k, np.ones((4, 0))).shape == (3, 0)
    dq, dk, dv = call(
        ad.scaled_dot_product_attention_backward, q, k, np.ones((4, 0)), np.ones((3, 0))
    )
    assert not dq.any() and not dk.any() and dv.shape == (4, 0)
    dq, dk, dv = call(
        ad.blockwise_attention_backward,
        q,
        k,
        np.ones((4, 0)),
        np.ones((3, 0)),
        np.zeros(3),
        np.ones((3, 0)),
    )
    assert not dq.any() and not dk.any() and dv.shape == (4, 0)
    grads = call(
        ad.blockwise_attention_backward,
        np.ones((0, 2)),
        k,
        np.ones((4, 5)),
        np.ones((0, 5)),
        np.ones(0),
        np.ones((0, 5)),
    )
    assert [x.shape for x in grads] == [(0, 2), (4, 2), (4, 5)]
    assert not grads[1].any() and not grads[2].any()
    # no keys, or keys without components: errors naming the argument
    with pytest.raises(ValueError, match=r"`k` has n_k=0 keys"):
        call(ad.scaled_dot_product_attention, q, np.ones((0, 2)), np.ones((0, 5)))
    with pytest.raises(ValueError, match=r"`q` and `k` have d_k=0"):
        call(ad.attention_scores, np.ones((3, 0)), np.ones((4, 0)))
    with pytest.raises(ValueError, match=r"`w_q` and `w_k` have d_k=0"):
        call(
            ad.self_attention,
            np.ones((3, 2)),
            np.ones((2, 0)),
            np.ones((2, 0)),
            np.ones((2, 1)),
        )
    with pytest.raises(ValueError, match=r"`query` has d_model=0"):
        z = np.ones((0, 0))
        call(
            ad.multi_head_attention,
            np.ones((3, 0)),
            np.ones((2, 0)),
            np.ones((2, 0)),
            z,
            z,
            z,
            z,
            1,
        )
    # a mean over nothing has no value: an error, not NaN
    with pytest.raises(ValueError, match=r"`logits` is empty"):
        call(cross_entropy, np.ones((0, 3)), np.ones(0, dtype=int))
    with pytest.raises(ValueError, match=r"`weights` is empty"):
        call(alignment_accuracy, np.ones((0, 3)), np.ones(0, dtype=int))


def test_errors_of_the_objects_name_what_the_caller_holds() -> None:
    query, key = ad.Query([1e200, 0.0]), ad.Key([1e200, 0.0])
    message = r"^the scores `query.vector` @ `keys`\^T \* scale overflow float64"
    with pytest.raises(ValueError, match=message):
        call(query.compute_attention_weights, [key])
    with pytest.raises(ValueError, match=message):
        call(query.retrieve_values, [key], [ad.Value([1.0])])
    with pytest.raises(ValueError, match=r"`query` has d_k=2 but `keys` has d_k=3"):
        call(query.compute_attention_weights, [ad.Key([1.0, 0.0, 0.0])])


def test_train_is_quiet_and_checks_its_seed() -> None:
    result = call(train, steps=2, batch=2, n=3, vocab=4, d_model=4, d_k=2, seed=3)
    assert result.losses.shape == (2,) and np.all(np.isfinite(result.losses))
    for seed in (-1, 1.5, True, "0"):
        with pytest.raises(ValueError, match=r"^`seed` must be a non-negative integer"):
            call(train, steps=1, seed=seed)


# -- sums and products whose partial sums overflow -----------------------------------

FMAX = float(np.finfo(np.float64).max)


def exact(x: float) -> Fraction:
    return Fraction(float(x))


@PROPERTY
@given(
    st.integers(2, 4),
    st.lists(
        st.floats(-FMAX, FMAX, allow_nan=False, allow_infinity=False)
        | st.sampled_from([FMAX, -FMAX, FMAX / 2, 1.0, 0.0]),
        min_size=4,
        max_size=4,
    ),
)
def test_gradients_summed_over_broadcast_copies_fit_when_the_sum_does(copies, g):
    # one key (A = 1): dV is the sum of grad_output over the copies of v
    q = np.ones((copies, 1, 1))
    k, v = np.ones((1, 1)), np.ones((1, 1))
    grad = np.array(g[:copies]).reshape(copies, 1, 1)
    total = sum(exact(x) for x in g[:copies])
    if abs(total) > Fraction(FMAX) * (1 + Fraction(1, 2**52)):
        with pytest.raises(ValueError, match=r"respect to `v` overflows float64 when"):
            call(ad.scaled_dot_product_attention_backward, q, k, v, grad)
        return
    if abs(total) >= Fraction(FMAX) * (1 - Fraction(1, 2**50)):
        return  # rounds either way: at the very edge of the range
    dq, dk, dv = call(ad.scaled_dot_product_attention_backward, q, k, v, grad)
    assert dv.shape == (1, 1) and np.all(dq == 0) and np.all(dk == 0)
    # the rounding of a sum of `copies` terms: a few ulps of the largest one
    top = max(abs(x) for x in g[:copies])
    assert abs(exact(dv[0, 0]) - total) <= copies * exact(top) / 2**51


@st.composite
def cancelling_rows(draw: st.DrawFn, m: int) -> tuple[np.ndarray, float]:
    """x (m, 4): each row a, a, -a, small: x @ ones sums to a + small, which fits."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.uniform(0.5, 1.0, (m, 1)) * FMAX
    small = rng.standard_normal((m, 1))
    return np.hstack([a, a, -a, small])


def exact_product(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x @ w in exact rational arithmetic, rounded once."""
    out = np.zeros((x.shape[0], w.shape[1]))
    for i in range(x.shape[0]):
        for j in range(w.shape[1]):
            out[i, j] = float(
                sum(exact(a) * exact(b) for a, b in zip(x[i], w[:, j], strict=True))
            )
    return out


@PROPERTY
@given(st.integers(1, 3), st.data())
def test_a_finite_product_is_no_error_when_only_a_partial_sum_overflows(m, data):
    x = data.draw(cancelling_rows(m))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    # w: ones in the three huge rows (the sum cancels), anything in the last
    w = np.vstack([np.ones((3, 2)), rng.standard_normal((1, 2))])
    want = exact_product(x, w)  # a + small * w[3]: below the largest float
    rtol = {"rtol": 1e-14}
    for function in (ad.row_times_matrix, ad.weighted_sum_of_rows):
        np.testing.assert_allclose(call(function, x[0], w), want[0], **rtol)
    q, k, v = call(ad.project_qkv, x, w, w, w)
    for got in (q, k, v):
        np.testing.assert_allclose(got, want, **rtol)
    # self-attention: scores from the last column only (they fit), values x @ w
    w_qk = np.vstack([np.zeros((3, 2)), rng.standard_normal((1, 2))])
    out = call(ad.self_attention, x, w_qk, w_qk, w)
    assert np.all(np.isfinite(out))
    assert np.all((out >= want.min(axis=0)) & (out <= want.max(axis=0)))
    # multi-head attention: the same, with W^O the identity
    w_v = np.vstack([np.ones((3, 4)), rng.standard_normal((1, 4))])
    w_qk = np.vstack([np.zeros((3, 4)), rng.standard_normal((1, 4))])
    out, _ = call(ad.multi_head_attention, x, x, x, w_qk, w_qk, w_v, np.eye(4), 2)
    assert np.all(np.isfinite(out))
    # the feed-forward network: the hidden layer is x @ w_1 + b_1, it fits
    b_1 = rng.standard_normal(2)
    w_2 = rng.standard_normal((2, 4)) * 2.0**-1000  # back to small outputs
    out = call(ad.feed_forward, x, w, b_1, w_2, np.zeros(4))
    hidden = np.maximum(exact_product(x, w) + b_1, 0.0)
    np.testing.assert_allclose(out, hidden @ w_2, rtol=1e-12)
    # additive attention: q @ w_q fits, so do the scores
    w_a = rng.standard_normal(2)
    out = call(ad.additive_attention, x, x[:, 3:], x[:, 3:], w, w[3:], w_a)
    assert np.all(np.isfinite(out))


# -- digits of the scores ------------------------------------------------------------


@PROPERTY
@given(
    st.integers(1, 3),
    st.integers(2, 3),
    st.integers(-1074 + 40, -1022),
    st.sampled_from([None, 0.5, 1e-3]),
    st.data(),
)
def test_scores_keep_their_digits_when_q_is_tiny(n_q, d_k, exponent, scale, data):
    # q near the smallest normal float: q * scale is subnormal (digits lost),
    # but the scores q k^T * scale are normal numbers with every digit
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    q = np.ldexp(rng.uniform(1.0, 2.0, (n_q, d_k)), exponent)
    k = rng.uniform(1.0, 2.0, (3, d_k)) * 2.0**200
    got = call(ad.attention_scores, q, k, scale=scale)
    s = Fraction(1 / math.sqrt(d_k) if scale is None else scale)
    for i in range(n_q):
        for j in range(3):
            want = s * sum(exact(a) * exact(b) for a, b in zip(q[i], k[j], strict=True))
            assert math.isclose(got[i, j], float(want), rel_tol=1e-14)


# -- no floating-point exception, whatever the magnitudes ----------------------------


@PROPERTY
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.lists(
        st.sampled_from([FMAX, -FMAX, FMAX / 3, 1e-310, -5e-324, 1e-300, 0.0, 1.0]),
        min_size=9,
        max_size=9,
    ),
    st.data(),
)
def test_values_near_the_maximum_and_tiny_ones_raise_nothing(n_q, n_k, pool, data):
    # near-maximal and subnormal entries in the same column of v: every
    # function that forms a weighted sum of values returns a finite output
    # within each column's range, under np.errstate(all="raise")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    v = np.resize(np.array(pool), (n_k, 3))
    q, k = rng.standard_normal((n_q, 2)), rng.standard_normal((n_k, 2))
    low, high = v.min(axis=0), v.max(axis=0)

    def within(out):
        assert np.all(np.isfinite(out))
        assert np.all((out >= low) & (out <= high))

    within(call(ad.scaled_dot_product_attention, q, k, v))
    within(call(ad.blockwise_attention, q, k, v, block_size=2))
    cache = ad.KVCache(2, 3)
    call(cache.append, k, v)
    within(call(cache.attend, q[:1]))
    out, _ = call(
        ad.Query(q[0]).retrieve_values, [ad.Key(r) for r in k], [ad.Value(r) for r in v]
    )
    within(out)
    within(call(ad.additive_attention, q, k, v, np.eye(2), np.eye(2), np.ones(2)))
    g = rng.standard_normal((n_q, 3))
    try:
        call(ad.scaled_dot_product_attention_backward, q, k, v, g)
    except ValueError as error:  # only a gradient that does not fit
        assert "overflows float64" in str(error)


def test_training_with_a_huge_learning_rate_names_lr() -> None:
    for lr in (1e3, 1e300):
        try:
            result = call(
                train, steps=4, batch=2, n=3, vocab=4, d_model=4, d_k=2, lr=lr
            )
        except ValueError as error:  # never a numpy warning or internal names
            assert re.search(r"diverged at step \d+ of 4: .*`lr`=", str(error))
        else:
            assert np.all(np.isfinite(result.losses))
    with pytest.raises(ValueError, match=r"`lr`=1e\+300 is too large"):
        call(train, steps=4, batch=2, n=3, vocab=4, d_model=4, d_k=2, lr=1e300)


# -- memory ---------------------------------------------------------------------------


def test_the_gradients_take_memory_linear_in_vocab() -> None:
    # no (vocab, vocab) one-hot matrix: 2**14 ids would make one of 2 GiB
    vocab, d = 2**14, 4
    rng = np.random.default_rng(0)
    params = init_params(rng, vocab=vocab, d_model=d, d_k=d)
    tokens, targets = reversal_task(rng, 2, 3, vocab)
    parameters = sum(p.nbytes for p in params.values())
    tracemalloc.start()
    try:
        call(loss_and_gradients, params, tokens, targets)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the docstring: O(N vocab + batch n^2 + parameters), here some 2 MB
    assert peak < 8 * (tokens.size * vocab * 8) + 8 * parameters


# -- state after an exception ---------------------------------------------------------


class _FailingAllocation:
    """np.empty that raises MemoryError at its ``fail_at``-th call (from 0)."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at, self.calls, self.real = fail_at, 0, np.empty

    def __call__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        self.calls += 1
        if self.calls - 1 == self.fail_at:
            raise MemoryError("injected")
        return self.real(*args, **kwargs)


@PROPERTY
@given(
    st.lists(
        st.tuples(st.integers(1, 5), st.sampled_from([None, None, 0, 1])),
        min_size=1,
        max_size=6,
    ),
    st.data(),
)
def test_a_cache_that_fails_to_grow_is_unchanged_and_still_correct(steps, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    cache = ad.KVCache(2, 3, capacity=1)
    keys, values = np.zeros((0, 2)), np.zeros((0, 3))
    for t, fail_at in steps:
        k, v = rng.standard_normal((t, 2)), rng.standard_normal((t, 3))
        if fail_at is not None and len(cache) + t > cache.capacity:
            before = (
                len(cache),
                cache.capacity,
                cache.keys.copy(),
                cache.values.copy(),
            )
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(np, "empty", _FailingAllocation(fail_at))
                with pytest.raises(MemoryError):
                    cache.append(k, v)
            assert (len(cache), cache.capacity) == before[:2]
            np.testing.assert_array_equal(cache.keys, before[2])
            np.testing.assert_array_equal(cache.values, before[3])
            assert cache._k.shape[-2] == cache._v.shape[-2]  # one capacity
        call(cache.append, k, v)
        keys, values = np.vstack([keys, k]), np.vstack([values, v])
        np.testing.assert_array_equal(cache.keys, keys)
        np.testing.assert_array_equal(cache.values, values)
    want = ad.scaled_dot_product_attention(keys[-1:], keys, values)
    np.testing.assert_allclose(call(cache.attend, keys[-1:]), want, rtol=1e-12)


def test_an_adam_step_that_fails_for_lack_of_memory_changes_nothing() -> None:
    params = {"a": np.ones(3), "b": np.full(2, -1.0)}
    adam = Adam(params, lr=0.1)
    adam.step(params, {"a": np.ones(3), "b": np.ones(2)})
    state = (
        adam.t,
        {n: (params[n].copy(), adam.m[n].copy(), adam.v[n].copy()) for n in params},
    )
    calls = {"n": 0}
    real_sqrt = np.sqrt

    def sqrt(*args: Any, **kwargs: Any) -> Any:  # fails for the second parameter
        calls["n"] += 1
        if calls["n"] == 2:
            raise MemoryError("injected")
        return real_sqrt(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(np, "sqrt", sqrt)
        with pytest.raises(MemoryError):
            adam.step(params, {"a": np.ones(3), "b": np.ones(2)})
    assert adam.t == state[0]
    for name, (theta, m, v) in state[1].items():
        np.testing.assert_array_equal(params[name], theta)
        np.testing.assert_array_equal(adam.m[name], m)
        np.testing.assert_array_equal(adam.v[name], v)
    call(adam.step, params, {"a": np.ones(3), "b": np.ones(2)})  # and it goes on
    assert adam.t == 2


class _FailingMath:
    """The math module, but its ``fail_at``-th ``sqrt`` raises MemoryError."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at, self.calls = fail_at, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(math, name)

    def sqrt(self, x: float) -> float:
        self.calls += 1
        if self.calls == self.fail_at:
            raise MemoryError("injected")
        return math.sqrt(x)


@pytest.mark.parametrize(
    ("modules", "draws", "make"),
    [
        (["multihead"], 4, lambda rng: ad.MultiHeadAttention(4, 2, rng=rng)),
        (
            ["multihead", "transformer"],
            6,
            lambda rng: ad.EncoderLayer(4, 2, 6, rng=rng),
        ),
        (
            ["multihead", "transformer"],
            10,
            lambda rng: ad.DecoderLayer(4, 2, 6, rng=rng),
        ),
        (["training"], 4, lambda rng: init_params(rng, vocab=5, d_model=4, d_k=2)),
    ],
    ids=["MultiHeadAttention", "EncoderLayer", "DecoderLayer", "init_params"],
)
def test_a_constructor_that_raises_leaves_the_rng_as_it_was(modules, draws, make):
    import importlib

    targets = [importlib.import_module(f"attention_docs.{m}") for m in modules]
    for fail_at in range(1, draws + 1):  # after 0, 1, ... scaled draws
        rng = np.random.default_rng(7)
        failing = _FailingMath(fail_at)
        with pytest.MonkeyPatch.context() as patch:
            for target in targets:
                patch.setattr(target, "math", failing)
            with pytest.raises(MemoryError):
                make(rng)
        assert rng.standard_normal() == np.random.default_rng(7).standard_normal()


# -- native byte order, ragged input, huge integers ------------------------------------


def _arrays_in(result: Any) -> list[np.ndarray]:
    if isinstance(result, np.ndarray):
        return [result]
    if isinstance(result, tuple | list):
        return [a for item in result for a in _arrays_in(item)]
    if isinstance(result, dict):
        return [a for item in result.values() for a in _arrays_in(item)]
    return []


@pytest.mark.parametrize(
    ("label", "function", "kwargs"), ARGUMENTS, ids=[a[0] for a in ARGUMENTS]
)
def test_big_endian_input_gives_native_output(label, function, kwargs) -> None:
    swapped = {
        name: value.astype(value.dtype.newbyteorder(">"))
        if isinstance(value, np.ndarray) and value.dtype.kind == "f"
        else value
        for name, value in kwargs.items()
    }
    if label == "KVCache.append":  # a fresh cache: the shared one must not grow
        cache = ad.KVCache(2, 2)
        function = cache.append
        call(function, **swapped)
        arrays = [cache.keys, cache.values]
    else:
        arrays = _arrays_in(call(function, **swapped))
    for array in arrays:
        assert array.dtype.isnative, (label, array.dtype)
        assert array.dtype in (np.float32, np.float64, np.bool_), (label, array.dtype)


def test_more_functions_give_native_output_for_big_endian_input() -> None:
    big = np.dtype(">f8")
    params = init_params(np.random.default_rng(0), vocab=4, d_model=4, d_k=2)
    swapped = {name: p.astype(big) for name, p in params.items()}
    tokens = np.array([[0, 1, 2]], dtype=">i8")
    fwd = call(forward, swapped, tokens)
    assert all(a.dtype.isnative for a in fwd)
    _, grads = call(loss_and_gradients, swapped, tokens, tokens[:, ::-1])
    assert all(g.dtype.isnative for g in grads.values())
    adam = Adam(swapped)
    assert all(a.dtype.isnative for a in (*adam.m.values(), *adam.v.values()))
    for function, args in [
        (ad.softmax, (np.ones(3, big),)),
        (ad.masked_softmax, (np.ones(3, big), np.ones(3, bool))),
        (ad.attention_scores, (np.ones((2, 2), big), np.ones((3, 2), big))),
        (ad.layer_norm, (np.arange(3.0).astype(big),)),
        (ad.apply_rope, (np.ones((2, 2), big), np.arange(2.0).astype(big))),
    ]:
        assert call(function, *args).dtype == np.float64  # native: '<f8' here


@pytest.mark.parametrize(
    ("label", "function", "kwargs"), ARGUMENTS, ids=[a[0] for a in ARGUMENTS]
)
def test_ragged_lists_and_huge_integers_are_named(label, function, kwargs) -> None:
    for name, value in kwargs.items():
        if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
            continue
        rows = value.tolist() if value.ndim > 1 else [value.tolist()]
        ragged = [rows[0], [*rows[0], 1.0]] if value.ndim > 1 else [[1.0], [1.0, 2.0]]
        with pytest.raises(ValueError, match=f"^`{name}` is ragged"):
            call(function, **{**kwargs, name: ragged})
        huge = value.astype(object)
        huge.flat[0] = 2**64
        with pytest.raises(
            ValueError, match=f"^`{name}` holds an integer too large for int64"
        ):
            call(function, **{**kwargs, name: huge})


def test_integer_arguments_refuse_huge_and_ragged_values_by_name() -> None:
    with pytest.raises(ValueError, match=r"^`lengths` holds an integer too large"):
        call(ad.padding_mask, [2**64], 3)
    with pytest.raises(ValueError, match=r"^`lengths` must lie in \[0, n_k\]"):
        call(ad.padding_mask, [2**63], 3)  # uint64: a number, out of range
    with pytest.raises(ValueError, match=r"^`lengths` is ragged"):
        call(ad.padding_mask, [[1], [1, 2]], 3)
    with pytest.raises(ValueError, match=r"^`targets` holds an integer too large"):
        call(cross_entropy, np.ones((1, 3)), np.array([2**64], dtype=object))
    with pytest.raises(ValueError, match=r"^`keys` holds an integer too large"):
        call(alignment_accuracy, np.eye(2), [0, -(2**70)])
    with pytest.raises(ValueError, match=r"^`mask` is ragged"):
        call(ad.attention_weights, np.ones((2, 2)), np.ones((2, 2)), mask=[[1], []])
    with pytest.raises(ValueError, match=r"^`x` is ragged"):
        call(ad.split_heads, [[1, 2], [3]], 1)


# -- the objects' own arguments --------------------------------------------------------


def test_adam_refuses_keys_that_are_not_strings() -> None:
    with pytest.raises(TypeError, match=r"^`params` must have strings as keys"):
        Adam({1: np.ones(1), "a": np.ones(1)})
    params = {"a": np.ones(1)}
    adam = Adam(params)
    for bad in ({1: np.ones(1), "a": np.ones(1)}, {("a",): np.ones(1)}):
        with pytest.raises(TypeError, match=r"^`grads` must have strings as keys"):
            call(adam.step, params, bad)
        with pytest.raises(TypeError, match=r"^`params` must have strings as keys"):
            call(adam.step, bad, {"a": np.ones(1)})
    assert adam.t == 0


@pytest.mark.parametrize("cls", ["EncoderLayer", "DecoderLayer"])
def test_a_layer_names_what_is_wrong_with_its_edited_weights(cls) -> None:
    rng = np.random.default_rng(0)
    layer = getattr(ad, cls)(4, 2, 6, rng=rng)
    x = rng.standard_normal((3, 4))
    args = (x,) if cls == "EncoderLayer" else (x, x)
    good = layer.w_1
    layer.w_1 = np.ones((4, 5))
    with pytest.raises(ValueError, match=rf"^`{cls}.w_1` has shape \(4, 5\), but"):
        call(layer, *args)
    layer.w_1 = good.copy()
    layer.w_1[0, 0] = np.nan
    with pytest.raises(ValueError, match=rf"^`{cls}.w_1` contains NaN"):
        call(layer, *args)
    layer.w_1 = good
    layer.self_attention.w_q = np.ones((4, 3))
    message = rf"^`{cls}.self_attention.w_q` has shape \(4, 3\), but .* \(4, 4\)"
    with pytest.raises(ValueError, match=message):
        call(layer, *args)
    layer.self_attention.w_q = np.full((4, 4), "a")
    with pytest.raises(TypeError, match=rf"^`{cls}.self_attention.w_q` must hold"):
        call(layer, *args)


def test_plotting_arguments_of_the_wrong_type_are_value_errors() -> None:
    from attention_docs import plotting

    w = np.full((2, 2), 0.5)
    with pytest.raises(ValueError, match="`labels` must be a sequence of 2 entries"):
        plotting.plot_weights_bar([0.5, 0.5], labels=5)
    with pytest.raises(ValueError, match="`titles` must be a sequence of 2 entries"):
        plotting.plot_heads(w[np.newaxis].repeat(2, axis=0), titles=5)
    with pytest.raises(ValueError, match="`titles` must be a pair"):
        plotting.plot_causal_mask(np.ones((2, 2), bool), w, titles=5)
    with pytest.raises(ValueError, match="`name` must be 'light' or 'dark'"):
        with plotting.theme(["dark"]):
            pass
    fig, _ = plotting.plot_heatmap(w)
    with pytest.raises(ValueError, match="`language` must be one of"):
        plotting.to_svg(fig, language=["ja"])


def test_the_objects_keep_their_own_copy() -> None:
    for cls in (ad.Query, ad.Key, ad.Value):
        vector = np.array([1.0, 2.0])
        item = cls(vector)
        vector[0] = np.nan  # a later write into the caller's array
        assert item.vector.tolist() == [1.0, 2.0]
    keys = [ad.Key(np.array([1e200, 0.0]))]
    # the key is checked once, when it is made: later writes cannot break it
    q = ad.Query([1.0, 0.0])
    assert call(q.compute_attention_weights, keys).tolist() == [1.0]


def test_masks_refuse_sizes_beyond_an_array_dimension() -> None:
    # np.arange(2**63) is empty: the mask would silently have no entries
    for size in (2**63, 2**64):
        with pytest.raises(ValueError, match=r"^`n_q` is too large for an array"):
            call(ad.causal_mask, size)
        with pytest.raises(ValueError, match=r"^`n_k` is too large for an array"):
            call(ad.causal_mask, 2, size)
        with pytest.raises(ValueError, match=r"^`n_k` is too large for an array"):
            call(ad.padding_mask, [1], size)
