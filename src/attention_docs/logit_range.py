r"""Keeping the scores in range: RMS normalisation, QK-norm and soft-capping.

Dividing by :math:`\sqrt{d_k}` makes the scores' variance independent of
:math:`d_k` only when the components of the queries and keys have variance
about 1; when the weights :math:`W_Q` and :math:`W_K` grow by a factor
:math:`c`, the scores grow by :math:`c^2` and the softmax saturates. This
module gives the two remedies current models use:

- :func:`rms_norm`: root-mean-square normalisation of every row, Zhang and
  Sennrich, 2019, "Root Mean Square Layer Normalization" (NeurIPS 2019,
  arXiv:1910.07467), Section 4, Equation 4;
- :func:`qk_norm`: RMS normalisation of each head's queries and keys over
  :math:`d_k` before their dot product, which bounds every scaled score by
  :math:`\sqrt{d_k}\, \max_p |g^Q_p| \max_p |g^K_p|` (Henry et al., 2020,
  "Query-Key Normalization for Transformers", Findings of EMNLP 2020, with
  the :math:`\ell_2` norm and a learned scalar; Dehghani et al., 2023,
  "Scaling Vision Transformers to 22 Billion Parameters", ICML 2023,
  Section 2, "QK Normalization", with LayerNorm);
- :func:`soft_cap`: :math:`c \tanh(x / c)`, applied to the scores before the
  mask and the softmax, and to a language model's final logits (Gemma Team,
  2024, "Gemma 2: Improving Open Language Models at a Practical Size",
  arXiv:2408.00118, Section 2, "Logit soft-capping").

See the book's page "Keeping logits in range" (logit-range.md).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatArray,
    as_float_array,
    check_ndim,
    check_same_size,
    positive_finite,
    validated_qk,
)

__all__ = ["qk_norm", "rms_norm", "soft_cap"]


def _gain(
    name: str, gain: ArrayLike | None, like: tuple[str, FloatArray]
) -> FloatArray:
    """``gain`` as a finite scalar or ``(d,)`` array fitting ``like``'s last axis."""
    x_name, x = like
    if gain is None:
        return np.ones(x.shape[-1], x.dtype)
    array = as_float_array(name, gain)
    if array.ndim == 0:
        return np.full(x.shape[-1], array, array.dtype)
    if array.ndim != 1:
        raise ValueError(
            f"`{name}` must be a number or have shape (d,), got shape {array.shape}"
        )
    check_same_size("d", (x_name, x, -1), (name, array, 0))
    return array


def _rms_normalised(x: FloatArray, eps: float) -> FloatArray:
    """``x / sqrt(mean(x**2) + eps)`` row by row, for any finite magnitude.

    Each row is first divided by its largest absolute value ``s``, so no
    square overflows: with y = x / s, x / sqrt(ms(x) + eps) equals
    y / sqrt(ms(y) + eps / s**2) for s > 1, and s y / sqrt(ms(y) s**2 + eps)
    for s <= 1 (where eps / s**2 could overflow). An all-zero row stays zero.
    """
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        s = np.max(np.abs(x), axis=-1, keepdims=True)  # (..., 1)
        s = np.where(s > 0.0, s, 1.0).astype(x.dtype)  # an all-zero row: any s > 0
        y = x / s  # entries in [-1, 1]
        ms = np.mean(y * y, axis=-1, keepdims=True)  # mean(x^2) / s^2, in [1/d, 1]
        large = y / np.sqrt(ms + eps / (s * s))  # s > 1
        small = (y * s) / np.sqrt(ms * s * s + eps)  # s <= 1
        return np.where(s > 1.0, large, small)  # x / sqrt(mean(x^2) + eps)


def _rms_norm(x: FloatArray, gain: FloatArray, eps: float, names: str) -> FloatArray:
    with np.errstate(over="ignore", under="ignore"):
        out = _rms_normalised(x, eps) * gain  # (..., d) * (d,)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"the output {names} overflows {out.dtype}")
    return out


