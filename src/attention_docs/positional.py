r"""Position information: sinusoidal encodings and rotary position embeddings.

Self-attention without positions is permutation-equivariant (the book's page
"Self-attention", section "Permutation equivariance"), so a Transformer adds
position information:

- :func:`sinusoidal_positional_encoding`, added to the input embeddings
  (Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762,
  Section 3.5):

  .. math::

      PE_{(pos, 2i)} = \sin\!\bigl(pos / 10000^{2i/d_{model}}\bigr), \qquad
      PE_{(pos, 2i+1)} = \cos\!\bigl(pos / 10000^{2i/d_{model}}\bigr);

- :func:`apply_rope`, a rotation of the queries and keys (Su et al., 2021,
  "RoFormer: Enhanced Transformer with Rotary Position Embedding",
  arXiv:2104.09864, Sections 3.2.2 and 3.4.2): the pair of components
  :math:`(2i, 2i+1)` of the row at position :math:`m` is rotated by the angle
  :math:`m \theta_i`, :math:`\theta_i = \text{base}^{-2i/d}`, so that the dot
  product of a query at :math:`m` and a key at :math:`n` depends on the
  positions only through :math:`m - n`;
- :func:`rope_frequencies`, the angles per position :math:`\theta_i` of RoPE,
  as trained or rescaled for a context longer than the training one
  (position interpolation, Chen et al., 2023, arXiv:2306.15595; NTK-aware
  scaling and YaRN, Peng et al., 2023, arXiv:2309.00071);
- :func:`alibi_slopes` and :func:`alibi_bias`, the linear biases of ALiBi
  (Press et al., 2022, arXiv:2108.12409), added to the scores instead of
  rotating the queries and keys.

See the book's pages "Positional encoding" (positional-encoding.md) and
"Positions for long contexts" (long-context.md).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatArray,
    as_float_array,
    as_real,
    check_ndim,
    check_positive_int,
    positive_finite,
    shown,
)

__all__ = [
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "rope_frequencies",
    "sinusoidal_positional_encoding",
]


def _check_even(name: str, value: int, where: str) -> None:
    if value % 2:
        raise ValueError(
            f"`{name}`={value}{where} must be even: components come in pairs"
        )


def sinusoidal_positional_encoding(n: int, d_model: int) -> FloatArray:
    r"""The sinusoidal positional encoding of positions ``0, ..., n - 1``.

    Parameters
    ----------
    n : int
        Number of positions, at least 1.
    d_model : int
        Width of the encoding, a positive even number.

    Returns
    -------
    ndarray, shape (n, d_model), float64
        Row ``pos`` is :math:`PE_{pos}`; column ``2i`` holds
        :math:`\sin(pos\, \omega_i)` and column ``2i + 1`` holds
        :math:`\cos(pos\, \omega_i)`, :math:`\omega_i = 10000^{-2i/d_{model}}`
        (the paper's interleaved order).

    Raises
    ------
    ValueError
        If ``n`` or ``d_model`` is not a positive integer, or ``d_model`` is
        odd.

    Notes
    -----
    Vaswani et al. (2017), Section 3.5. For every offset :math:`k`,
    :math:`PE_{pos + k}` is a linear function of :math:`PE_{pos}`: each pair
    :math:`(\sin, \cos)` is rotated by the angle :math:`k\, \omega_i`,
    whatever :math:`pos` is, which the paper gives as the reason for the
    choice. See the book's page "Positional encoding"
    (positional-encoding.md, sections "Sinusoidal positional encoding" and
    "Relative positions and linear maps").

    Examples
    --------
    >>> pe = sinusoidal_positional_encoding(3, 4)
    >>> pe.shape
    (3, 4)
    >>> pe[0].tolist()  # sin 0 = 0, cos 0 = 1
    [0.0, 1.0, 0.0, 1.0]
    >>> round(float(pe[1, 0]), 6), round(float(pe[1, 2]), 6)  # sin 1, sin 0.01
    (0.841471, 0.01)
    """
    n = check_positive_int("n", n)
    d_model = check_positive_int("d_model", d_model)
    _check_even("d_model", d_model, "")
    positions = np.arange(n, dtype=np.float64)[:, np.newaxis]  # (n, 1)
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)  # (d_model / 2,)
    angles = positions * omega  # pos * omega_i: (n, d_model / 2)
    pe = np.empty((n, d_model))
    pe[:, 0::2] = np.sin(angles)  # PE(pos, 2i)
    pe[:, 1::2] = np.cos(angles)  # PE(pos, 2i + 1)
    return pe


def apply_rope(
    x: ArrayLike,
    positions: ArrayLike | None = None,
    base: float = 10000.0,
    *,
    theta: ArrayLike | None = None,
) -> FloatArray:
    r"""Rotate each pair of components of each row by an angle set by its position.

    Parameters
    ----------
    x : array_like, shape (..., n, d)
        Queries or keys, one row per position; ``d`` even.
    positions : array_like, shape broadcastable to (..., n), optional
        Position of every row (any real numbers, e.g. the positions of cached
        tokens); default ``0, 1, ..., n - 1``. It must broadcast *to* the rows
        of ``x``, ``x.shape[:-1]``: one position per row, never more rows
        than ``x`` has.
    base : float, optional
        :math:`\theta_i = \text{base}^{-2i/d}` (default 10000, as in the
        paper); a finite number greater than 1.
    theta : array_like, shape (d / 2,), optional
        The angle per position of every pair, in radians, instead of
        :math:`\text{base}^{-2i/d}` (then ``base`` is not used), e.g. the
        rescaled angles of :func:`rope_frequencies`; finite numbers.

    Returns
    -------
    ndarray, shape of ``x``
        Components :math:`(2i, 2i+1)` of row :math:`m` become
        :math:`(x_{2i} \cos m\theta_i - x_{2i+1} \sin m\theta_i,\;
        x_{2i} \sin m\theta_i + x_{2i+1} \cos m\theta_i)`. Every row keeps its
        norm. float32 stays float32.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions or an odd ``d``; if
        ``positions`` does not broadcast to ``x.shape[:-1]`` (also when
        broadcasting would add rows or batch dimensions to ``x``; the message
        gives both shapes) or is not finite; if ``base`` is not a finite
        number greater than 1; if ``x`` is not finite, or so large that a
        rotated component overflows; if ``theta`` is not of shape
        ``(d / 2,)`` or not finite.
    TypeError
        If ``x``, ``positions`` or ``theta`` does not hold real numbers or is
        a numpy masked array.

    Notes
    -----
    Su et al., 2021, "RoFormer" (arXiv:2104.09864), Section 3.2.2,
    Equations 14 and 15: the rotation matrix :math:`R_m` is block diagonal
    with one :math:`2 \times 2` rotation per pair of *adjacent* components
    :math:`(2i, 2i+1)`, which is the convention used here (computed
    component-wise, as in Equation 34 of Section 3.4.2). The paper writes
    column vectors and multiplies by the matrix on the left; for the rows
    here, :math:`R_m` is the transpose of the paper's matrix. Meta's
    original Llama code pairs adjacent components too. Many implementations
    (GPT-NeoX, and Llama as ported to Hugging Face transformers) pair
    component :math:`i` with :math:`i + d/2` instead ("rotate half"); the two
    conventions are the same rotation after a fixed permutation of the
    components, so they give the same scores only if the weights are
    permuted accordingly (Hugging Face's conversion of the Llama weights
    permutes the output components of :math:`W_Q` and :math:`W_K` this way).
    Because :math:`R_m R_n^\top = R_{m - n}`, the score of a query at :math:`m` and a
    key at :math:`n` is :math:`q R_m (k R_n)^\top = q R_{m-n} k^\top`
    (row vectors; :math:`R_m` acting on the right), which depends on the
    positions only through :math:`m - n` (the paper's Equation 16). See the
    book's page "Positional encoding" (positional-encoding.md, sections
    "Rotary position embedding (RoPE)" and "RoPE scores and relative
    positions").

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]])
    >>> np.round(apply_rope(q, positions=[1], base=2.0), 6).tolist()  # angle 1
    [[0.540302, 0.841471]]

    The score of a rotated query and key depends on ``m - n`` only:

    >>> rng = np.random.default_rng(0)
    >>> q, k = rng.standard_normal((2, 1, 8))
    >>> def score(m, n):
    ...     return (apply_rope(q, [m]) @ apply_rope(k, [n]).T).item()
    >>> bool(np.isclose(score(5, 2), score(13, 10)))
    True

    Angles given directly: position 2 at 0.5 radian per position is the
    angle 1 of the first example.

    >>> np.round(apply_rope([[1.0, 0.0]], [2], theta=[0.5]), 6).tolist()
    [[0.540302, 0.841471]]
    """
    x = as_float_array("x", x)
    check_ndim("x", x, 2, "(..., n, d)")
    d = x.shape[-1]
    _check_even("d", d, f" (`x` of shape {x.shape})")
    base = as_real(
        "base",
        base,
        "a finite number greater than 1",
        lambda b: math.isfinite(b) and b > 1.0,
    )
    if positions is None:
        positions = np.arange(x.shape[-2], dtype=np.float64)
    else:
        positions = as_float_array("positions", positions)
    try:  # one position per row: positions broadcast to the rows, never beyond
        shape = np.broadcast_shapes(positions.shape, x.shape[:-1])
    except ValueError:
        shape = None
    if shape != x.shape[:-1]:
        raise ValueError(
            f"`positions` of shape {positions.shape} does not broadcast to the "
            f"rows of `x`, shape {x.shape[:-1]}"
        )
    if theta is None:
        with np.errstate(under="ignore"):
            theta = base ** (-np.arange(0, d, 2) / d)  # theta_i: (d / 2,)
    else:
        theta = as_float_array("theta", theta).astype(np.float64)
        if theta.shape != (d // 2,):
            raise ValueError(
                f"`theta` of shape {theta.shape} must have shape ({d // 2},): "
                f"one angle per pair of the {d} components of `x`"
            )
    with np.errstate(under="ignore"):
        angles = positions[..., np.newaxis] * theta  # m * theta_i: (..., n, d / 2)
        cos, sin = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # components 2i and 2i + 1
    out = np.empty(x.shape, dtype=x.dtype)
    # A rotation keeps each pair's norm, but a component can still grow by up to
    # sqrt(2) and overflow near the largest float: report it, never return inf.
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # see below
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"rotating `x` overflows {out.dtype}: its entries are too large "
            f"(largest magnitude {float(np.max(np.abs(x))):.3g})"
        )
    return out


_SCALINGS = (None, "linear", "ntk", "yarn")


def rope_frequencies(
    d: int,
    *,
    base: float = 10000.0,
    scaling: str | None = None,
    factor: float | None = None,
    original_length: float | None = None,
    alpha: float = 1.0,
    beta: float = 32.0,
    ramp: str = "index",
) -> FloatArray:
    r"""The angle per position :math:`\theta_i` of every pair of RoPE, rescaled or not.

    Parameters
    ----------
    d : int
        Width of the rotated rows (``d_k`` of a head), a positive even number.
    base : float, optional
        :math:`\theta_i = \text{base}^{-2i/d}` (default 10000); a finite
        number greater than 1.
    scaling : {None, "linear", "ntk", "yarn"}, optional
        None: the angles as trained. ``"linear"``: position interpolation,
        :math:`\theta_i / s`. ``"ntk"``: NTK-aware scaling, the base
        :math:`b' = b\, s^{d/(d-2)}`. ``"yarn"``: YaRN's per-pair ramp
        (NTK-by-parts) between :math:`\theta_i / s` and :math:`\theta_i`;
        by default the angles of a model configured with
        ``rope_scaling = {"rope_type": "yarn", ...}`` in Hugging Face
        transformers (see Notes).
    factor : float, optional
        The scale factor :math:`s = L'/L` (new context length over trained
        length), a finite number at least 1; required by every ``scaling``
        but None, refused with None.
    original_length : float, optional
        The trained context length :math:`L` in tokens, a positive finite
        number; required by ``"yarn"`` only.
    alpha, beta : float, optional
        YaRN's bounds in turns per :math:`L`, the configuration's
        ``beta_slow`` and ``beta_fast`` (defaults 1 and 32, theirs in
        transformers and the paper's values for the Llama family): a pair
        that turns fewer than ``alpha`` times within :math:`L` is
        interpolated, one that turns more than ``beta`` times is left as
        trained; finite, ``0 <= alpha < beta``. Used by ``"yarn"`` only.
        The paper tunes them per model family: a model whose fastest pair
        turns fewer than ``beta`` times within :math:`L` keeps no pair as
        trained with ``ramp="turns"``, so pass a ``beta`` that some pairs
        exceed.
    ramp : {"index", "turns"}, optional
        How ``"yarn"`` mixes the pairs between the bounds. ``"index"``
        (default): linearly in the pair index :math:`i`, as the paper's
        reference code, Hugging Face transformers (``rope_type="yarn"``)
        and vLLM do; the angles of a model configured that way.
        ``"turns"``: linearly in the turns :math:`r_i`, the paper's
        equation (Section 3.2). ``"index"`` needs ``alpha > 0``. Any value
        but the default needs ``scaling="yarn"``.

    Returns
    -------
    ndarray, shape (d / 2,), float64
        :math:`\theta'_i` in radians per position, for pairs
        :math:`i = 0, \dots, d/2 - 1`; pass it to :func:`apply_rope` as
        ``theta``. ``d / 2`` numbers (8 bytes each).

    Raises
    ------
    ValueError
        If ``d`` is not a positive even integer (``"ntk"``: at least 4, since
        the exponent :math:`d/(d-2)` needs it); if ``base`` is not a finite
        number greater than 1; if ``scaling`` is not one of the four; if
        ``factor`` is missing, given with ``scaling=None``, or not a finite
        number at least 1; if ``original_length`` is missing for ``"yarn"``
        or not a positive finite number; if ``alpha``, ``beta`` are not
        finite with ``0 <= alpha < beta`` (``0 < alpha`` for
        ``ramp="index"``, the default); if ``ramp`` is not ``"index"`` or
        ``"turns"``, or is ``"turns"`` without ``scaling="yarn"``.

    Notes
    -----
    Position interpolation (Chen et al., 2023, "Extending Context Window of
    Large Language Models via Positional Interpolation", arXiv:2306.15595,
    Section 2.3, Equation 4) replaces position :math:`m` by :math:`m L / L' = m / s`;
    since only the products :math:`m \theta_i` enter the rotation, that is
    the same as dividing every :math:`\theta_i` by :math:`s`.

    NTK-aware scaling (bloc97, 2023, a Reddit post; written as an equation
    in Peng et al., 2023, "YaRN: Efficient Context Window Extension of Large
    Language Models", arXiv:2309.00071, Section 3.1) changes the base to
    :math:`b' = b\, s^{d/(d-2)}`: the first pair keeps
    :math:`\theta_0 = 1` and the last is divided by exactly :math:`s`,
    since :math:`(s^{d/(d-2)})^{-(d-2)/d} = 1/s`.

    YaRN's "NTK-by-parts" (Peng et al., 2023, Section 3.2, the equation of
    the ramp :math:`\gamma(r)` and of :math:`h(\theta_d)`; ``ramp="turns"``)
    counts the turns of pair :math:`i` within the trained length,
    :math:`r_i = L / \lambda_i = L \theta_i / 2\pi`, sets
    :math:`\gamma_i = 0` if :math:`r_i < \alpha`, :math:`1` if
    :math:`r_i > \beta`, :math:`(r_i - \alpha)/(\beta - \alpha)` between, and
    returns :math:`\theta'_i = (1 - \gamma_i)\, \theta_i / s + \gamma_i
    \theta_i`. YaRN (Section 3.4) also divides the scores by a temperature
    :math:`t`, :math:`\sqrt{1/t} = 0.1 \ln s + 1`, which is not an angle
    and is left to the caller (multiply the scores by :math:`1/t`).

    ``ramp="index"``, the default, follows the reference code of the paper
    and Hugging Face transformers' ``_compute_yarn_parameters``
    (``src/transformers/modeling_rope_utils.py``, with ``truncate=True``,
    its default), whose configuration fields map as ``factor``
    :math:`= s`, ``original_max_position_embeddings`` :math:`= L`,
    ``beta_fast`` :math:`= \beta` (default 32), ``beta_slow``
    :math:`= \alpha` (default 1) and ``rope_theta`` :math:`= b`: with
    ``alpha`` and ``beta`` left out, this function gives the angles of
    ``{"rope_type": "yarn", "factor": s,
    "original_max_position_embeddings": L}``. The pair where :math:`r_i = r` is
    :math:`c(r) = d \ln(L / 2\pi r) / (2 \ln b)`; with
    :math:`\ell = \max(\lfloor c(\beta) \rfloor, 0)` and
    :math:`h = \min(\lceil c(\alpha) \rceil, d - 1)` (:math:`h` raised
    by 0.001 if :math:`h = \ell`),
    :math:`\gamma_i = 1 - \operatorname{clip}((i - \ell)/(h - \ell), 0, 1)`
    and :math:`\theta'_i` is mixed as above. The two ramps agree on the
    pairs outside :math:`[\ell, h]`; between, the ratio
    :math:`\theta'_i / \theta_i` differs, since :math:`r_i` falls
    exponentially in :math:`i`. transformers computes in float32, so its
    angles agree with these float64 ones to about :math:`10^{-7}`
    relatively; its option ``truncate=False`` (no rounding of
    :math:`c`) is not offered here.
    See the book's page "Positions for long contexts" (long-context.md).

    Examples
    --------
    >>> rope_frequencies(4).tolist()
    [1.0, 0.01]
    >>> rope_frequencies(4, scaling="linear", factor=4).tolist()
    [0.25, 0.0025]
    >>> np.round(rope_frequencies(4, scaling="ntk", factor=4), 12).tolist()
    [1.0, 0.0025]

    YaRN by the paper's equation with :math:`L = 200\pi`: pair 0 turns
    100 times (kept), pair 1 once, a third of the way up the ramp from 0.5
    to 2:

    >>> theta = rope_frequencies(
    ...     4, scaling="yarn", factor=4, original_length=200 * np.pi,
    ...     alpha=0.5, beta=2.0, ramp="turns",
    ... )
    >>> np.round(theta, 12).tolist()  # (2/3) 0.01/4 + (1/3) 0.01
    [1.0, 0.005]

    The default, by the pair index as transformers with ``beta_fast = 32``
    and ``beta_slow = 1``: with :math:`d = 8` and :math:`L = 400\pi` the
    turns are 200, 20, 2, 0.2, so :math:`c(32) = 0.80` and
    :math:`c(1) = 2.30` give :math:`\ell = 0`, :math:`h = 3` and
    :math:`\gamma_i = 1 - i/3`:

    >>> theta = rope_frequencies(
    ...     8, scaling="yarn", factor=4, original_length=400 * np.pi,
    ... )
    >>> np.round(theta / rope_frequencies(8), 12).tolist()  # theta'_i / theta_i
    [1.0, 0.75, 0.5, 0.25]
    """
    d = check_positive_int("d", d)
    _check_even("d", d, "")
    base = as_real(
        "base",
        base,
        "a finite number greater than 1",
        lambda b: math.isfinite(b) and b > 1.0,
    )
    if not (scaling is None or (isinstance(scaling, str) and scaling in _SCALINGS)):
        raise ValueError(
            f'`scaling` must be None, "linear", "ntk" or "yarn", got {shown(scaling)}'
        )
    if scaling is None:
        if factor is not None:
            raise ValueError(
                f"`factor`={shown(factor)} needs a `scaling` "
                '("linear", "ntk" or "yarn"); with scaling=None leave it out'
            )
    elif factor is None:
        raise ValueError(f'`scaling`="{scaling}" needs a `factor` s = L\'/L')
    else:
        factor = as_real(
            "factor",
            factor,
            "a finite number at least 1",
            lambda s: math.isfinite(s) and s >= 1.0,
        )
    if not (isinstance(ramp, str) and ramp in ("turns", "index")):
        raise ValueError(f'`ramp` must be "index" or "turns", got {shown(ramp)}')
    if ramp == "turns" and scaling != "yarn":
        raise ValueError(
            f'`ramp`="turns" needs scaling="yarn", got `scaling`={shown(scaling)}'
        )
    if scaling == "ntk" and d < 4:
        raise ValueError(
            f'`d`={d} must be at least 4 for scaling="ntk": '
            "the base's exponent d/(d - 2) needs it"
        )
    if scaling == "yarn":
        if original_length is None:
            raise ValueError(
                '`scaling`="yarn" needs `original_length`, the trained length L'
            )
        original_length = positive_finite("original_length", original_length)
        alpha = as_real(
            "alpha",
            alpha,
            "a finite number at least 0",
            lambda a: math.isfinite(a) and a >= 0.0,
        )
        beta = as_real("beta", beta, "a finite number", math.isfinite)
        if not alpha < beta:
            raise ValueError(
                f"`alpha`={shown(alpha)} must be less than `beta`={shown(beta)}"
            )
        if ramp == "index" and alpha == 0.0:
            raise ValueError(
                '`alpha`=0.0 must be positive for ramp="index" (the default): '
                'the pair that turns 0 times lies at infinity; ramp="turns" takes it'
            )
    i = np.arange(d // 2)  # pair index
    with np.errstate(under="ignore"):
        if scaling == "ntk":
            base = base * factor ** (d / (d - 2))  # b' = b s^(d / (d - 2))
        theta = base ** (-2.0 * i / d)  # theta_i = b^(-2i/d): (d / 2,)
    if scaling == "linear":
        return theta / factor  # m theta_i / s = (m / s) theta_i
    if scaling == "yarn":
        if ramp == "index":
            low = max(math.floor(_pair_turning(beta, d, base, original_length)), 0)
            high = min(math.ceil(_pair_turning(alpha, d, base, original_length)), d - 1)
            width = high - low if high != low else 0.001
            gamma = 1.0 - np.clip((i - low) / width, 0.0, 1.0)
        else:
            turns = original_length * theta / (2.0 * math.pi)  # r_i = L / lambda_i
            gamma = np.clip((turns - alpha) / (beta - alpha), 0.0, 1.0)
        return (1.0 - gamma) * theta / factor + gamma * theta
    return theta


def _pair_turning(turns: float, d: int, base: float, length: float) -> float:
    """The pair index c, not rounded, at which r_c = L b^(-2c/d) / 2 pi = turns."""
    return d * math.log(length / (2.0 * math.pi * turns)) / (2.0 * math.log(base))


def alibi_slopes(n_heads: int) -> FloatArray:
    r"""The slope :math:`m_h` of every head of ALiBi.

    Parameters
    ----------
    n_heads : int
        Number of heads :math:`H`, at least 1.

    Returns
    -------
    ndarray, shape (n_heads,), float64
        For :math:`H` a power of two, :math:`m_h = 2^{-8h/H}`,
        :math:`h = 1, \dots, H` (entry ``h - 1``): a geometric sequence from
        :math:`2^{-8/H}` down to :math:`2^{-8}`.

    Raises
    ------
    ValueError
        If ``n_heads`` is not a positive integer.

    Notes
    -----
    Press et al., 2022, "Train Short, Test Long: Attention with Linear
    Biases Enables Input Length Extrapolation" (ICLR 2022,
    arXiv:2108.12409), Section 3: with 8 heads the slopes are
    :math:`1/2^1, 1/2^2, \dots, 1/2^8`, and in general the geometric
    sequence that starts at :math:`2^{-8/H}` with that ratio. For :math:`H`
    not a power of two, this function follows the paper's reference code
    (and the models trained with it, such as BLOOM): the :math:`H_2` slopes
    of the largest power of two :math:`H_2 < H`, followed by the first
    :math:`H - H_2` slopes of every other entry of :math:`2 H_2` heads'
    (:math:`2^{-8 \cdot 1/(2H_2)}, 2^{-8 \cdot 3/(2H_2)}, \dots`). See the
    book's page "Positions for long contexts" (long-context.md).

    Examples
    --------
    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> alibi_slopes(6).tolist()  # the 4 of H = 4, then 1/2 and 1/8 from H = 8
    [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]
    """
    n_heads = check_positive_int("n_heads", n_heads)
    power = 1 << (n_heads.bit_length() - 1)  # largest power of two <= H

    def geometric(h: int) -> FloatArray:
        return 2.0 ** (-8.0 * np.arange(1, h + 1) / h)  # m_h = 2^(-8h/H)

    slopes = geometric(power)
    if power == n_heads:
        return slopes
    extra = geometric(2 * power)[0::2][: n_heads - power]
    return np.concatenate([slopes, extra])


def alibi_bias(n_q: int, n_k: int | None = None, *, n_heads: int) -> FloatArray:
    r"""ALiBi's bias :math:`-m_h (i' - j)`, to add to the scores of every head.

    Parameters
    ----------
    n_q : int
        Number of queries, at least 1.
    n_k : int, optional
        Number of keys, at least 1; defaults to ``n_q``.
    n_heads : int
        Number of heads, at least 1 (slopes of :func:`alibi_slopes`).

    Returns
    -------
    ndarray, shape (n_heads, n_q, n_k), float64
        ``bias[h, i, j]`` is :math:`-m_{h+1} \lvert i' - j \rvert` with
        :math:`i' = i + (n_k - n_q)`, the position of query ``i`` when the
        queries are the last ``n_q`` of the ``n_k`` positions (bottom-right,
        like :func:`~attention_docs.masks.causal_mask`). It broadcasts
        against scores of shape ``(batch, n_heads, n_q, n_k)``. It takes
        ``8 * n_heads * n_q * n_k`` bytes.

    Raises
    ------
    ValueError
        If ``n_q``, ``n_k`` or ``n_heads`` is not a positive integer.

    Notes
    -----
    Press et al., 2022, Section 3: the scores of query :math:`i` become
    :math:`\mathbf{q}_i K^\top + m \cdot [-(i-1), \dots, -2, -1, 0]` (keys
    :math:`1, \dots, i`, counted from 1; the paper adds the bias after the
    scaling by :math:`1/\sqrt{d_k}`, which it leaves out of its
    formula). The paper defines the causal case only; the entries of the
    keys after the query (:math:`j > i'`), which a causal mask removes, are
    given here as :math:`-m (j - i')`, the distance in absolute value, so
    that the bias never favours a later key. Add the bias to the scores
    (:func:`~attention_docs.attention.attention_scores`) and apply
    :func:`~attention_docs.softmax.masked_softmax` with the causal mask;
    PyTorch's ``scaled_dot_product_attention`` takes the same sum as a
    float ``attn_mask`` (bias plus :math:`-\infty` where masked). See the
    book's pages "Masks" (masks.md, section "Additive masks") and
    "Positions for long contexts" (long-context.md).

    Examples
    --------
    >>> alibi_bias(3, n_heads=2)[0].tolist()  # m_1 = 2^-4
    [[0.0, -0.0625, -0.125], [-0.0625, 0.0, -0.0625], [-0.125, -0.0625, 0.0]]
    >>> alibi_bias(1, 4, n_heads=1).tolist()  # one new query, 4 keys, m = 2^-8
    [[[-0.01171875, -0.0078125, -0.00390625, 0.0]]]
    """
    n_q = check_positive_int("n_q", n_q)
    n_k = n_q if n_k is None else check_positive_int("n_k", n_k)
    slopes = alibi_slopes(n_heads)  # (H,)
    i = np.arange(n_q)[:, np.newaxis] + (n_k - n_q)  # i' = i + (n_k - n_q)
    j = np.arange(n_k)[np.newaxis, :]
    distance = np.abs(i - j).astype(np.float64)  # |i' - j|: (n_q, n_k)
    # 0 - m |i' - j| (0.0 rather than -0.0 on the diagonal): (H, n_q, n_k)
    return 0.0 - slopes[:, np.newaxis, np.newaxis] * distance
