r"""Linear attention: a kernel in place of the softmax, and its recurrent form.

Softmax attention weighs value :math:`\vec{v}_j` for query :math:`\vec{q}_i`
by :math:`\exp(\vec{q}_i \cdot \vec{k}_j / \sqrt{d_k})`, normalised over the
keys. Linear attention replaces that similarity by a dot product of features,
:math:`\phi(\vec{q}_i) \cdot \phi(\vec{k}_j)`, with a feature map
:math:`\phi : \mathbb{R}^{d_k} \to \mathbb{R}^{r}` whose values are positive
(by default :math:`\phi(x) = \operatorname{elu}(x) + 1`, entry by entry, so
:math:`r = d_k`). In matrix form, with :math:`\Phi_Q = \phi(Q)` and
:math:`\Phi_K = \phi(K)` (one row per token),

.. math::

    Z = \operatorname{diag}\bigl(\Phi_Q \Phi_K^\top \vec{1}\bigr)^{-1}
        \bigl(\Phi_Q \Phi_K^\top\bigr) V
      = \operatorname{diag}\bigl(\Phi_Q \vec{z}\bigr)^{-1}
        \Phi_Q \bigl(\Phi_K^\top V\bigr),
    \qquad \vec{z} = \Phi_K^\top \vec{1},

and the right-hand side, which multiplies in the other order, costs
:math:`O(n\, r\, d_v)` instead of :math:`O(n^2 (r + d_v))`: no
:math:`n_q \times n_k` matrix is ever formed. With a causal mask, query
:math:`t` needs the prefix sums

.. math::

    S_t = S_{t-1} + \phi(\vec{k}_t)^\top \vec{v}_t, \qquad
    \vec{z}_t = \vec{z}_{t-1} + \phi(\vec{k}_t), \qquad
    \vec{o}_t = \frac{\phi(\vec{q}_t)\, S_t}{\phi(\vec{q}_t) \cdot \vec{z}_t},

an RNN whose state is the :math:`r \times d_v` matrix :math:`S_t` and the
vector :math:`\vec{z}_t` (:math:`S_0 = 0`, :math:`\vec{z}_0 = \vec{0}`):
:func:`linear_attention_step` takes one step of it, in time and memory that
do not grow with :math:`t`, where a KV cache holds :math:`t (d_k + d_v)`
numbers per head.

Source: Katharopoulos, Vyas, Pappas and Fleuret, 2020, "Transformers are
RNNs: Fast Autoregressive Transformers with Linear Attention" (ICML 2020,
arXiv:2006.16236): Section 3.1, Equation 3, and Section 3.2, Equations 4
to 6 (the kernel and the change of order); Section 3.2.1, Equation 7
(:math:`\operatorname{elu}(x) + 1`); Section 3.3, Equations 8 to 11
(causal masking, :math:`S_i` and :math:`Z_i`); Section 3.4 (the recurrent
form). The paper writes column vectors, :math:`\phi(Q_i)^\top S_i`; the
package writes rows, as the book does. The book derives all of it on its
page "Linear attention" (linear-attention.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatArray,
    as_float_array,
    broadcast_batch,
    check_finite_product,
    check_ndim,
    check_same_size,
)

__all__ = [
    "LinearAttentionState",
    "elu_feature_map",
    "linear_attention",
    "linear_attention_step",
]

FeatureMap = str | Callable[[FloatArray], ArrayLike]


def elu_feature_map(x: ArrayLike) -> FloatArray:
    r"""The feature map :math:`\phi(x) = \operatorname{elu}(x) + 1`, entry by entry.

    .. math::

        \phi(x) = \begin{cases} x + 1 & (x > 0) \\ e^{x} & (x \le 0) \end{cases}

    Parameters
    ----------
    x : array_like, shape (..., d_k)
        Real numbers (queries or keys).

    Returns
    -------
    ndarray, shape (..., d_k)
        :math:`\phi(x)`, in the dtype of ``as_float_array`` (float64, or
        float32 for float16/float32 input). Every entry is positive in exact
        arithmetic; in floating point :math:`e^{x}` underflows to 0 for
        :math:`x` below about -745 (float64) or -104 (float32).

    Raises
    ------
    ValueError
        If ``x`` holds NaN or an infinity.
    TypeError
        If ``x`` does not hold real numbers.

    Notes
    -----
    Katharopoulos et al. (2020), Section 3.2.1, Equation 7. It is
    continuous, increasing, positive, and equal to 1 at 0.

    Examples
    --------
    >>> elu_feature_map([-1.0, 0.0, 2.0]).round(4).tolist()
    [0.3679, 1.0, 3.0]
    """
    x = as_float_array("x", x)
    with np.errstate(under="ignore"):
        # elu(x) + 1: x + 1 above 0, e^x at or below 0 (no overflow in e^x)
        return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))


def _features(feature_map: FeatureMap, name: str, x: FloatArray) -> FloatArray:
    """phi(x) for the argument ``name``, checked: finite, positive, (..., r)."""
    if isinstance(feature_map, str):
        if feature_map != "elu":
            raise ValueError(
                f'`feature_map` must be "elu" or a callable, got {feature_map!r}'
            )
        phi = elu_feature_map(x)
        if not np.all(phi > 0):
            bound = math.log(np.finfo(x.dtype).smallest_subnormal)
            raise ValueError(
                f"elu(x) + 1 = e^x underflows to 0 for an entry of `{name}` "
                f"below {bound:.0f} ({x.dtype}): min({name}) = {float(x.min())}"
            )
        return phi
    if not callable(feature_map):
        raise ValueError(
            f'`feature_map` must be "elu" or a callable, got {feature_map!r}'
        )
    phi = np.asarray(feature_map(x.copy()))
    if phi.dtype.kind not in "fiu" or phi.dtype == np.bool_:
        raise TypeError(
            f"`feature_map` must return real numbers, got dtype {phi.dtype} "
            f"for `{name}`"
        )
    if phi.shape[:-1] != x.shape[:-1] or phi.ndim != x.ndim or phi.shape[-1] == 0:
        raise ValueError(
            f"`feature_map` must map `{name}` of shape {x.shape} to shape "
            f"{(*x.shape[:-1], 'r')} with r >= 1, got shape {phi.shape}"
        )
    phi = phi.astype(x.dtype, copy=False)
    if not np.all(np.isfinite(phi)):
        raise ValueError(f"`feature_map` returned NaN or an infinity for `{name}`")
    if not np.all(phi > 0):
        raise ValueError(
            f"`feature_map` must return positive values, got "
            f"min = {float(phi.min())} for `{name}`: a value <= 0 could make "
            f"the denominator phi(q) . z zero or negative"
        )
    return phi


def _check_finite(x: FloatArray, what: str, dtype: object) -> None:
    """Raise ValueError naming ``what`` if ``x`` overflowed."""
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what} overflows {np.dtype(dtype)}")


def _divide(numerator: FloatArray, denominator: FloatArray, seen: object) -> FloatArray:
    """numerator / denominator per row; rows that see no key (``seen`` False) are 0."""
    visible = np.broadcast_to(seen, denominator.shape)
    if np.any(visible & (denominator <= 0)):
        raise ValueError(
            "the denominator phi(q_i) . z_i underflowed to 0: the features of "
            "`q` and `k` are too small for the dtype"
        )
    safe = np.where(visible, denominator, 1)
    output = np.where(visible, numerator / safe, 0).astype(numerator.dtype)
    _check_finite(output, "the output", output.dtype)
    return output


def linear_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    feature_map: FeatureMap = "elu",
    causal: bool = False,
) -> FloatArray:
    r"""Linear attention, parallel form: :math:`\phi(Q)(\phi(K)^\top V)`, normalised.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries, one row per query.
    k : array_like, shape (..., n_k, d_k)
        Keys, one row per key.
    v : array_like, shape (..., n_k, d_v)
        Values, one row per key.
    feature_map : "elu" or callable, optional
        :math:`\phi`, applied to ``q`` and to ``k``. ``"elu"`` (default) is
        :func:`elu_feature_map`, :math:`r = d_k`. A callable receives a copy
        of the array ``(..., n, d_k)`` and must return ``(..., n, r)`` with
        the same ``r >= 1`` for both, all values positive and finite.
    causal : bool, optional
        If True, query ``i`` sees the keys ``j <= i + (n_k - n_q)`` (the
        book's causal mask, aligned bottom right, as
        :func:`~attention_docs.masks.causal_mask`). Default False: every key.

    Returns
    -------
    ndarray, shape (..., n_q, d_v)
        Row ``i`` is :math:`\sum_j w_{ij} \vec{v}_j` with
        :math:`w_{ij} = \phi(\vec{q}_i) \cdot \phi(\vec{k}_j) /
        \sum_l \phi(\vec{q}_i) \cdot \phi(\vec{k}_l)` over the keys it sees:
        positive weights that sum to 1. A query that sees no key (causal,
        ``n_q > n_k``) gets a zero row. Batch dimensions broadcast;
        ``n_q = 0`` or ``d_v = 0`` give an empty result. dtype: float64, or
        float32 when every input is float32 or float16.

    Raises
    ------
    ValueError
        If the shapes do not match or broadcast, ``d_k = 0`` or ``n_k = 0``;
        if an input holds NaN or an infinity; if ``feature_map`` is neither
        ``"elu"`` nor a callable, returns the wrong shape, a value that is
        not finite, or a value :math:`\le 0`; if a sum or product overflows,
        or a denominator underflows to 0 (the default map's :math:`e^{x}`
        underflows below about -745 in float64).
    TypeError
        If an input, or what ``feature_map`` returns, is not real numbers.

    Notes
    -----
    Katharopoulos et al. (2020), Section 3.2, Equations 4 to 6, and Section
    3.3, Equations 8 to 11 (see the module's docstring). The denominator
    :math:`\phi(\vec{q}_i) \cdot \vec{z}` is a sum of products of positive
    numbers, so it is positive in exact arithmetic: the default map's values
    are :math:`x + 1 > 1` or :math:`e^{x} > 0`, and a callable's are
    checked. Work: :math:`O(n_k r d_v + n_q r d_v)` products. Memory besides
    inputs and output: :math:`r d_v + r` numbers per batch entry without
    ``causal``; with ``causal``, this numpy version keeps every prefix
    state, :math:`n_k (r d_v + r)` numbers (a loop over
    :func:`linear_attention_step` keeps one).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 5, 4))
    >>> out = linear_attention(q, k, v)
    >>> phi_q, phi_k = elu_feature_map(q), elu_feature_map(k)
    >>> w = phi_q @ phi_k.T  # (5, 4) @ (4, 5) -> (5, 5)
    >>> w /= w.sum(axis=1, keepdims=True)
    >>> bool(np.allclose(out, w @ v))
    True

    With ``causal=True`` the first query sees the first key only:

    >>> out = linear_attention(q, k, v, causal=True)
    >>> bool(np.allclose(out[0], v[0]))
    True
    """
    q = as_float_array("q", q)
    k = as_float_array("k", k)
    v = as_float_array("v", v)
    check_ndim("q", q, 2, "(..., n_q, d_k)")
    check_ndim("k", k, 2, "(..., n_k, d_k)")
    check_ndim("v", v, 2, "(..., n_k, d_v)")
    check_same_size("d_k", ("q", q, -1), ("k", k, -1))
    check_same_size("n_k", ("k", k, -2), ("v", v, -2))
    if q.shape[-1] == 0:
        raise ValueError(f"`q` and `k` have d_k=0: shapes {q.shape} and {k.shape}")
    if k.shape[-2] == 0:
        raise ValueError(f"`k` has n_k=0 keys: shape {k.shape}")
    broadcast_batch(("q", q), ("k", k), ("v", v))
    causal = bool(causal)
    dtype = np.result_type(q, k, v)
    phi_q = _features(feature_map, "q", q).astype(dtype, copy=False)
    phi_k = _features(feature_map, "k", k).astype(dtype, copy=False)
    check_same_size("r", ("feature_map(q)", phi_q, -1), ("feature_map(k)", phi_k, -1))
    v = v.astype(dtype, copy=False)
    n_q, n_k = q.shape[-2], k.shape[-2]
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if not causal:
            # S = phi(K)^T V: (..., r, n_k) @ (..., n_k, d_v) -> (..., r, d_v)
            s = np.swapaxes(phi_k, -1, -2) @ v
            # z = phi(K)^T 1: (..., n_k, r) -> (..., r)
            z = phi_k.sum(axis=-2)
            check_finite_product(s, ("k", k), ("v", v))
            _check_finite(z, "the sum of phi(`k`)", dtype)
            # phi(Q) S: (..., n_q, r) @ (..., r, d_v) -> (..., n_q, d_v)
            numerator = phi_q @ s
            # phi(Q) z: (..., n_q, r) @ (..., r, 1) -> (..., n_q, 1)
            denominator = phi_q @ z[..., None]
            seen: object = True
        else:
            # phi(k_j)^T v_j for every j: (..., n_k, r, 1) * (..., n_k, 1, d_v)
            outer = phi_k[..., :, :, None] * v[..., :, None, :]
            s_prefix = np.cumsum(outer, axis=-3)  # S_j: (..., n_k, r, d_v)
            z_prefix = np.cumsum(phi_k, axis=-2)  # z_j: (..., n_k, r)
            check_finite_product(s_prefix, ("k", k), ("v", v))
            _check_finite(z_prefix, "the sum of phi(`k`)", dtype)
            last = np.arange(n_q) + (n_k - n_q)  # last key query i sees (0-based)
            seen = (last >= 0)[:, None]  # (n_q, 1)
            index = np.clip(last, 0, n_k - 1)
            s_seen = s_prefix[..., index, :, :]  # S_{last(i)}: (..., n_q, r, d_v)
            z_seen = z_prefix[..., index, :]  # z_{last(i)}: (..., n_q, r)
            # phi(q_i) S_{last(i)}: (..., n_q, r), (..., n_q, r, d_v) -> (..., n_q, d_v)
            numerator = np.einsum("...ir,...ird->...id", phi_q, s_seen)
            # phi(q_i) . z_{last(i)}: (..., n_q, r) -> (..., n_q, 1)
            denominator = np.sum(phi_q * z_seen, axis=-1, keepdims=True)
        check_finite_product(numerator, ("q", q), ("v", v))
        check_finite_product(denominator, ("q", q), ("k", k))
        return _divide(numerator, denominator, seen)


class LinearAttentionState(NamedTuple):
    r"""The state of causal linear attention after :math:`t` tokens.

    Its size does not depend on :math:`t`: :math:`r d_v + r` numbers per
    batch entry (:math:`r = d_k` for the default feature map), where a KV
    cache holds :math:`t (d_k + d_v)`.
    """

    #: :math:`S_t = \sum_{j \le t} \phi(\vec{k}_j)^\top \vec{v}_j`, shape (..., r, d_v).
    s: FloatArray
    #: :math:`\vec{z}_t = \sum_{j \le t} \phi(\vec{k}_j)`, shape (..., r).
    z: FloatArray


def linear_attention_step(
    state: LinearAttentionState | None,
    q_t: ArrayLike,
    k_t: ArrayLike,
    v_t: ArrayLike,
    *,
    feature_map: FeatureMap = "elu",
) -> tuple[FloatArray, LinearAttentionState]:
    r"""One step of causal linear attention as an RNN.

    .. math::

        S_t = S_{t-1} + \phi(\vec{k}_t)^\top \vec{v}_t, \qquad
        \vec{z}_t = \vec{z}_{t-1} + \phi(\vec{k}_t), \qquad
        \vec{o}_t = \frac{\phi(\vec{q}_t)\, S_t}{\phi(\vec{q}_t) \cdot \vec{z}_t}

    Parameters
    ----------
    state : LinearAttentionState or None
        :math:`(S_{t-1}, \vec{z}_{t-1})`; None for the empty state
        :math:`S_0 = 0`, :math:`\vec{z}_0 = \vec{0}` before the first token.
    q_t : array_like, shape (..., d_k)
        The query of token :math:`t`.
    k_t : array_like, shape (..., d_k)
        Its key.
    v_t : array_like, shape (..., d_v)
        Its value.
    feature_map : "elu" or callable, optional
        As in :func:`linear_attention`; use the same map at every step.

    Returns
    -------
    output : ndarray, shape (..., d_v)
        :math:`\vec{o}_t`, equal (to rounding) to row :math:`t` of
        ``linear_attention(q, k, v, causal=True)`` for the same tokens.
    state : LinearAttentionState
        :math:`(S_t, \vec{z}_t)`, new arrays of shapes (..., r, d_v) and
        (..., r); the ``state`` passed in is not changed.

    Raises
    ------
    ValueError
        If ``q_t`` and ``k_t`` differ in ``d_k`` or have ``d_k = 0``; if the
        batch dimensions do not broadcast; if ``state`` does not have the
        shapes (..., r, d_v) and (..., r) of this step's features and value;
        for every reason of :func:`linear_attention` about the feature map,
        non-finite input, overflow or underflow.
    TypeError
        If an input is not real numbers, or ``state`` is neither None nor a
        :class:`LinearAttentionState`.

    Notes
    -----
    Katharopoulos et al. (2020), Section 3.3, Equations 10 and 11, and
    Section 3.4 (the transformer as an RNN). Time per step:
    :math:`2 r d_v + r` multiply-adds (:math:`\phi(\vec{k}_t)^\top \vec{v}_t`,
    :math:`\phi(\vec{q}_t) S_t` and :math:`\phi(\vec{q}_t) \cdot \vec{z}_t`;
    :math:`\vec{z}_t` only adds), whatever :math:`t`; memory: the state,
    :math:`r d_v + r` numbers per batch entry. Softmax attention with a KV
    cache does :math:`t (d_k + d_v)` multiply-adds at step :math:`t` and keeps
    :math:`t (d_k + d_v)` numbers (the book's page "KV cache", kv-cache.md,
    sections "Cost" and "Cache size").

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 5, 4))
    >>> state = None
    >>> rows = []
    >>> for t in range(5):
    ...     o_t, state = linear_attention_step(state, q[t], k[t], v[t])
    ...     rows.append(o_t)
    ...
    >>> state.s.shape, state.z.shape
    ((4, 4), (4,))
    >>> bool(np.allclose(rows, linear_attention(q, k, v, causal=True)))
    True
    """
    q_t = as_float_array("q_t", q_t)
    k_t = as_float_array("k_t", k_t)
    v_t = as_float_array("v_t", v_t)
    check_ndim("q_t", q_t, 1, "(..., d_k)")
    check_ndim("k_t", k_t, 1, "(..., d_k)")
    check_ndim("v_t", v_t, 1, "(..., d_v)")
    check_same_size("d_k", ("q_t", q_t, -1), ("k_t", k_t, -1))
    if q_t.shape[-1] == 0:
        raise ValueError(
            f"`q_t` and `k_t` have d_k=0: shapes {q_t.shape} and {k_t.shape}"
        )
    try:
        np.broadcast_shapes(q_t.shape[:-1], k_t.shape[:-1], v_t.shape[:-1])
    except ValueError:
        raise ValueError(
            "leading (batch) dimensions of `q_t`, `k_t`, `v_t` do not broadcast: "
            f"shapes {q_t.shape}, {k_t.shape} and {v_t.shape}"
        ) from None
    dtype = np.result_type(q_t, k_t, v_t)
    phi_q = _features(feature_map, "q_t", q_t).astype(dtype, copy=False)
    phi_k = _features(feature_map, "k_t", k_t).astype(dtype, copy=False)
    check_same_size(
        "r", ("feature_map(q_t)", phi_q, -1), ("feature_map(k_t)", phi_k, -1)
    )
    v_t = v_t.astype(dtype, copy=False)
    r, d_v = phi_k.shape[-1], v_t.shape[-1]
    if state is None:
        s_prev = np.zeros((r, d_v), dtype)
        z_prev = np.zeros(r, dtype)
    else:
        if not isinstance(state, LinearAttentionState):
            raise TypeError(
                "`state` must be a LinearAttentionState or None, got "
                f"{type(state).__name__}"
            )
        s_prev = as_float_array("state.s", state.s)
        z_prev = as_float_array("state.z", state.z)
        if (
            s_prev.ndim < 2
            or z_prev.ndim < 1
            or s_prev.shape[-2:] != (r, d_v)
            or z_prev.shape[-1] != r
        ):
            raise ValueError(
                f"`state` has shapes s {s_prev.shape} and z {z_prev.shape}, but "
                f"this step needs (..., r, d_v) = (..., {r}, {d_v}) and "
                f"(..., r) = (..., {r})"
            )
        dtype = np.result_type(dtype, s_prev, z_prev)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        # S_t = S_{t-1} + phi(k_t)^T v_t: (..., r, 1) * (..., 1, d_v) -> (..., r, d_v)
        s = (s_prev + phi_k[..., :, None] * v_t[..., None, :]).astype(dtype)
        z = (z_prev + phi_k).astype(dtype)  # z_t = z_{t-1} + phi(k_t): (..., r)
        _check_finite(s, "state.s + phi(`k_t`)^T `v_t`", dtype)
        _check_finite(z, "state.z + phi(`k_t`)", dtype)
        # phi(q_t) S_t: (..., 1, r) @ (..., r, d_v) -> (..., d_v)
        numerator = (phi_q[..., None, :] @ s)[..., 0, :]
        # phi(q_t) . z_t: (..., r) -> (..., 1)
        denominator = np.sum(phi_q * z, axis=-1, keepdims=True)
        check_finite_product(numerator, ("q_t", q_t), ("v_t", v_t))
        check_finite_product(denominator, ("q_t", q_t), ("k_t", k_t))
        output = _divide(numerator, denominator, True)
    return output, LinearAttentionState(s, z)
