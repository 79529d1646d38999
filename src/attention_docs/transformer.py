r"""Where attention sits: the Transformer's encoder and decoder layers.

Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
Section 3.1: the encoder is a stack of :math:`N = 6` identical layers, each
with two sub-layers (multi-head self-attention, then a position-wise
feed-forward network); each decoder layer inserts a third sub-layer,
multi-head attention over the output of the encoder stack. Around every
sub-layer sit a residual connection and layer normalisation:

.. math::

    \operatorname{LayerNorm}(x + \operatorname{Sublayer}(x))

(post-norm, the paper's order). The pre-norm order
:math:`x + \operatorname{Sublayer}(\operatorname{LayerNorm}(x))` is the one
Xiong et al., 2020, "On Layer Normalization in the Transformer Architecture"
(arXiv:2002.04745) analyse. This module gives the pieces and the two layers:

- :func:`layer_norm`: Ba, Kiros and Hinton, 2016, "Layer Normalization"
  (arXiv:1607.06450), Section 3;
- :func:`feed_forward`: :math:`\max(0, x W_1 + b_1) W_2 + b_2`, Vaswani et
  al. (2017), Section 3.3, Equation 2;
- :class:`EncoderLayer` and :class:`DecoderLayer`, built on
  :class:`~attention_docs.multihead.MultiHeadAttention`.

Every sub-layer maps ``(..., n, d_model)`` to ``(..., n, d_model)``, so the
residual sums are defined and the layers can be stacked. See the book's page
"Attention inside a Transformer layer" (transformer-block.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import fitting_product
from ._validation import (
    FloatArray,
    as_float_array,
    broadcast_batch,
    check_exact_ndim,
    check_mask,
    check_ndim,
    check_positive_int,
    check_same_size,
    positive_finite,
    rng_restored_on_error,
)
from .masks import causal_mask
from .multihead import MultiHeadAttention, multi_head_attention

__all__ = ["DecoderLayer", "EncoderLayer", "feed_forward", "layer_norm"]

NORMS = ("post", "pre")


def _check_eps(eps: object) -> float:
    """Return ``eps`` as a float; ValueError unless it is finite and positive."""
    return positive_finite("eps", eps)


def _check_norm(norm: object) -> str:
    if not isinstance(norm, str) or norm not in NORMS:
        raise ValueError(f"`norm` must be 'post' or 'pre', got {norm!r}")
    return norm


def _check_finite(result: FloatArray, what: str) -> FloatArray:
    """Return ``result``; ValueError naming ``what`` if it overflowed."""
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{what} overflows {result.dtype}")
    return result


def _vector(name: str, value: ArrayLike, dim: str, like: tuple[str, Any, int]):
    """``value`` as a finite 1-D array, as long as axis ``like[2]`` of ``like[1]``."""
    array = as_float_array(name, value)
    check_exact_ndim(name, array, 1, f"({dim},)")
    check_same_size(dim, like, (name, array, 0))
    return array


def _layer_norm(
    x: FloatArray, gamma: FloatArray, beta: FloatArray, eps: float
) -> FloatArray:
    """Layer normalisation of validated, finite rows (last axis of ``x``).

    Each row is first divided by its largest absolute value ``s``: then no
    square can overflow, and a constant row becomes all ones (or minus ones)
    exactly, so its centred row is exactly zero. With y = x / s,
    (x - mu) / sqrt(var + eps) equals (y - mu_y) / sqrt(var_y + eps / s**2),
    computed so for s > 1 (eps / s**2 < eps), and
    s (y - mu_y) / sqrt(var_y s**2 + eps) for s <= 1, where eps / s**2 could
    overflow (or, in float32, s**2 be subnormal and inexact) while eps itself
    dominates the denominator.
    """
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        s = np.max(np.abs(x), axis=-1, keepdims=True)  # (..., 1)
        s = np.where(s > 0.0, s, 1.0).astype(x.dtype)  # an all-zero row: any s > 0
        y = x / s  # entries in [-1, 1]
        centred = y - y.mean(axis=-1, keepdims=True)  # x_i - mu, in units of s
        var = np.mean(centred * centred, axis=-1, keepdims=True)  # sigma^2 / s^2
        # s > 1: sqrt(sigma^2 + eps) / s = sqrt(var_y + eps / s^2)
        root = np.sqrt(var + eps / (s * s))
        root[root == 0.0] = 1.0  # eps / s^2 underflowed, constant row: centred = 0
        large = centred / root
        # s <= 1: (x - mu) / sqrt(sigma^2 + eps), with x - mu = s (y - mu_y)
        small = (centred * s) / np.sqrt(var * s * s + eps)
        normalised = np.where(s > 1.0, large, small)  # (x - mu) / sqrt(sigma^2 + eps)
        out = normalised * gamma + beta  # (..., d_model) * (d_model,) + (d_model,)
    return _check_finite(out, "the output `gamma` * (normalised `x`) + `beta`")


def layer_norm(
    x: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = 1e-5,
) -> FloatArray:
    r"""Layer normalisation of every row: mean 0 and variance 1, then gain and bias.

    Parameters
    ----------
    x : array_like, shape (..., d_model)
        Rows to normalise, e.g. ``(n, d_model)`` or ``(batch, n, d_model)``;
        each row (last axis) is normalised on its own.
    gamma : array_like, shape (d_model,), optional
        Gain :math:`\gamma`, one per component; default all ones.
    beta : array_like, shape (d_model,), optional
        Bias :math:`\beta`, one per component; default all zeros.
    eps : float, optional
        :math:`\varepsilon > 0` added to the variance (default ``1e-5``).

    Returns
    -------
    ndarray, shape (..., d_model)
        :math:`\gamma \odot (x - \mu) / \sqrt{\sigma^2 + \varepsilon} + \beta`
        row by row. With the default gain and bias, every row has mean 0 (up to
        rounding) and variance :math:`\sigma^2 / (\sigma^2 + \varepsilon)`,
        which is close to 1 unless the row's own variance :math:`\sigma^2` is
        comparable to :math:`\varepsilon`; a constant row (variance 0) becomes
        ``beta``. float32 stays float32 (with float32 or default ``gamma`` and
        ``beta``); everything else gives float64. Rows of any magnitude,
        from the smallest subnormal to the largest float, are normalised
        without overflow or loss of precision; ``x`` may have empty batch
        dimensions (an empty result).

    Raises
    ------
    ValueError
        If ``x`` has no dimensions or ``d_model = 0``; if ``gamma`` or ``beta``
        is not 1-D or its length is not ``d_model`` (the message names it and
        gives both shapes); if ``eps`` is not a positive finite number; if an
        input contains NaN or infinite values; if the output overflows (a huge
        ``gamma`` or ``beta``).
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    For a row :math:`x` with :math:`d = d_{model}` components,

    .. math::

        \mu = \frac{1}{d} \sum_{p=1}^{d} x_p, \qquad
        \sigma^2 = \frac{1}{d} \sum_{p=1}^{d} (x_p - \mu)^2, \qquad
        \operatorname{LayerNorm}(x)_p
            = \gamma_p \frac{x_p - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta_p .

    Ba, Kiros and Hinton, 2016, "Layer Normalization", arXiv:1607.06450,
    Section 3, Equation 3 (the statistics over the hidden units of one
    layer, for one training case) and the gain and bias of Equation 4; the
    paper writes no :math:`\varepsilon`, which implementations add so that a
    constant row does not divide by zero. The variance divides by :math:`d`
    (the biased estimator), as current PyTorch's ``torch.nn.LayerNorm`` does,
    whose default ``eps`` is also ``1e-5``. Unlike batch normalisation, the
    statistics come from one row alone, not from the other rows of a batch.
    Vaswani et al. (2017), Section 3.1, normalise the output of every
    sub-layer this way. Adding a constant to a row does not change the
    result; multiplying a row by :math:`c > 0` changes it only through
    :math:`\varepsilon` (exactly invariant when :math:`\varepsilon` is
    scaled by :math:`c^2` too). See the book's page "Attention inside a
    Transformer layer" (transformer-block.md, section "Layer normalisation").

    Examples
    --------
    >>> x = np.array([[1.0, 1.0, 3.0, 3.0], [2.0, 4.0, 4.0, 6.0], [5.0, 5.0, 5.0, 5.0]])
    >>> np.round(layer_norm(x), 4).tolist()
    [[-1.0, -1.0, 1.0, 1.0], [-1.4142, 0.0, 0.0, 1.4142], [0.0, 0.0, 0.0, 0.0]]

    Gain and bias act per component, after the normalisation:

    >>> y = layer_norm(x, gamma=[2.0, 2.0, 2.0, 2.0], beta=[0.0, 0.0, 0.0, 1.0])
    >>> np.round(y[0], 4).tolist()
    [-2.0, -2.0, 2.0, 3.0]
    """
    x = as_float_array("x", x)
    check_ndim("x", x, 1, "(..., d_model)")
    if x.shape[-1] == 0:
        raise ValueError(f"`x` has d_model=0: shape {x.shape}")
    like = ("x", x, -1)
    gamma = np.ones(x.shape[-1], x.dtype) if gamma is None else gamma
    beta = np.zeros(x.shape[-1], x.dtype) if beta is None else beta
    gamma = _vector("gamma", gamma, "d_model", like)
    beta = _vector("beta", beta, "d_model", like)
    return _layer_norm(x, gamma, beta, _check_eps(eps))


def _feed_forward(
    x: FloatArray, w_1: FloatArray, b_1: FloatArray, w_2: FloatArray, b_2: FloatArray
) -> FloatArray:
    """FFN of validated arguments; ValueError if a step overflows.

    Each affine map is computed again at a smaller scale where a partial sum
    overflows (``fitting_product``): only a result that does not fit is an
    error.
    """
    hidden = fitting_product(x, w_1, bias=b_1)  # x W_1 + b_1: (..., d_ff)
    _check_finite(hidden, "the hidden layer `x` @ `w_1` + `b_1`")
    np.maximum(hidden, 0.0, out=hidden)  # ReLU: max(0, x W_1 + b_1)
    out = fitting_product(hidden, w_2, bias=b_2)  # (..., d_ff) @ (d_ff, d_model)
    return _check_finite(out, "the output max(0, `x` @ `w_1` + `b_1`) @ `w_2` + `b_2`")


def feed_forward(
    x: ArrayLike, w_1: ArrayLike, b_1: ArrayLike, w_2: ArrayLike, b_2: ArrayLike
) -> FloatArray:
    r"""The position-wise feed-forward network, applied to every row alike.

    Parameters
    ----------
    x : array_like, shape (..., d_model)
        Rows (positions), e.g. ``(n, d_model)`` or ``(batch, n, d_model)``.
    w_1 : array_like, shape (d_model, d_ff)
        First linear transformation.
    b_1 : array_like, shape (d_ff,)
        Its bias.
    w_2 : array_like, shape (d_ff, d_model)
        Second linear transformation, back to ``d_model``.
    b_2 : array_like, shape (d_model,)
        Its bias.

    Returns
    -------
    ndarray, shape (..., d_model)
        :math:`\max(0, x W_1 + b_1) W_2 + b_2` for every row ``x``. Row ``t``
        of the output depends on row ``t`` of ``x`` only: permuting the rows
        of ``x`` permutes the rows of the output in the same way.

    Raises
    ------
    ValueError
        If ``x`` has no dimensions; if a weight or bias has the wrong number
        of dimensions, or a size that does not fit: ``w_1`` needs ``d_model``
        rows (the last dimension of ``x``), ``b_1`` and the rows of ``w_2``
        need ``d_ff`` (the columns of ``w_1``), ``w_2`` needs ``d_model``
        columns and ``b_2`` ``d_model`` entries (each message names the two
        arguments and gives their shapes); if an input contains NaN or
        infinite values; if the hidden layer or the output overflows.
    TypeError
        If an input does not hold real numbers or is a numpy masked array.

    Notes
    -----
    .. math::

        \operatorname{FFN}(x) = \max(0,\, x W_1 + b_1)\, W_2 + b_2

    Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
    Section 3.3, Equation 2: two linear transformations with a ReLU in
    between, "applied to each position separately and identically", with
    :math:`d_{model} = 512` and :math:`d_{ff} = 2048` in the base model. The
    same matrices serve every position of a layer; each layer has its own.
    See the book's page "Attention inside a Transformer layer"
    (transformer-block.md, section "The position-wise feed-forward network").

    Examples
    --------
    >>> x = np.array([[1.0, -1.0], [2.0, 0.0]])
    >>> w_1 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])  # d_model=2, d_ff=3
    >>> b_1 = np.array([0.0, 0.0, -1.0])
    >>> w_2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> b_2 = np.array([0.5, 0.0])
    >>> feed_forward(x, w_1, b_1, w_2, b_2).tolist()  # hidden rows (1, 0, 0), (2, 0, 1)
    [[1.5, 0.0], [3.5, 1.0]]
    """
    x = as_float_array("x", x)
    check_ndim("x", x, 1, "(..., d_model)")
    w_1 = as_float_array("w_1", w_1)
    check_exact_ndim("w_1", w_1, 2, "(d_model, d_ff)")
    check_same_size("d_model", ("x", x, -1), ("w_1", w_1, 0))
    b_1 = _vector("b_1", b_1, "d_ff", ("w_1", w_1, 1))
    w_2 = as_float_array("w_2", w_2)
    check_exact_ndim("w_2", w_2, 2, "(d_ff, d_model)")
    check_same_size("d_ff", ("w_1", w_1, 1), ("w_2", w_2, 0))
    check_same_size("d_model", ("x", x, -1), ("w_2", w_2, 1))
    b_2 = _vector("b_2", b_2, "d_model", ("x", x, -1))
    return _feed_forward(x, w_1, b_1, w_2, b_2)


def _residual(x: FloatArray, sublayer_out: FloatArray, what: str) -> FloatArray:
    """The residual sum ``x + Sublayer(...)``; ValueError if it overflows."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        total = x + sublayer_out  # (..., n, d_model) + (..., n, d_model)
    return _check_finite(total, f"the residual sum `x` + {what}")