def rms_norm(
    x: ArrayLike, gain: ArrayLike | None = None, *, eps: float = 1e-6
) -> FloatArray:
    r"""RMS normalisation of every row: divide by the root mean square, then a gain.

    Parameters
    ----------
    x : array_like, shape (..., d)
        Rows to normalise (last axis), e.g. queries ``(..., n_q, d_k)``.
    gain : float or array_like of shape (d,), optional
        Gain :math:`g`, one number for every component or one per component;
        default 1.
    eps : float, optional
        :math:`\varepsilon > 0` added to the mean square (default ``1e-6``).

    Returns
    -------
    ndarray, shape (..., d)
        :math:`g \odot x / \sqrt{\operatorname{mean}_p x_p^2 + \varepsilon}`
        row by row. With the default gain, the root mean square of every row is
        :math:`\sqrt{m / (m + \varepsilon)} < 1`, where :math:`m` is the row's
        own mean square, so its Euclidean norm is below :math:`\sqrt{d}`; an
        all-zero row stays zero. float32 stays float32 (with a float32 or
        default gain); everything else gives float64. Rows of any magnitude are
        normalised without overflow; empty batch dimensions give an empty
        result.

    Raises
    ------
    ValueError
        If ``x`` has no dimensions or ``d = 0``; if ``gain`` is neither a
        number nor of shape ``(d,)``; if ``eps`` is not a positive finite
        number; if an input contains NaN or infinite values; if the output
        overflows (a huge gain).
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    .. math::

        \operatorname{RMSNorm}(x)_p
            = g_p \frac{x_p}{\sqrt{\frac{1}{d} \sum_{r=1}^{d} x_r^2 + \varepsilon}} .

    Zhang and Sennrich, 2019, "Root Mean Square Layer Normalization"
    (arXiv:1910.07467), Section 4, Equation 4: layer normalisation without
    the mean and the bias; the paper writes no :math:`\varepsilon`, which
    implementations add. Current PyTorch's ``torch.nn.functional.rms_norm``
    computes the same with ``weight`` for the gain. Scaling a row by
    :math:`c > 0` changes the result only through :math:`\varepsilon`. See
    the book's page "Keeping logits in range" (logit-range.md, section
    "QK-norm").

    Examples
    --------
    >>> np.round(rms_norm([[3.0, 4.0], [0.0, 0.0]], eps=1e-12), 4).tolist()
    [[0.8485, 1.1314], [0.0, 0.0]]
    >>> np.round(rms_norm([[3.0, 4.0]], gain=[2.0, 0.5], eps=1e-12), 4).tolist()
    [[1.6971, 0.5657]]
    """
    x = as_float_array("x", x)
    check_ndim("x", x, 1, "(..., d)")
    if x.shape[-1] == 0:
        raise ValueError(f"`x` has d=0: shape {x.shape}")
    gain = _gain("gain", gain, ("x", x))
    eps = positive_finite("eps", eps)
    return _rms_norm(x, gain, eps, "`gain` * (normalised `x`)")


def qk_norm(
    q: ArrayLike,
    k: ArrayLike,
    *,
    gain_q: ArrayLike | None = None,
    gain_k: ArrayLike | None = None,
    eps: float = 1e-6,
) -> tuple[FloatArray, FloatArray]:
    r"""QK-norm: RMS-normalise every query and every key over d_k, each with its gain.

    Parameters
    ----------
    q : array_like, shape (..., n_q, d_k)
        Queries of one head (or of several, in the leading dimensions).
    k : array_like, shape (..., n_k, d_k)
        Keys, with the same ``d_k``; leading dimensions broadcast with ``q``'s.
    gain_q, gain_k : float or array_like of shape (d_k,), optional
        Gains :math:`g^Q` and :math:`g^K` (learned in a model); default 1.
    eps : float, optional
        :math:`\varepsilon > 0` of :func:`rms_norm` (default ``1e-6``).

    Returns
    -------
    q_hat : ndarray, shape (..., n_q, d_k)
        ``rms_norm(q, gain_q, eps=eps)``.
    k_hat : ndarray, shape (..., n_k, d_k)
        ``rms_norm(k, gain_k, eps=eps)``. Pass both to
        :func:`~attention_docs.attention.scaled_dot_product_attention`: every
        scaled score then satisfies
        :math:`|\hat q \cdot \hat k| / \sqrt{d_k} \le \sqrt{d_k}\,
        \max_p |g^Q_p| \max_p |g^K_p|`, whatever the size of ``q`` and ``k``.
        dtypes as :func:`rms_norm`; ``n_q = 0``, ``n_k = 0`` or an empty batch
        give empty results.

    Raises
    ------
    ValueError
        If ``q`` or ``k`` has fewer than 2 dimensions, their ``d_k`` differ or
        are 0, or their leading dimensions do not broadcast (the message names
        the arguments and gives both shapes); if a gain is neither a number nor
        of shape ``(d_k,)``; if ``eps`` is not a positive finite number; if an
        input contains NaN or infinite values; if an output overflows.
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    With :math:`\hat q = g^Q \odot q / \sqrt{\operatorname{mean}(q^2) +
    \varepsilon}`, :math:`\|q / \sqrt{\operatorname{mean}(q^2) + \varepsilon}\|
    < \sqrt{d_k}`, so :math:`\|\hat q\| \le \sqrt{d_k} \max_p |g^Q_p|`, and by
    the Cauchy-Schwarz inequality

    .. math::

        \frac{|\hat q \cdot \hat k|}{\sqrt{d_k}}
            \le \frac{\|\hat q\| \, \|\hat k\|}{\sqrt{d_k}}
            \le \sqrt{d_k}\, \max_p |g^Q_p| \max_p |g^K_p| ,

    which is :math:`\sqrt{d_k}\, g^2` for equal scalar gains :math:`g`,
    approached when :math:`q` and :math:`k` are parallel and
    :math:`\varepsilon \to 0`. Henry et al., 2020, "Query-Key Normalization
    for Transformers" (Findings of EMNLP 2020, arXiv:2010.04245) normalise
    to unit :math:`\ell_2` norm and multiply the dot product by one learned
    scalar instead of :math:`1/\sqrt{d_k}`; Dehghani et al., 2023, "Scaling
    Vision Transformers to 22 Billion Parameters" (ICML 2023,
    arXiv:2302.05442), Section 2, "QK Normalization", apply LayerNorm to the
    queries and keys; RMS normalisation per head, as here, is what Gemma 3
    uses in place of Gemma 2's soft-capping (Gemma Team, 2025, "Gemma 3
    Technical Report", arXiv:2503.19786, Section 2). A rotation (RoPE) keeps
    every norm, so the bound holds whether the rotation comes before or after
    the normalisation. See the book's page "Keeping logits in range"
    (logit-range.md, section "QK-norm").

    Examples
    --------
    Queries ten times larger give the same normalised queries:

    >>> q = np.array([[3.0, 4.0]])
    >>> k = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> q_hat, k_hat = qk_norm(q, k, eps=1e-12)
    >>> big_hat, _ = qk_norm(10 * q, k, eps=1e-12)
    >>> np.round(q_hat, 4).tolist(), bool(np.allclose(q_hat, big_hat))
    ([[0.8485, 1.1314]], True)
    >>> np.round(k_hat, 4).tolist()
    [[1.4142, 0.0], [0.0, 1.4142]]
    """
    q, k = validated_qk(q, k, allow_no_keys=True)
    gain_q = _gain("gain_q", gain_q, ("q", q))
    gain_k = _gain("gain_k", gain_k, ("k", k))
    eps = positive_finite("eps", eps)
    q_hat = _rms_norm(q, gain_q, eps, "`gain_q` * (normalised `q`)")
    k_hat = _rms_norm(k, gain_k, eps, "`gain_k` * (normalised `k`)")
    return q_hat, k_hat


