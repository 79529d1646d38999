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
  positions only through :math:`m - n`.

See the book's page "Positional encoding" (positional-encoding.md).
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
)

__all__ = ["apply_rope", "sinusoidal_positional_encoding"]


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
    x: ArrayLike, positions: ArrayLike | None = None, base: float = 10000.0
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
        rotated component overflows.
    TypeError
        If ``x`` or ``positions`` does not hold real numbers or is a numpy
        masked array.

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
    with np.errstate(under="ignore"):
        theta = base ** (-np.arange(0, d, 2) / d)  # theta_i: (d / 2,)
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