def _sublayer(
    x: FloatArray,
    sublayer: Callable[[FloatArray], tuple[FloatArray, Any]],
    gamma: FloatArray,
    beta: FloatArray,
    eps: float,
    norm: str,
    what: str,
    source: str = "`x`",
) -> tuple[FloatArray, Any]:
    """One sub-layer with its residual connection and layer normalisation.

    ``sublayer(z)`` returns ``(output, extra)``; the extra (attention weights
    or None) is passed through. An overflow inside the sub-layer is reported
    as the sub-layer's, for the layer's own arguments ``source`` (the inner
    message names the sub-layer's inputs and weights, e.g. ``query``).
    """

    def run(z: FloatArray) -> tuple[FloatArray, Any]:
        try:
            return sublayer(z)
        except ValueError as error:
            raise ValueError(
                f"the {what} sub-layer overflows for this {source}: in it, {error}"
            ) from None

    if norm == "post":  # LayerNorm(x + Sublayer(x)), Vaswani et al., Section 3.1
        out, extra = run(x)
        return _layer_norm(_residual(x, out, what), gamma, beta, eps), extra
    out, extra = run(_layer_norm(x, gamma, beta, eps))  # pre-norm
    return _residual(x, out, what), extra  # x + Sublayer(LayerNorm(x))


