r"""Multi-head latent attention (MLA): keys and values through one small latent.

Every token is compressed to one latent row :math:`\vec{c}_t = \vec{x}_t
W^{DKV}` of width :math:`d_c`; each head's keys and values are linear maps of
it, :math:`\vec{k}^C_{t,i} = \vec{c}_t W^{UK}_i` and :math:`\vec{v}_{t,i} =
\vec{c}_t W^{UV}_i`. Queries go through a latent of their own,
:math:`\vec{c}^Q_t = \vec{x}_t W^{DQ}`. Position enters through a second,
"decoupled" part of every query and key, rotated by RoPE: a key part
:math:`\vec{k}^R_t = \operatorname{RoPE}(\vec{x}_t W^{KR})` of width
:math:`d^R_h`, shared by all heads, and one query part per head. A decoder
caches :math:`\vec{c}_t` and :math:`\vec{k}^R_t` only,
:math:`d_c + d^R_h` numbers per token and layer. With :math:`d^R_h = 0`
the layer has no RoPE part and no position at all.

DeepSeek-AI (2024), "DeepSeek-V2: A Strong, Economical, and Efficient
Mixture-of-Experts Language Model", arXiv:2405.04434, Section 2.1,
Equations 9-19, in the book's row-vector convention (the paper writes column
vectors, :math:`\mathbf{c}^{KV}_t = W^{DKV} \mathbf{h}_t`; every matrix here
is the transpose of the paper's). DeepSeek-V3 (DeepSeek-AI, 2024,
arXiv:2412.19437, Section 2.1.1) uses the same attention. See the book's page
"Multi-head latent attention" (latent-attention.md).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import ScoresOverflow
from ._validation import (
    FloatArray,
    as_float_array,
    check_finite_product,
    check_ndim,
    check_positive_int,
)
from .attention import attention_kernel
from .masks import causal_mask
from .positional import apply_rope

__all__ = ["absorb_latent_params", "latent_attention", "latent_attention_params"]

# name: (rows, columns) of each weight, in the sizes of the docstrings
_LAYOUT = {
    "w_dq": ("d_model", "d_cq"),
    "w_uq": ("d_cq", "n_heads * d_h"),
    "w_qr": ("d_cq", "n_heads * d_r"),
    "w_dkv": ("d_model", "d_c"),
    "w_uk": ("d_c", "n_heads * d_h"),
    "w_uv": ("d_c", "n_heads * d_h"),
    "w_kr": ("d_model", "d_r"),
    "w_o": ("n_heads * d_h", "d_model"),
}


def latent_attention_params(
    d_model: int,
    n_heads: int,
    d_h: int,
    d_c: int,
    d_cq: int,
    d_r: int,
    *,
    rng: np.random.Generator,
) -> dict[str, FloatArray]:
    r"""Random weights of one multi-head latent attention layer.

    Parameters
    ----------
    d_model : int
        Width of the layer's input and output rows.
    n_heads : int
        Number of heads :math:`n_h`.
    d_h : int
        Width of one head's query, key and value without the RoPE part.
    d_c : int
        Width :math:`d_c` of the cached latent of keys and values.
    d_cq : int
        Width :math:`d'_c` of the latent of the queries.
    d_r : int
        Width :math:`d^R_h` of the RoPE part of each query and key; even,
        or 0 for a layer without position: ``w_qr`` and ``w_kr`` then have
        no columns, and :func:`latent_attention` computes the equations
        without RoPE (scale :math:`1/\sqrt{d_h}`).
    rng : numpy.random.Generator
        Source of the random numbers (keyword only).

    Returns
    -------
    dict of str to ndarray
        float64 matrices ``w_dq (d_model, d_cq)``, ``w_uq (d_cq, n_heads *
        d_h)``, ``w_qr (d_cq, n_heads * d_r)``, ``w_dkv (d_model, d_c)``,
        ``w_uk (d_c, n_heads * d_h)``, ``w_uv (d_c, n_heads * d_h)``, ``w_kr
        (d_model, d_r)``, ``w_o (n_heads * d_h, d_model)``, each drawn from
        :math:`\mathcal{N}(0, 1/\text{rows})`, so that a product keeps the
        scale of its input.

    Raises
    ------
    ValueError
        If a size is not a positive integer (``d_r``: a non-negative one) or
        ``d_r`` is odd (the message names it).

    Examples
    --------
    >>> params = latent_attention_params(8, 2, 4, 3, 5, 2,
    ...                                  rng=np.random.default_rng(0))
    >>> {name: w.shape for name, w in params.items()}["w_uk"]
    (3, 8)

    Without the RoPE part:

    >>> params = latent_attention_params(8, 2, 4, 3, 5, 0,
    ...                                  rng=np.random.default_rng(0))
    >>> params["w_qr"].shape, params["w_kr"].shape
    ((5, 0), (8, 0))
    """
    sizes = {
        "d_model": check_positive_int("d_model", d_model),
        "n_heads": check_positive_int("n_heads", n_heads),
        "d_h": check_positive_int("d_h", d_h),
        "d_c": check_positive_int("d_c", d_c),
        "d_cq": check_positive_int("d_cq", d_cq),
        "d_r": _check_rope_width(d_r),
    }
    if d_r % 2:
        raise ValueError(f"`d_r` must be even (RoPE rotates pairs), got {d_r}")
    sizes["n_heads * d_h"] = n_heads * d_h
    sizes["n_heads * d_r"] = n_heads * d_r
    params = {}
    for name, (rows, cols) in _LAYOUT.items():
        shape = (sizes[rows], sizes[cols])
        params[name] = rng.standard_normal(shape) / math.sqrt(shape[0])
    return params


def _check_rope_width(d_r: object) -> int:
    """``d_r`` as an int: 0 (no RoPE part) or a positive integer."""
    if isinstance(d_r, numbers.Integral) and not isinstance(d_r, bool) and d_r == 0:
        return 0
    try:
        return check_positive_int("d_r", d_r)
    except ValueError:
        raise ValueError(
            f"`d_r` must be an even integer >= 0 (0: no RoPE part), got {d_r!r}"
        ) from None


def _checked_params(params: object, x: FloatArray | None, n_heads: int) -> dict:
    """The weights as float arrays whose shapes fit ``x`` and one another.

    Without ``x``, d_model is read from ``params['w_dq']``.
    """
    if not isinstance(params, Mapping):
        raise TypeError(
            f"`params` must be a mapping of weight names to matrices, "
            f"got {type(params).__name__}"
        )
    missing = [name for name in _LAYOUT if name not in params]
    if missing:
        raise ValueError(f"`params` lacks {', '.join(map(repr, missing))}")
    w = {}
    for name in _LAYOUT:
        w[name] = as_float_array(f"params['{name}']", params[name])
        if w[name].ndim != 2:
            raise ValueError(
                f"`params['{name}']` must have shape {_LAYOUT[name]}, "
                f"got shape {w[name].shape}"
            )
    size = {"d_model": w["w_dq"].shape[0] if x is None else x.shape[-1]}
    size["d_cq"], size["d_c"] = w["w_dq"].shape[1], w["w_dkv"].shape[1]
    size["d_r"] = w["w_kr"].shape[1]
    for name, columns in (("w_uq", "d_h"), ("w_qr", "d_r")):
        if w[name].shape[1] % n_heads:
            raise ValueError(
                f"`params['{name}']` has {w[name].shape[1]} columns, not a "
                f"multiple of n_heads={n_heads} (one block of {columns} per head)"
            )
    size["n_heads * d_h"] = w["w_uq"].shape[1]
    size["n_heads * d_r"] = n_heads * size["d_r"]
    if size["d_r"] % 2:
        raise ValueError(
            f"`params['w_kr']` has d_r={size['d_r']} columns; RoPE needs an even d_r"
        )
    for name, (rows, cols) in _LAYOUT.items():
        want = (size[rows], size[cols])
        if w[name].shape != want:
            raise ValueError(
                f"`params['{name}']` must have shape ({rows}, {cols}) = {want}"
                + ("" if x is None else f" for `x` of shape {x.shape}")
                + f" and n_heads={n_heads}, got shape {w[name].shape}"
            )
    return w


def _project(a: FloatArray, w: FloatArray, a_name: str, w_name: str) -> FloatArray:
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        out = a @ w  # (..., n, rows) @ (rows, cols) -> (..., n, cols)
    check_finite_product(out, (a_name, a), (w_name, w))
    return out


def _heads(a: FloatArray, n_heads: int) -> FloatArray:
    """(..., n, n_heads * d) -> (..., n_heads, n, d)."""
    *batch, n, width = a.shape
    a = a.reshape(*batch, n, n_heads, width // n_heads)  # (..., n, n_heads, d)
    return np.swapaxes(a, -2, -3)  # (..., n_heads, n, d)


def absorb_latent_params(
    params: Mapping[str, ArrayLike], n_heads: int
) -> dict[str, FloatArray]:
    r"""Fold :math:`W^{UK}` into the queries and :math:`W^{UV}` into :math:`W^O`.

    Parameters
    ----------
    params : mapping of str to array_like
        The weights of :func:`latent_attention`.
    n_heads : int
        Number of heads :math:`n_h`.

    Returns
    -------
    dict of str to ndarray
        ``w_uqk (n_heads, d_cq, d_c)``, head :math:`i`'s
        :math:`W^{UQ}_i (W^{UK}_i)^\top`, and ``w_uvo (n_heads, d_c,
        d_model)``, head :math:`i`'s :math:`W^{UV}_i W^O_i`, float64.

    Raises
    ------
    ValueError
        As :func:`latent_attention` for the weights.

    Notes
    -----
    For head :math:`i`, the dot product of a query and a key without their
    RoPE parts is

    .. math::

        \vec{q}^C_{t,i} (\vec{k}^C_{j,i})^\top
        = \vec{c}^Q_t W^{UQ}_i (\vec{c}_j W^{UK}_i)^\top
        = \vec{c}^Q_t \bigl(W^{UQ}_i (W^{UK}_i)^\top\bigr) \vec{c}_j^\top ,

    and head :math:`i`'s share of the output is
    :math:`\sum_j a_{tj} \vec{c}_j W^{UV}_i W^O_i`: the up-projections can
    be multiplied into the query and output projections once, and the
    scores and the weighted sum read the cached latents :math:`\vec{c}_j`
    directly (DeepSeek-AI, 2024, arXiv:2405.04434, Section 2.1.2, after
    Equation 11).

    Examples
    --------
    >>> params = latent_attention_params(8, 2, 4, 3, 5, 2,
    ...                                  rng=np.random.default_rng(0))
    >>> {name: w.shape for name, w in absorb_latent_params(params, 2).items()}
    {'w_uqk': (2, 5, 3), 'w_uvo': (2, 3, 8)}
    """
    n_heads = check_positive_int("n_heads", n_heads)
    w = _checked_params(params, None, n_heads)
    d_model, d_c = w["w_dkv"].shape
    w_uq = w["w_uq"].reshape(-1, n_heads, w["w_uq"].shape[1] // n_heads)
    w_uk = w["w_uk"].reshape(d_c, n_heads, -1)  # (d_c, n_heads, d_h)
    w_uv = w["w_uv"].reshape(d_c, n_heads, -1)  # (d_c, n_heads, d_h)
    w_o = w["w_o"].reshape(n_heads, -1, d_model)  # (n_heads, d_h, d_model)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        # W^UQ_i (W^UK_i)^T: (d_cq, d_h) @ (d_h, d_c) -> (d_cq, d_c), per head
        w_uqk = np.einsum("qih,cih->iqc", w_uq, w_uk)
        # W^UV_i W^O_i: (d_c, d_h) @ (d_h, d_model) -> (d_c, d_model), per head
        w_uvo = np.einsum("cih,ihm->icm", w_uv, w_o)
    if not (np.all(np.isfinite(w_uqk)) and np.all(np.isfinite(w_uvo))):
        raise ValueError("the absorbed products of `params` overflow float64")
    return {"w_uqk": w_uqk, "w_uvo": w_uvo}


def latent_attention(
    x: ArrayLike,
    params: Mapping[str, ArrayLike],
    n_heads: int,
    *,
    positions: ArrayLike | None = None,
    absorbed: bool = False,
) -> FloatArray:
    r"""Causal multi-head latent attention, computed explicitly or absorbed.

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
        Input rows :math:`\vec{x}_t` (the paper's :math:`\mathbf{h}_t`).
    params : mapping of str to array_like
        ``w_dq (d_model, d_cq)``, ``w_uq (d_cq, n_heads * d_h)``, ``w_qr
        (d_cq, n_heads * d_r)``, ``w_dkv (d_model, d_c)``, ``w_uk (d_c,
        n_heads * d_h)``, ``w_uv (d_c, n_heads * d_h)``, ``w_kr (d_model,
        d_r)``, ``w_o (n_heads * d_h, d_model)``; head :math:`i` owns the
        :math:`i`-th block of columns of ``w_uq``, ``w_qr``, ``w_uk``,
        ``w_uv`` and of rows of ``w_o``. ``d_r`` must be even; with
        ``d_r = 0`` (``w_qr`` and ``w_kr`` without columns) the layer has no
        RoPE part and the scale is :math:`1/\sqrt{d_h}`.
    n_heads : int
        Number of heads :math:`n_h`.
    positions : array_like, shape broadcastable to (..., n), optional
        Positions given to RoPE; default ``0, 1, ..., n - 1``. With
        ``d_r = 0`` they are checked but change nothing.
    absorbed : bool, optional
        False (default): build every head's keys and values from the latents
        and attend as multi-head attention does. True: attend with the
        latents themselves, through :func:`absorb_latent_params`. Both give
        the same output up to rounding.

    Returns
    -------
    ndarray, shape (..., n, d_model)
        :math:`\vec{u}_t`, float64. Row :math:`t` depends on rows
        :math:`1, \dots, t` of ``x`` only (causal). The explicit path holds
        ``n_heads`` keys and values of width ``d_h`` per token; the absorbed
        path holds one latent of width ``d_c`` and one RoPE key of width
        ``d_r`` per token, what a decoder caches.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions, is empty in ``n`` or not
        finite; if ``params`` lacks a weight or a weight's shape does not fit
        (the message names ``params['w_...']`` and the shape it must have);
        if ``n_heads`` is not a positive integer; if ``positions`` does not
        fit (see :func:`~attention_docs.positional.apply_rope`); if a
        product overflows.
    TypeError
        If ``params`` is not a mapping, or ``x`` or a weight does not hold
        real numbers.

    Notes
    -----
    DeepSeek-AI (2024), arXiv:2405.04434, Sections 2.1.2 and 2.1.3,
    Equations 9-19, with rows for columns:

    .. math::

        \vec{c}^Q_t = \vec{x}_t W^{DQ}, \quad
        \vec{c}_t = \vec{x}_t W^{DKV}, \quad
        \vec{k}^R_t = \operatorname{RoPE}_t(\vec{x}_t W^{KR}),

        \vec{q}_{t,i} = [\vec{c}^Q_t W^{UQ}_i ;\,
            \operatorname{RoPE}_t(\vec{c}^Q_t W^{QR}_i)], \quad
        \vec{k}_{j,i} = [\vec{c}_j W^{UK}_i ;\, \vec{k}^R_j], \quad
        \vec{v}_{j,i} = \vec{c}_j W^{UV}_i,

        \vec{u}_t = \sum_{i=1}^{n_h} \Bigl(\sum_{j \le t}
            \operatorname{softmax}_j\Bigl(
            \frac{\vec{q}_{t,i} \vec{k}_{j,i}^\top}{\sqrt{d_h + d_h^R}}\Bigr)
            \vec{v}_{j,i}\Bigr) W^O_i .

    The absorbed path uses :math:`\vec{q}^C_{t,i} (\vec{k}^C_{j,i})^\top =
    (\vec{c}^Q_t W^{UQ}_i (W^{UK}_i)^\top) \vec{c}_j^\top`: every head attends
    with queries of width :math:`d_c + d^R_h` to the same keys
    :math:`[\vec{c}_j; \vec{k}^R_j]` and values :math:`\vec{c}_j`, as in
    multi-query attention. RoPE is kept out of :math:`\vec{c}_j W^{UK}_i`
    because a rotation :math:`R_j` there would sit between
    :math:`W^{UQ}_i` and :math:`(W^{UK}_i)^\top` and change with the
    position (Section 2.1.3). See the book's page "Multi-head latent
    attention" (latent-attention.md).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> params = latent_attention_params(8, 2, 4, 3, 5, 2, rng=rng)
    >>> x = rng.standard_normal((6, 8))
    >>> explicit = latent_attention(x, params, 2)
    >>> absorbed = latent_attention(x, params, 2, absorbed=True)
    >>> explicit.shape, bool(np.allclose(explicit, absorbed))
    ((6, 8), True)

    Without the RoPE part (``d_r = 0``) the two paths agree as well:

    >>> params = latent_attention_params(8, 2, 4, 3, 5, 0, rng=rng)
    >>> explicit = latent_attention(x, params, 2)
    >>> bool(np.allclose(explicit, latent_attention(x, params, 2, absorbed=True)))
    True
    """
    x = as_float_array("x", x)
    check_ndim("x", x, 2, "(..., n, d_model)")
    n_heads = check_positive_int("n_heads", n_heads)
    w = _checked_params(params, x, n_heads)
    n = x.shape[-2]
    if n == 0:
        raise ValueError(f"`x` has no rows (n = 0): shape {x.shape}")
    if positions is None:
        positions = np.arange(n, dtype=np.float64)
    absorbed = bool(absorbed)
    d_r = w["w_kr"].shape[1]
    d_h = w["w_uq"].shape[1] // n_heads
    scale = 1.0 / math.sqrt(d_h + d_r)  # 1 / sqrt(d_h + d_h^R), Eq. 18
    c_q = _project(x, w["w_dq"], "x", "params['w_dq']")  # c^Q_t: (..., n, d_cq)
    c = _project(x, w["w_dkv"], "x", "params['w_dkv']")  # c_t: (..., n, d_c)
    q_r = _heads(_project(c_q, w["w_qr"], "c_q", "params['w_qr']"), n_heads)
    q_r = apply_rope(q_r, positions=np.asarray(positions)[..., np.newaxis, :])
    k_r = apply_rope(_project(x, w["w_kr"], "x", "params['w_kr']"), positions)
    k_r = k_r[..., np.newaxis, :, :]  # k^R_t, one for all heads: (..., 1, n, d_r)
    mask = causal_mask(n, n)
    if absorbed:
        ab = absorb_latent_params(w, n_heads)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            # c^Q_t W^UQ_i (W^UK_i)^T: (..., 1, n, d_cq) @ (n_heads, d_cq, d_c)
            q_c = c_q[..., np.newaxis, :, :] @ ab["w_uqk"]  # (..., n_heads, n, d_c)
        keys = np.concatenate([c[..., np.newaxis, :, :], k_r], axis=-1)  # [c; k^R]
        values = c[..., np.newaxis, :, :]  # (..., 1, n, d_c), shared
        w_out = ab["w_uvo"]  # W^UV_i W^O_i: (n_heads, d_c, d_model)
    else:
        q_c = _heads(_project(c_q, w["w_uq"], "c_q", "params['w_uq']"), n_heads)
        k_c = _heads(_project(c, w["w_uk"], "c", "params['w_uk']"), n_heads)
        k_r = np.broadcast_to(k_r, (*k_c.shape[:-1], d_r))
        keys = np.concatenate([k_c, k_r], axis=-1)  # [k^C_i; k^R]: (..., n_h, n, .)
        values = _heads(_project(c, w["w_uv"], "c", "params['w_uv']"), n_heads)
        w_out = w["w_o"].reshape(n_heads, d_h, -1)  # W^O_i: (n_heads, d_h, d_model)
    queries = np.concatenate([q_c, q_r], axis=-1)  # [q^C_i; q^R_i]
    if not np.all(np.isfinite(queries)):
        raise ValueError("the queries of `x` and `params` overflow float64")
    try:
        heads, _ = attention_kernel(queries, keys, values, scale, mask)
    except ScoresOverflow:
        raise ValueError(
            f"the scores of `x` and `params` overflow float64: `x` of shape {x.shape}"
        ) from None
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        # sum_i o_i W^O_i: (..., n_heads, n, .) @ (n_heads, ., d_model), summed
        out = np.sum(heads @ w_out, axis=-3)  # (..., n, d_model)
    if not np.all(np.isfinite(out)):
        raise ValueError("the output of `x` and `params` overflows float64")
    return out