def soft_cap(x: ArrayLike, cap: float) -> FloatArray:
    r"""Logit soft-capping :math:`c \tanh(x / c)`: every entry into (-cap, cap).

    Parameters
    ----------
    x : array_like
        Scores or logits, any shape; finite (apply the mask after the cap).
    cap : float
        The cap :math:`c > 0`, e.g. 50.0 for Gemma 2's attention scores and
        30.0 for its final logits.

    Returns
    -------
    ndarray, same shape as ``x``
        :math:`c \tanh(x / c)` entry by entry: odd, increasing, with
        :math:`|c \tanh(x/c)| \le \min(|x|, c)` (so it never overflows) and
        :math:`0 \le x - c \tanh(x/c) \le x^3 / (3 c^2)` for :math:`x \ge 0`.
        float32 stays float32; everything else gives float64.

    Raises
    ------
    ValueError
        If ``x`` contains NaN or infinite values (a masked score, −inf, must
        be set after the cap, or it would become −cap); if ``cap`` is not a
        positive finite number.
    TypeError
        If ``x`` does not hold real numbers or is a numpy masked array.

    Notes
    -----
    .. math::

        \operatorname{softcap}_c(x) = c \tanh\!\left(\frac{x}{c}\right),
        \qquad
        \frac{d}{dx} \operatorname{softcap}_c(x)
            = 1 - \tanh^2\!\left(\frac{x}{c}\right) ,

    close to the identity for :math:`|x| \ll c` (Taylor:
    :math:`x - x^3 / (3c^2) + \dots`) and flat near :math:`\pm c`, where the
    gradient vanishes. Gemma Team, 2024, "Gemma 2: Improving Open Language
    Models at a Practical Size" (arXiv:2408.00118), Section 2, "Logit
    soft-capping": ``logits <- soft_cap * tanh(logits / soft_cap)`` in every
    attention layer (cap 50.0) and on the final layer (cap 30.0). Where
    :math:`|x / c|` is below :math:`\sqrt{\epsilon_{\text{mach}}}` the result
    is :math:`x` itself, which :math:`c \tanh(x/c)` equals to rounding. See
    the book's page "Keeping logits in range" (logit-range.md, section
    "Soft-capping").

    Examples
    --------
    >>> np.round(soft_cap([-20.0, -1.0, 0.0, 1.0, 5.0, 20.0], 5.0), 4).tolist()
    [-4.9966, -0.9869, 0.0, 0.9869, 3.808, 4.9966]
    """
    x = as_float_array("x", x)
    cap = positive_finite("cap", cap)
    wide = x.astype(np.float64)  # |c tanh(x/c)| <= |x|: the result fits x's dtype
    with np.errstate(over="ignore", under="ignore"):
        u = wide / cap  # may overflow to +-inf: tanh(+-inf) = +-1
        capped = cap * np.tanh(u)  # c tanh(x / c)
    tiny = np.abs(u) < np.sqrt(np.finfo(x.dtype).eps)  # x - c tanh(x/c) < ulp(x)
    return np.where(tiny, wide, capped).astype(x.dtype)