def _rows(name: str, x: ArrayLike, d_model: int, layout: str) -> FloatArray:
    """``x`` as a finite float array of shape (..., n, d_model) for this layer."""
    array = as_float_array(name, x)
    check_ndim(name, array, 2, layout)
    if array.shape[-2] == 0:
        raise ValueError(f"`{name}` has no rows: shape {array.shape}")
    if array.shape[-1] != d_model:
        raise ValueError(
            f"`{name}` has d_model={array.shape[-1]} but the layer has "
            f"d_model={d_model}: shape {array.shape}"
        )
    return array


class _Layer:
    """What the encoder and the decoder layer share: sizes, FFN, norms."""

    _n_norms = 2

    def __init__(
        self,
        d_model: int,
        h: int,
        d_ff: int,
        *,
        rng: np.random.Generator,
        norm: str,
        eps: float,
    ) -> None:
        d_model = check_positive_int("d_model", d_model)
        d_ff = check_positive_int("d_ff", d_ff)
        self.norm = _check_norm(norm)
        self.eps = _check_eps(eps)
        # MultiHeadAttention checks h and rng and draws its four projections
        self.self_attention = MultiHeadAttention(d_model, h, rng=rng)
        self.d_model, self.h, self.d_ff = d_model, self.self_attention.h, d_ff

    def _init_rest(self, rng: np.random.Generator) -> None:
        """Feed-forward weights after the attention weights, then the norms."""
        d_model, d_ff = self.d_model, self.d_ff
        self.w_1 = rng.standard_normal((d_model, d_ff)) / math.sqrt(d_model)
        self.b_1 = np.zeros(d_ff)
        self.w_2 = rng.standard_normal((d_ff, d_model)) / math.sqrt(d_ff)
        self.b_2 = np.zeros(d_model)
        for i in range(1, self._n_norms + 1):
            setattr(self, f"gamma_{i}", np.ones(d_model))
            setattr(self, f"beta_{i}", np.zeros(d_model))

    def _checked_parameters(self) -> dict[str, FloatArray]:
        """Every learned array, checked: the caller may have edited or replaced them.

        ValueError naming the attribute (``EncoderLayer.w_1``) if one is not
        finite or does not have the shape the layer's ``d_model`` and
        ``d_ff`` need; TypeError if it does not hold real numbers. So that an
        error inside a sub-layer can only be an overflow.
        """
        d, f = self.d_model, self.d_ff
        shapes = {"w_1": (d, f), "b_1": (f,), "w_2": (f, d)}
        layout = {"w_1": "(d_model, d_ff)", "b_1": "(d_ff,)", "w_2": "(d_ff, d_model)"}
        checked = {}
        for key, value in self.parameters().items():
            name = f"{type(self).__name__}.{key}"
            array = as_float_array(name, value)
            if key.endswith(_PROJECTIONS):  # the attention's (d_model, d_model)
                want, what = (d, d), "(d_model, d_model)"
            else:  # w_1, b_1, w_2, and b_2, the gammas and betas: (d_model,)
                want, what = shapes.get(key, (d,)), layout.get(key, "(d_model,)")
            if array.shape != want:
                raise ValueError(
                    f"`{name}` has shape {array.shape}, but the layer's "
                    f"d_model={d} and d_ff={f} need {what} = {want}"
                )
            checked[key] = array
        return checked

    @staticmethod
    def _attention(
        p: dict[str, FloatArray], prefix: str, h: int
    ) -> Callable[..., tuple[FloatArray, FloatArray]]:
        """The multi-head attention of checked weights ``p[prefix + ".w_q"]``..."""
        weights = [p[f"{prefix}.{w}"] for w in _PROJECTIONS]

        def attend(query, key, value, mask):
            return multi_head_attention(query, key, value, *weights, h, mask=mask)

        return attend

    @staticmethod
    def _ffn(p: dict[str, FloatArray]) -> Callable[..., tuple[FloatArray, None]]:
        """The feed-forward sub-layer of the checked weights ``p``."""

        def ffn(x: FloatArray) -> tuple[FloatArray, None]:
            return _feed_forward(x, p["w_1"], p["b_1"], p["w_2"], p["b_2"]), None

        return ffn

    def _attention_parameters(self) -> dict[str, FloatArray]:
        mha = self.self_attention
        return {f"self_attention.{w}": getattr(mha, w) for w in _PROJECTIONS}

    def parameters(self) -> dict[str, FloatArray]:
        """Every learned array of the layer, by name (the arrays themselves)."""
        params = self._attention_parameters()
        params.update(w_1=self.w_1, b_1=self.b_1, w_2=self.w_2, b_2=self.b_2)
        for i in range(1, self._n_norms + 1):
            params[f"gamma_{i}"] = getattr(self, f"gamma_{i}")
            params[f"beta_{i}"] = getattr(self, f"beta_{i}")
        return params

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(d_model={self.d_model}, h={self.h}, "
            f"d_ff={self.d_ff}, norm={self.norm!r})"
        )


_PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")


class EncoderLayer(_Layer):
    r"""One encoder layer: self-attention and a feed-forward network.

    Parameters
    ----------
    d_model : int
        Width of the rows, in and out.
    h : int
        Number of heads; must divide ``d_model``.
    d_ff : int
        Width of the feed-forward network's hidden layer.
    rng : numpy.random.Generator
        Source of the initial weights, e.g. ``np.random.default_rng(0)``.
    norm : {"post", "pre"}, optional
        Where the layer normalisation sits: ``"post"`` (default, the paper's)
        computes ``LayerNorm(x + Sublayer(x))``, ``"pre"`` computes
        ``x + Sublayer(LayerNorm(x))``.
    eps : float, optional
        The :math:`\varepsilon` of :func:`layer_norm` (default ``1e-5``).

    Attributes
    ----------
    self_attention : MultiHeadAttention
        Sub-layer 1, with projections ``w_q``, ``w_k``, ``w_v``, ``w_o`` of
        shape ``(d_model, d_model)`` and no biases.
    w_1, b_1, w_2, b_2 : ndarray
        Sub-layer 2, the feed-forward network: shapes ``(d_model, d_ff)``,
        ``(d_ff,)``, ``(d_ff, d_model)``, ``(d_model,)``.
    gamma_1, beta_1, gamma_2, beta_2 : ndarray, shape (d_model,)
        Gain and bias of the layer normalisation of sub-layer 1 and 2.
    d_model, h, d_ff, norm, eps
        The arguments.

    Raises
    ------
    ValueError
        If ``d_model``, ``h`` or ``d_ff`` is not a positive integer, ``h``
        does not divide ``d_model``, ``norm`` is not ``"post"`` or ``"pre"``,
        or ``eps`` is not a positive finite number.
    TypeError
        If ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    Post-norm (Vaswani et al., 2017, Section 3.1):

    .. math::

        x' = \operatorname{LN}_1\bigl(x + \operatorname{MultiHead}(x, x, x)\bigr),
        \qquad
        y = \operatorname{LN}_2\bigl(x' + \operatorname{FFN}(x')\bigr),

    where :math:`\operatorname{LN}_i` is :func:`layer_norm` with the gain and
    bias of sub-layer :math:`i`. Pre-norm:
    :math:`x' = x + \operatorname{MultiHead}(z, z, z)` with
    :math:`z = \operatorname{LN}_1(x)`, and
    :math:`y = x' + \operatorname{FFN}(\operatorname{LN}_2(x'))`. A pre-norm
    stack usually ends with one more layer normalisation, applied after its
    last layer (not part of this class). The paper applies dropout
    to each sub-layer's output during training (Section 5.4); this layer has
    none (it computes the forward pass of a trained or untrained layer).

    The weights are drawn in this order: the four attention projections
    (as :class:`~attention_docs.multihead.MultiHeadAttention`), then
    ``w_1 = rng.standard_normal((d_model, d_ff)) / sqrt(d_model)`` and
    ``w_2 = rng.standard_normal((d_ff, d_model)) / sqrt(d_ff)``; biases and
    betas start at 0, gammas at 1. The paper does not say how it initialises
    its weights. See the book's page "Attention inside a Transformer layer"
    (transformer-block.md, sections "The encoder layer" and "A forward pass").

    Examples
    --------
    >>> layer = EncoderLayer(8, 2, 32, rng=np.random.default_rng(0))
    >>> layer
    EncoderLayer(d_model=8, h=2, d_ff=32, norm='post')
    >>> x = np.random.default_rng(1).standard_normal((5, 8))
    >>> y, weights = layer(x, return_weights=True)
    >>> y.shape, weights.shape
    ((5, 8), (2, 5, 5))
    >>> sum(p.size for p in layer.parameters().values())  # 4*8*8 + 2*8*32+32+8 + 4*8
    840
    """

    def __init__(
        self,
        d_model: int,
        h: int,
        d_ff: int,
        *,
        rng: np.random.Generator,
        norm: str = "post",
        eps: float = 1e-5,
    ) -> None:
        with rng_restored_on_error(rng):  # a call that raises draws nothing
            super().__init__(d_model, h, d_ff, rng=rng, norm=norm, eps=eps)
            self._init_rest(rng)

    def __call__(
        self,
        x: ArrayLike,
        *,
        mask: ArrayLike | None = None,
        return_weights: bool = False,
    ) -> FloatArray | tuple[FloatArray, FloatArray]:
        r"""Apply the layer to a sequence (or a batch of sequences).

        Parameters
        ----------
        x : array_like, shape (..., n, d_model)
            The layer's input, one row per position.
        mask : array_like of bool, broadcastable to (..., n, n), optional
            True where position ``i`` may attend to position ``j`` in the
            self-attention, e.g. a padding mask; default: no mask.
        return_weights : bool, optional
            Also return the self-attention weights (default False).

        Returns
        -------
        output : ndarray, shape (..., n, d_model)
            The layer's output. With ``norm="post"`` and the initial gains
            and biases, every row has mean 0 and a variance close to 1.
        weights : ndarray, shape (..., h, n, n)
            Only if ``return_weights``: the self-attention weights per head.

        Raises
        ------
        ValueError
            If ``x`` has fewer than 2 dimensions, no rows, or a last
            dimension other than the layer's ``d_model`` (the message gives
            both), contains NaN or infinite values,
            or ``mask`` does not broadcast to (..., n, n); if a weight of
            the layer (which a caller may edit) is not finite or does not
            have its shape (the message names it, e.g. ``EncoderLayer.w_1``,
            and gives both shapes); if an intermediate result overflows (the
            message names the sub-layer and ``x``, then what overflowed
            inside it).
        TypeError
            If ``mask`` is not boolean, or ``x`` or a weight of the layer
            does not hold real numbers or is a numpy masked array.
        """
        x = _rows("x", x, self.d_model, "(..., n, d_model)")
        if mask is not None:
            n = x.shape[-2]
            mask = check_mask(mask, (*x.shape[:-2], n, n))

        p = self._checked_parameters()
        mha = self._attention(p, "self_attention", self.h)

        def attend(z: FloatArray) -> tuple[FloatArray, FloatArray]:
            return mha(z, z, z, mask)

        norm, eps = self.norm, self.eps
        x, weights = _sublayer(
            x, attend, p["gamma_1"], p["beta_1"], eps, norm, "self-attention"
        )
        x, _ = _sublayer(
            x, self._ffn(p), p["gamma_2"], p["beta_2"], eps, norm, "feed-forward"
        )
        return (x, weights) if return_weights else x


class DecoderOnlyLayer(EncoderLayer):
    r"""One layer of a decoder-only model: causal self-attention and FFN, pre-norm.

    The layer a GPT-style language model stacks: the same two sub-layers
    and weights as :class:`EncoderLayer` with ``norm="pre"``, called with
    the causal mask ``causal_mask(n)`` always applied in its self-attention.

    Parameters
    ----------
    d_model : int
        Width of the rows, in and out.
    h : int
        Number of heads; must divide ``d_model``.
    d_ff : int
        Width of the feed-forward network's hidden layer.
    rng : numpy.random.Generator
        Source of the initial weights, drawn as :class:`EncoderLayer` draws
        them (the same ``rng`` gives the same weights).
    eps : float, optional
        The :math:`\varepsilon` of :func:`layer_norm` (default ``1e-5``).

    Attributes
    ----------
    self_attention, w_1, b_1, w_2, b_2, gamma_1, beta_1, gamma_2, beta_2
        As in :class:`EncoderLayer`.
    d_model, h, d_ff, eps
        The arguments; ``norm`` is ``"pre"``.

    Raises
    ------
    ValueError
        If ``d_model``, ``h`` or ``d_ff`` is not a positive integer, ``h``
        does not divide ``d_model``, or ``eps`` is not a positive finite
        number.
    TypeError
        If ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    With :math:`M` the causal mask (position :math:`i` attends to
    :math:`1, \dots, i`) and :math:`\operatorname{LN}_i` the layer
    normalisation of sub-layer :math:`i`:

    .. math::

        x' = x + \operatorname{MultiHead}_M(z, z, z),
        \quad z = \operatorname{LN}_1(x),
        \qquad
        y = x' + \operatorname{FFN}(\operatorname{LN}_2(x')).

    The pre-norm layer of GPT-2 (Radford et al., 2019, Section 2.3); a
    stack of them ends with one more layer normalisation (not part of this
    class). Row :math:`i` of the output depends on rows
    :math:`1, \dots, i` of the input only. See the book's page "Attention
    inside a Transformer layer" (transformer-block.md, section "The layer
    of a decoder-only model").

    Examples
    --------
    >>> layer = DecoderOnlyLayer(8, 2, 32, rng=np.random.default_rng(0))
    >>> layer
    DecoderOnlyLayer(d_model=8, h=2, d_ff=32, norm='pre')
    >>> x = np.random.default_rng(1).standard_normal((5, 8))
    >>> y, weights = layer(x, return_weights=True)
    >>> y.shape, bool(np.all(np.triu(weights, k=1) == 0))
    ((5, 8), True)
    """

    def __init__(
        self,
        d_model: int,
        h: int,
        d_ff: int,
        *,
        rng: np.random.Generator,
        eps: float = 1e-5,
    ) -> None:
        super().__init__(d_model, h, d_ff, rng=rng, norm="pre", eps=eps)

    def __call__(
        self,
        x: ArrayLike,
        *,
        mask: ArrayLike | None = None,
        return_weights: bool = False,
    ) -> FloatArray | tuple[FloatArray, FloatArray]:
        r"""Apply the layer to a sequence (or a batch of sequences).

        Parameters
        ----------
        x : array_like, shape (..., n, d_model)
            The layer's input, one row per position.
        mask : array_like of bool, broadcastable to (..., n, n), optional
            A mask applied on top of the causal one (both must allow a
            pair), e.g. a padding mask; default: the causal mask alone.
        return_weights : bool, optional
            Also return the self-attention weights (default False).

        Returns
        -------
        output : ndarray, shape (..., n, d_model)
            The layer's output.
        weights : ndarray, shape (..., h, n, n)
            Only if ``return_weights``: the self-attention weights per head,
            0 above the diagonal.

        Raises
        ------
        ValueError, TypeError
            As :meth:`EncoderLayer.__call__`, for ``x``, ``mask`` and the
            layer's weights (named ``DecoderOnlyLayer.w_1`` and so on).
        """
        x = _rows("x", x, self.d_model, "(..., n, d_model)")
        n = x.shape[-2]
        causal = causal_mask(n)
        if mask is not None:
            causal = check_mask(mask, (*x.shape[:-2], n, n)) & causal
        return super().__call__(x, mask=causal, return_weights=return_weights)


class DecoderLayer(_Layer):
    r"""One decoder layer: masked self-attention, cross-attention, feed-forward.

    Parameters
    ----------
    d_model : int
        Width of the rows, in and out, and of the encoder output (memory).
    h : int
        Number of heads of both attentions; must divide ``d_model``.
    d_ff : int
        Width of the feed-forward network's hidden layer.
    rng : numpy.random.Generator
        Source of the initial weights.
    norm : {"post", "pre"}, optional
        ``"post"`` (default, the paper's) or ``"pre"``, as in
        :class:`EncoderLayer`.
    eps : float, optional
        The :math:`\varepsilon` of :func:`layer_norm` (default ``1e-5``).

    Attributes
    ----------
    self_attention : MultiHeadAttention
        Sub-layer 1: masked self-attention over the target rows.
    cross_attention : MultiHeadAttention
        Sub-layer 2: queries from the target rows, keys and values from the
        memory (Vaswani et al.'s "encoder-decoder attention").
    w_1, b_1, w_2, b_2 : ndarray
        Sub-layer 3, the feed-forward network (as in :class:`EncoderLayer`).
    gamma_1, beta_1, gamma_2, beta_2, gamma_3, beta_3 : ndarray, shape (d_model,)
        Gain and bias of the layer normalisation of sub-layer 1, 2 and 3.

    Raises
    ------
    ValueError
        As :class:`EncoderLayer`.
    TypeError
        If ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    Post-norm (Vaswani et al., 2017, Sections 3.1 and 3.2.3), with the
    target rows :math:`x` and the memory :math:`m` (the encoder's output):

    .. math::

        x' = \operatorname{LN}_1\bigl(x + \operatorname{MultiHead}(x, x, x)\bigr)
        \text{ (causal mask)}, \quad
        x'' = \operatorname{LN}_2\bigl(x' + \operatorname{MultiHead}(x', m, m)\bigr),
        \quad
        y = \operatorname{LN}_3\bigl(x'' + \operatorname{FFN}(x'')\bigr),

    where :math:`\operatorname{LN}_i` is :func:`layer_norm` with the gain and
    bias of sub-layer :math:`i`.

    Pre-norm moves each normalisation to the sub-layer's input, as in
    :class:`EncoderLayer`; the memory is used as it is. The weights are
    drawn in this order: self-attention, cross-attention (four projections
    each), ``w_1``, ``w_2``. See the book's page "Attention inside a
    Transformer layer" (transformer-block.md, sections "The decoder layer"
    and "Cross-attention").

    Examples
    --------
    >>> layer = DecoderLayer(8, 2, 32, rng=np.random.default_rng(0))
    >>> rng = np.random.default_rng(1)
    >>> x, memory = rng.standard_normal((4, 8)), rng.standard_normal((6, 8))
    >>> y, self_w, cross_w = layer(x, memory, return_weights=True)
    >>> y.shape, self_w.shape, cross_w.shape
    ((4, 8), (2, 4, 4), (2, 4, 6))
    >>> bool(np.all(self_w[:, 0, 1:] == 0.0))  # position 1 sees only itself
    True
    """

    _n_norms = 3

    def __init__(
        self,
        d_model: int,
        h: int,
        d_ff: int,
        *,
        rng: np.random.Generator,
        norm: str = "post",
        eps: float = 1e-5,
    ) -> None:
        with rng_restored_on_error(rng):  # a call that raises draws nothing
            super().__init__(d_model, h, d_ff, rng=rng, norm=norm, eps=eps)
            self.cross_attention = MultiHeadAttention(self.d_model, self.h, rng=rng)
            self._init_rest(rng)

    def _attention_parameters(self) -> dict[str, FloatArray]:
        params = super()._attention_parameters()
        mha = self.cross_attention
        params.update({f"cross_attention.{w}": getattr(mha, w) for w in _PROJECTIONS})
        return params

    def __call__(
        self,
        x: ArrayLike,
        memory: ArrayLike,
        *,
        self_mask: ArrayLike | None = None,
        memory_mask: ArrayLike | None = None,
        causal: bool = True,
        return_weights: bool = False,
    ) -> FloatArray | tuple[FloatArray, FloatArray, FloatArray]:
        r"""Apply the layer to target rows ``x`` given the encoder output ``memory``.

        Parameters
        ----------
        x : array_like, shape (..., n_tgt, d_model)
            The target rows (the previous decoder layer's output).
        memory : array_like, shape (..., n_src, d_model)
            The output of the encoder stack; its batch dimensions broadcast
            with those of ``x``.
        self_mask : array_like of bool, broadcastable to (..., n_tgt, n_tgt), optional
            An extra mask for the self-attention (e.g. the target's padding),
            combined by a logical AND with the causal mask.
        memory_mask : array_like of bool, broadcastable to (..., n_tgt, n_src), optional
            Mask of the cross-attention, e.g. the source's padding mask.
        causal : bool, optional
            Apply the causal mask ``causal_mask(n_tgt)`` in the self-attention
            (default True, as in the paper: position ``i`` sees positions
            ``1, ..., i``). The cross-attention is never causal.
        return_weights : bool, optional
            Also return both attentions' weights (default False).

        Returns
        -------
        output : ndarray, shape (..., n_tgt, d_model)
            The layer's output; with ``causal=True``, row ``i`` does not
            depend on the rows after ``i`` of ``x``.
        self_weights : ndarray, shape (..., h, n_tgt, n_tgt)
            Only if ``return_weights``.
        cross_weights : ndarray, shape (..., h, n_tgt, n_src)
            Only if ``return_weights``: query ``i`` of the target against
            every source position.

        Raises
        ------
        ValueError
            If ``x`` or ``memory`` has fewer than 2 dimensions, no rows, or
            a last dimension other than the layer's ``d_model`` (the message
            names the argument and gives both), contains NaN or
            infinite values, or their batch dimensions do not broadcast; if
            ``self_mask`` or ``memory_mask`` does not broadcast to its shape;
            if a weight of the layer is not finite or does not have its
            shape (the message names it, e.g. ``DecoderLayer.w_1``); if an
            intermediate result overflows (the message names the sub-layer
            and ``x`` or ``memory``, then what overflowed inside it).
        TypeError
            If a mask is not boolean, ``causal`` is not a bool, or ``x``,
            ``memory`` or a weight of the layer does not hold real numbers or
            is a numpy masked array.
        """
        x = _rows("x", x, self.d_model, "(..., n_tgt, d_model)")
        memory = _rows("memory", memory, self.d_model, "(..., n_src, d_model)")
        batch = broadcast_batch(("x", x), ("memory", memory))
        if not isinstance(causal, bool | np.bool_):
            raise TypeError(f"`causal` must be True or False, got {causal!r}")
        n_tgt, n_src = x.shape[-2], memory.shape[-2]
        if self_mask is not None:
            self_mask = check_mask(
                self_mask, (*x.shape[:-2], n_tgt, n_tgt), name="self_mask"
            )
        if causal:  # position i sees positions 1, ..., i (and self_mask's keys)
            future = causal_mask(n_tgt)
            self_mask = future if self_mask is None else self_mask & future
        if memory_mask is not None:
            memory_mask = check_mask(
                memory_mask, (*batch, n_tgt, n_src), name="memory_mask"
            )

        p = self._checked_parameters()
        self_mha = self._attention(p, "self_attention", self.h)
        cross_mha = self._attention(p, "cross_attention", self.h)

        def attend_self(z: FloatArray) -> tuple[FloatArray, FloatArray]:
            return self_mha(z, z, z, self_mask)

        def attend_memory(z: FloatArray) -> tuple[FloatArray, FloatArray]:
            # queries from the decoder, keys and values from the encoder
            return cross_mha(z, memory, memory, memory_mask)

        norm, eps = self.norm, self.eps
        x, self_weights = _sublayer(
            x, attend_self, p["gamma_1"], p["beta_1"], eps, norm, "self-attention"
        )
        x, cross_weights = _sublayer(
            x, attend_memory, p["gamma_2"], p["beta_2"], eps, norm,
            "cross-attention", "`x` and `memory`",
        )  # fmt: skip
        x, _ = _sublayer(
            x, self._ffn(p), p["gamma_3"], p["beta_3"], eps, norm, "feed-forward"
        )
        return (x, self_weights, cross_weights) if return_weights else x
