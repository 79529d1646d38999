r"""Training one attention head by hand: sequence reversal, cross-entropy, Adam.

A model small enough to train in a fraction of a second, with every gradient
written out, on a task whose correct attention pattern is known in advance:

- the task (:func:`reversal_task`): a sequence of ``n`` tokens drawn uniformly
  from ``vocab`` symbols; the target at position :math:`i` is the input token
  at position :math:`n - 1 - i` (0-based), so query :math:`i` should attend
  to key :math:`n - 1 - i`;
- the model (:func:`forward`): one head of self-attention between an
  embedding and an output projection,

  .. math::

      X = E[\text{tokens}] + P, \quad
      Q = X W_Q, \; K = X W_K, \; V = X W_V, \quad
      Z = \operatorname{softmax}\!\Bigl(\frac{Q K^\top}{\sqrt{d_k}}\Bigr) V,
      \quad \text{logits} = Z\, W_{out},

  with :math:`P` the sinusoidal positional encoding (Vaswani et al., 2017,
  "Attention Is All You Need", arXiv:1706.03762, Section 3.5) or
  :math:`P = 0`;
- the loss (:func:`cross_entropy`): the mean cross-entropy over every
  position of every sequence;
- the gradients (:func:`loss_and_gradients`): the chain rule from the logits
  back to :math:`E`, through
  :func:`~attention_docs.backward.scaled_dot_product_attention_backward`;
- the optimiser (:class:`Adam`): Kingma and Ba, 2015, "Adam: A Method for
  Stochastic Optimization" (ICLR 2015, arXiv:1412.6980), Algorithm 1;
- :func:`train` runs it all and :func:`alignment_accuracy` checks the learned
  weights against the known alignment.

Without positions (:math:`P = 0`) the task cannot be learned: every row of
:math:`X` then depends on its token only, and self-attention is
permutation-equivariant (the book's page "Self-attention", section
"Permutation equivariance"). See the book's page "Training attention"
(training.md).

The functions whose names start with an underscore hold the computation
itself, without checks; the book shows their source. The public functions
check their arguments first.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import (
    FloatArray,
    as_float_array,
    as_integer_array,
    as_real,
    check_exact_ndim,
    check_ndim,
    check_positive_int,
    check_same_size,
    positive_finite,
    reject_masked_array,
    rng_restored_on_error,
    shown,
)
from .attention import scaled_dot_product_attention
from .backward import scaled_dot_product_attention_backward
from .positional import sinusoidal_positional_encoding

__all__ = [
    "PARAMETER_NAMES",
    "Adam",
    "ForwardPass",
    "TrainingResult",
    "alignment_accuracy",
    "cross_entropy",
    "forward",
    "init_params",
    "loss_and_gradients",
    "reversal_task",
    "train",
]

#: The model's parameters, in the order :func:`init_params` draws them.
PARAMETER_NAMES = ("embedding", "w_q", "w_k", "w_v", "w_out")

IntArray = NDArray[np.integer[Any]]
Params = dict[str, FloatArray]


class ForwardPass(NamedTuple):
    """Every intermediate array of :func:`forward`, kept for the gradients.

    Shapes for ``tokens`` of shape ``(batch, n)``: ``x (batch, n, d_model)``,
    ``q`` and ``k (batch, n, d_k)``, ``v (batch, n, d_v)``,
    ``weights (batch, n, n)`` (query ``i`` along axis 1, key ``j`` along
    axis 2), ``output (batch, n, d_v)`` and ``logits (batch, n, vocab)``.
    """

    x: FloatArray
    q: FloatArray
    k: FloatArray
    v: FloatArray
    weights: FloatArray
    output: FloatArray
    logits: FloatArray


# -- the computation, as the book shows it -------------------------------------


# --8<-- [start:forward]
def _forward(params, tokens, pe):
    """X = E[tokens] + PE, Z = Attention(X W_Q, X W_K, X W_V), U = Z W_out."""
    x = params["embedding"][tokens] + pe  # (batch, n, d_model)
    q = x @ params["w_q"]  # Q = X W_Q: (batch, n, d_model) @ (d_model, d_k)
    k = x @ params["w_k"]  # K = X W_K: (batch, n, d_k)
    v = x @ params["w_v"]  # V = X W_V: (batch, n, d_v)
    output, weights = scaled_dot_product_attention(q, k, v, return_weights=True)
    logits = output @ params["w_out"]  # (batch, n, d_v) @ (d_v, vocab)
    return ForwardPass(x, q, k, v, weights, output, logits)


# --8<-- [end:forward]


# --8<-- [start:loss]
def _cross_entropy(logits, targets):
    """L = mean(-log softmax(U)[y]), softmax(U)."""
    shifted = logits - logits.max(axis=-1, keepdims=True)  # U - max(U)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(log_probs, targets[..., np.newaxis], axis=-1)
    return float(-picked.mean()), np.exp(log_probs)


# --8<-- [end:loss]


# --8<-- [start:gradients]
def _gradients(params, tokens, targets, fwd, probs):
    """dL/dE, dL/dW_Q, dL/dW_K, dL/dW_V, dL/dW_out."""
    vocab = probs.shape[-1]
    d_model, d_k = params["w_q"].shape
    d_v = params["w_v"].shape[1]
    b, i = np.indices(targets.shape)  # (batch, n), (batch, n)
    d_logits = probs.copy()  # softmax(U): (batch, n, vocab)
    d_logits[b, i, targets] -= 1.0  # softmax(U) - I_y
    d_logits /= targets.size  # dU = (softmax(U) - I_y) / N
    z_rows = fwd.output.reshape(-1, d_v)  # Z: (batch * n, d_v)
    x_rows = fwd.x.reshape(-1, d_model)  # (batch * n, d_model)
    grads = {"w_out": z_rows.T @ d_logits.reshape(-1, vocab)}  # Z^T dU
    g = d_logits @ params["w_out"].T  # G = dZ = dU W_out^T: (batch, n, d_v)
    dq, dk, dv = scaled_dot_product_attention_backward(fwd.q, fwd.k, fwd.v, g)
    grads["w_q"] = x_rows.T @ dq.reshape(-1, d_k)  # X^T dQ: (d_model, d_k)
    grads["w_k"] = x_rows.T @ dk.reshape(-1, d_k)  # X^T dK
    grads["w_v"] = x_rows.T @ dv.reshape(-1, d_v)  # X^T dV: (d_model, d_v)
    # dX = dQ W_Q^T + dK W_K^T + dV W_V^T
    dx = dq @ params["w_q"].T + dk @ params["w_k"].T + dv @ params["w_v"].T
    d_embedding = np.zeros_like(params["embedding"])
    np.add.at(d_embedding, tokens, dx)  # dE[t] = sum(dX[tokens == t])
    grads["embedding"] = d_embedding
    return grads


# --8<-- [end:gradients]


# --8<-- [start:adam]
def _adam_update(theta, g, m, v, t, lr, beta1, beta2, eps):
    """theta_t, m_t, v_t (t = 1, 2, ...)."""
    m = beta1 * m + (1 - beta1) * g  # m_t = beta1 m_(t-1) + (1 - beta1) g
    v = beta2 * v + (1 - beta2) * g * g  # v_t = beta2 v_(t-1) + (1 - beta2) g^2
    m_hat = m / (1 - beta1**t)  # m_t / (1 - beta1^t)
    root_v_hat = np.sqrt(v) / math.sqrt(1 - beta2**t)  # sqrt(v_hat_t)
    return theta - lr * m_hat / (root_v_hat + eps), m, v  # theta_t, m_t, v_t


# --8<-- [end:adam]


# --8<-- [start:train]
def _train_loop(params, optimizer, rng, steps, batch, n, vocab, pe):
    losses = np.empty(steps)
    for step in range(steps):
        tokens, targets = _reversal_task(rng, batch, n, vocab)
        fwd = _forward(params, tokens, pe)
        losses[step], probs = _cross_entropy(fwd.logits, targets)
        grads = _gradients(params, tokens, targets, fwd, probs)
        optimizer.step(params, grads)
    return losses


# --8<-- [end:train]


def _reversal_task(rng, batch, n, vocab):
    tokens = rng.integers(0, vocab, size=(batch, n))  # uniform, independent
    return tokens, tokens[:, ::-1].copy()  # target i = token n - 1 - i


# -- checks ----------------------------------------------------------------------


def _check_rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"`rng` must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return rng


def _check_decay(name: str, value: object) -> float:
    return as_real(name, value, "a number in [0, 1)", lambda x: 0.0 <= x < 1.0)


def _check_keys(name: str, given: dict[Any, Any]) -> None:
    """TypeError unless every key of the dict ``given`` is a string."""
    for key in given:
        if not isinstance(key, str):
            raise TypeError(
                f"`{name}` must have strings as keys (the parameters' names), "
                f"got the key {key!r} of type {type(key).__name__}"
            )


def _check_seed(seed: object) -> int:
    """``seed`` as an int; ValueError unless it is an integer >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"`seed` must be a non-negative integer, got {shown(seed)}")
    return int(seed)


def _check_params(params: object, name: str = "params") -> Params:
    """The five parameters as finite float arrays whose shapes fit together."""
    if not isinstance(params, dict) or set(params) != set(PARAMETER_NAMES):
        found = sorted(map(repr, params)) if isinstance(params, dict) else type(params)
        raise ValueError(
            f"`{name}` must be a dict with the keys {list(PARAMETER_NAMES)}, "
            f"got {found}"
        )
    arrays = {key: as_float_array(f"{name}['{key}']", params[key]) for key in params}
    layouts = {
        "embedding": "(vocab, d_model)",
        "w_q": "(d_model, d_k)",
        "w_k": "(d_model, d_k)",
        "w_v": "(d_model, d_v)",
        "w_out": "(d_v, vocab)",
    }
    for key, layout in layouts.items():
        check_exact_ndim(f"{name}['{key}']", arrays[key], 2, layout)
        if arrays[key].size == 0:  # vocab, d_model, d_k and d_v are all >= 1
            raise ValueError(
                f"`{name}['{key}']` is empty: shape {arrays[key].shape}, "
                f"expected {layout} with every size at least 1"
            )

    def named(key: str, axis: int) -> tuple[str, FloatArray, int]:
        return (f"{name}['{key}']", arrays[key], axis)

    check_same_size("d_model", named("embedding", 1), named("w_q", 0))
    check_same_size("d_model", named("embedding", 1), named("w_k", 0))
    check_same_size("d_model", named("embedding", 1), named("w_v", 0))
    check_same_size("d_k", named("w_q", 1), named("w_k", 1))
    check_same_size("d_v", named("w_v", 1), named("w_out", 0))
    check_same_size("vocab", named("embedding", 0), named("w_out", 1))
    return arrays


def _check_tokens(name: str, tokens: ArrayLike, vocab: int) -> IntArray:
    """``tokens`` as a 2-D integer array with entries in [0, vocab)."""
    array = as_integer_array(name, tokens)
    check_exact_ndim(name, array, 2, "(batch, n)")
    if array.size == 0:
        raise ValueError(f"`{name}` is empty: shape {array.shape}")
    if array.min() < 0 or array.max() >= vocab:
        raise ValueError(
            f"`{name}` must hold token ids in [0, {vocab}) (vocab={vocab}), got "
            f"values from {array.min()} to {array.max()}"
        )
    return array


def _positional_encoding(positional: object, n: int, d_model: int) -> FloatArray:
    """P: the sinusoidal encoding if ``positional`` is True, else zeros."""
    if not isinstance(positional, bool | np.bool_):
        raise TypeError(f"`positional` must be True or False, got {positional!r}")
    if not positional:
        return np.zeros((n, d_model))
    if d_model % 2:
        raise ValueError(
            f"the sinusoidal encoding needs an even d_model, got d_model={d_model}"
        )
    return sinusoidal_positional_encoding(n, d_model)


def _checked_forward(
    params: object, tokens: ArrayLike, positional: object
) -> tuple[Params, IntArray, ForwardPass]:
    arrays = _check_params(params)
    vocab, d_model = arrays["embedding"].shape
    token_array = _check_tokens("tokens", tokens, vocab)
    pe = _positional_encoding(positional, token_array.shape[1], d_model)
    overflow = (
        f"the forward pass overflows {arrays['embedding'].dtype} with these "
        "`params`: they are too large"
    )
    try:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # below
            fwd = _forward(arrays, token_array, pe)
    except ValueError as error:  # an infinite Q, K, V or score in the attention
        raise ValueError(f"{overflow} ({error})") from None
    if not np.all(np.isfinite(fwd.logits)):
        raise ValueError(overflow)
    return arrays, token_array, fwd


def _mean_loss(logits: FloatArray, targets: IntArray) -> float:
    r"""The loss of :func:`_cross_entropy`, finite whenever the mean itself is.

    The loss at one position, :math:`l = (m - z_y) + \log \sum_c e^{z_c - m}`
    with :math:`m = \max_c z_c`, can exceed the largest float (logits of
    about 1e308 of both signs) while the mean over the positions does not.
    Then every :math:`l / 2` is computed instead (no overflow: :math:`m/2 -
    z_y/2` is at most the largest float), and their mean scaled by the
    largest of them. ValueError if the mean itself overflows.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        loss, _ = _cross_entropy(logits, targets)
        if math.isfinite(loss):  # the usual case: the formula as the book shows it
            return loss + 0.0  # and 0.0, not -0.0, when every probability is 1
        m = logits.max(axis=-1, keepdims=True)  # (..., 1)
        z_y = np.take_along_axis(logits, targets[..., np.newaxis], axis=-1)
        log_sum = np.log(np.exp(logits - m).sum(axis=-1, keepdims=True))  # >= 0
        halves = (m / 2 - z_y / 2) + log_sum / 2  # l / 2 >= 0 at every position
        top = float(halves.max())  # > 0, since some l overflowed
        mean = 2.0 * float(np.mean(halves / top)) * top  # mean of l
    if not math.isfinite(mean):
        raise ValueError(
            f"the cross-entropy overflows {logits.dtype}: the mean loss exceeds the "
            f"largest float (logits from {float(logits.min()):.3g} to "
            f"{float(logits.max()):.3g})"
        )
    return mean


# -- the public functions -----------------------------------------------------


def reversal_task(
    rng: np.random.Generator, batch: int, n: int, vocab: int
) -> tuple[IntArray, IntArray]:
    r"""A batch of the reversal task: random tokens and their reversal.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the tokens, e.g. ``np.random.default_rng(0)``.
    batch : int
        Number of sequences, at least 1.
    n : int
        Length of every sequence, at least 1.
    vocab : int
        Number of distinct tokens; the ids are ``0, ..., vocab - 1``.

    Returns
    -------
    tokens : ndarray of int, shape (batch, n)
        Independent tokens, each uniform over ``0, ..., vocab - 1``.
    targets : ndarray of int, shape (batch, n)
        ``targets[b, i] == tokens[b, n - 1 - i]``: each sequence reversed.

    Raises
    ------
    ValueError
        If ``batch``, ``n`` or ``vocab`` is not a positive integer.
    TypeError
        If ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    The target at position :math:`i` is a copy of the input at position
    :math:`n - 1 - i` (positions counted from 0), so an attention head that
    solves the task must give query :math:`i` its largest weight on key
    :math:`n - 1 - i`: the alignment is known before training, and it depends
    on the positions only, never on the tokens.

    Examples
    --------
    >>> tokens, targets = reversal_task(np.random.default_rng(0), 2, 5, 8)
    >>> tokens.tolist()
    [[6, 5, 4, 2, 2], [0, 0, 0, 1, 6]]
    >>> targets.tolist()
    [[2, 2, 4, 5, 6], [6, 1, 0, 0, 0]]
    """
    rng = _check_rng(rng)
    batch = check_positive_int("batch", batch)
    n = check_positive_int("n", n)
    vocab = check_positive_int("vocab", vocab)
    return _reversal_task(rng, batch, n, vocab)


def init_params(
    rng: np.random.Generator, *, vocab: int = 8, d_model: int = 16, d_k: int = 16
) -> Params:
    r"""Random initial parameters of the model of :func:`forward`.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the initial values.
    vocab : int, optional
        Number of distinct tokens (default 8).
    d_model : int, optional
        Width of the embeddings (default 16); even if the model adds the
        sinusoidal positional encoding.
    d_k : int, optional
        Width of the queries, keys and values, :math:`d_k = d_v`
        (default 16).

    Returns
    -------
    dict of str to ndarray
        ``"embedding"`` :math:`E`, shape ``(vocab, d_model)``, entries drawn
        from the standard normal distribution; ``"w_q"``, ``"w_k"``,
        ``"w_v"``, shape ``(d_model, d_k)``, entries normal with variance
        :math:`1/d_{model}`; ``"w_out"``, shape ``(d_k, vocab)``, variance
        :math:`1/d_k`. They are drawn in the order of
        :data:`PARAMETER_NAMES`.

    Raises
    ------
    ValueError
        If ``vocab``, ``d_model`` or ``d_k`` is not a positive integer.
    TypeError
        If ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    With variance :math:`1/d_{in}` a product such as :math:`X W_Q` has
    entries of about the variance of the entries of :math:`X` (the same
    choice as :class:`~attention_docs.multihead.MultiHeadAttention`), so
    neither the scores nor the logits start large and the softmax starts far
    from saturation (the book's page "Softmax", section "Saturation").

    Examples
    --------
    >>> params = init_params(np.random.default_rng(0), vocab=5, d_model=4, d_k=3)
    >>> {name: p.shape for name, p in params.items()}
    {'embedding': (5, 4), 'w_q': (4, 3), 'w_k': (4, 3), 'w_v': (4, 3), 'w_out': (3, 5)}
    """
    rng = _check_rng(rng)
    vocab = check_positive_int("vocab", vocab)
    d_model = check_positive_int("d_model", d_model)
    d_k = check_positive_int("d_k", d_k)
    with rng_restored_on_error(rng):  # a call that raises draws nothing
        return {
            "embedding": rng.standard_normal((vocab, d_model)),
            "w_q": rng.standard_normal((d_model, d_k)) / math.sqrt(d_model),
            "w_k": rng.standard_normal((d_model, d_k)) / math.sqrt(d_model),
            "w_v": rng.standard_normal((d_model, d_k)) / math.sqrt(d_model),
            "w_out": rng.standard_normal((d_k, vocab)) / math.sqrt(d_k),
        }


def forward(
    params: dict[str, ArrayLike], tokens: ArrayLike, *, positional: bool = True
) -> ForwardPass:
    r"""Run the model on a batch of token sequences.

    Parameters
    ----------
    params : dict of str to array_like
        The keys of :data:`PARAMETER_NAMES`: ``"embedding"`` (vocab,
        d_model), ``"w_q"`` and ``"w_k"`` (d_model, d_k), ``"w_v"``
        (d_model, d_v), ``"w_out"`` (d_v, vocab), as from
        :func:`init_params`.
    tokens : array_like of int, shape (batch, n)
        Token ids in ``[0, vocab)``.
    positional : bool, optional
        Add the sinusoidal positional encoding :math:`P` of
        :func:`~attention_docs.positional.sinusoidal_positional_encoding`
        (default True); if False, :math:`P = 0`.

    Returns
    -------
    ForwardPass
        ``x``, ``q``, ``k``, ``v``, ``weights`` (batch, n, n), ``output`` and
        ``logits`` (batch, n, vocab); every row of ``weights`` sums to 1.

    Raises
    ------
    ValueError
        If ``params`` does not have exactly the five keys, a parameter is not
        2-D or not finite, two shapes do not fit together (the message names
        both parameters and gives both shapes), ``tokens`` is not 2-D, is
        empty or holds an id outside ``[0, vocab)``, ``positional`` is True
        and ``d_model`` is odd, or a product overflows.
    TypeError
        If ``tokens`` does not hold integers, ``positional`` is not a bool,
        or an argument is a numpy masked array or not real numbers.

    Notes
    -----
    .. math::

        X = E[\text{tokens}] + P, \quad Q = X W_Q, \quad K = X W_K, \quad
        V = X W_V, \quad
        Z = \operatorname{softmax}\!\Bigl(\frac{Q K^\top}{\sqrt{d_k}}\Bigr) V,
        \quad \text{logits} = Z\, W_{out}.

    :math:`E[\text{tokens}]` takes row ``tokens[b, i]`` of :math:`E` for
    position :math:`i` of sequence :math:`b`; the attention is
    :func:`~attention_docs.attention.scaled_dot_product_attention`
    (Vaswani et al., 2017, Section 3.2.1, Equation 1) applied to each
    sequence; :math:`P` is the encoding of Section 3.5.

    Examples
    --------
    >>> params = init_params(np.random.default_rng(0), vocab=5, d_model=4, d_k=3)
    >>> fwd = forward(params, [[0, 1, 2], [4, 4, 1]])
    >>> fwd.weights.shape, fwd.logits.shape
    ((2, 3, 3), (2, 3, 5))
    >>> np.allclose(fwd.weights.sum(axis=-1), 1.0)
    True
    """
    return _checked_forward(params, tokens, positional)[2]


def cross_entropy(logits: ArrayLike, targets: ArrayLike) -> float:
    r"""Mean cross-entropy of ``targets`` under ``softmax(logits)``.

    Parameters
    ----------
    logits : array_like, shape (..., vocab)
        One row of scores per position.
    targets : array_like of int, shape (...)
        The correct id of every position, in ``[0, vocab)``.

    Returns
    -------
    float
        :math:`L = -\frac{1}{N} \sum_r \log \operatorname{softmax}(z_r)_{y_r}`
        over the :math:`N` positions :math:`r` (rows of ``logits``): 0 when
        every correct id gets probability 1, :math:`\log(\text{vocab})` for
        uniform probabilities.

    Raises
    ------
    ValueError
        If ``logits`` is not finite or has no ``vocab`` axis, if ``logits``
        is empty (no position: the mean of nothing is undefined; or
        ``vocab = 0``), if ``targets`` does not have the shape
        ``logits.shape[:-1]`` or holds an id outside ``[0, vocab)``, if the
        mean loss exceeds the largest float.
    TypeError
        If ``targets`` does not hold integers, or an argument is a numpy
        masked array or not real numbers.

    Notes
    -----
    :math:`\log \operatorname{softmax}(z)_y = z_y - \log \sum_c e^{z_c}`,
    computed after subtracting :math:`\max_c z_c` (the book's page "Softmax",
    section "Numerical stability"), so that no exponential overflows and no
    probability that rounds to 0 makes the logarithm infinite. Logits far
    apart (about 1e308 of both signs) give a loss at one position that
    exceeds the largest float; the mean is then computed from halves, so it
    is returned whenever it is itself a float, without a warning. An empty
    batch is an error rather than NaN (numpy's ``mean`` of nothing, and
    PyTorch's ``cross_entropy`` with ``reduction="mean"``, return NaN).

    Examples
    --------
    >>> round(cross_entropy([[0.0, 0.0, 0.0, 0.0]], [2]), 6)  # log 4
    1.386294
    >>> round(cross_entropy([[2.0, 0.0], [0.0, 2.0]], [0, 1]), 6)
    0.126928
    """
    z = as_float_array("logits", logits)
    check_ndim("logits", z, 1, "(..., vocab)")
    if z.size == 0:  # a mean over no positions, or no ids to pick
        raise ValueError(
            f"`logits` is empty: shape {z.shape}; the mean cross-entropy needs at "
            "least one position and vocab >= 1"
        )
    y = as_integer_array("targets", targets)
    if y.shape != z.shape[:-1]:
        raise ValueError(
            f"`targets` must have the shape of `logits` without its last axis "
            f"{z.shape[:-1]}, got shape {y.shape}"
        )
    vocab = z.shape[-1]
    if y.size and (y.min() < 0 or y.max() >= vocab):
        raise ValueError(
            f"`targets` must hold ids in [0, {vocab}), got values from "
            f"{y.min()} to {y.max()}"
        )
    return _mean_loss(z, y)


def loss_and_gradients(
    params: dict[str, ArrayLike],
    tokens: ArrayLike,
    targets: ArrayLike,
    *,
    positional: bool = True,
) -> tuple[float, Params]:
    r"""The loss of a batch and its gradient with respect to every parameter.

    Parameters
    ----------
    params : dict of str to array_like
        As for :func:`forward`.
    tokens : array_like of int, shape (batch, n)
        Input token ids in ``[0, vocab)``.
    targets : array_like of int, shape (batch, n)
        Correct output ids in ``[0, vocab)``.
    positional : bool, optional
        As for :func:`forward` (default True).

    Returns
    -------
    loss : float
        :func:`cross_entropy` of the logits and ``targets``, averaged over
        the :math:`N = \text{batch} \cdot n` positions.
    grads : dict of str to ndarray
        :math:`\partial L / \partial \theta` for every parameter
        :math:`\theta`, with the parameter's shape (same keys as
        ``params``). The positional encoding is fixed and gets none.

    Raises
    ------
    ValueError
        For every reason of :func:`forward`; if ``targets`` does not have the
        shape of ``tokens`` or holds an id outside ``[0, vocab)``; if a
        gradient overflows.
    TypeError
        For every reason of :func:`forward`; if ``targets`` does not hold
        integers.

    Notes
    -----
    From the loss back to the embeddings, with :math:`Y` the one-hot targets
    and every product summed over the sequences of the batch:

    .. math::

        d\text{logits} = \frac{\partial L}{\partial\, \text{logits}}
        = \frac{\operatorname{softmax}(\text{logits}) - Y}{N},
        \quad dW_{out} = Z^\top\, d\text{logits}, \quad
        G = d\text{logits}\, W_{out}^\top,

    then :math:`dQ, dK, dV` from :math:`G` by
    :func:`~attention_docs.backward.scaled_dot_product_attention_backward`,
    :math:`dW_Q = X^\top dQ`, :math:`dW_K = X^\top dK`,
    :math:`dW_V = X^\top dV`,
    :math:`dX = dQ\, W_Q^\top + dK\, W_K^\top + dV\, W_V^\top`, and row
    :math:`t` of :math:`dE` is the sum of the rows of :math:`dX` at the
    positions that hold token :math:`t`. See the book's page "Training
    attention" (training.md, section "Gradients").

    Memory: :math:`Y` is never formed (1 is subtracted at each target's
    entry of a copy of the probabilities), so the largest intermediates are
    the logits, the probabilities and :math:`d\text{logits}`, of
    :math:`N \cdot \text{vocab}` entries each, the attention weights
    (:math:`\text{batch} \cdot n^2`) and arrays of the parameters' sizes:
    O(N vocab + batch n² + parameters), never :math:`\text{vocab}^2`.

    Examples
    --------
    A central finite difference in one entry of ``w_q`` agrees:

    >>> rng = np.random.default_rng(0)
    >>> params = init_params(rng, vocab=5, d_model=4, d_k=3)
    >>> tokens, targets = reversal_task(rng, 2, 4, 5)
    >>> loss, grads = loss_and_gradients(params, tokens, targets)
    >>> h = 1e-6
    >>> plus = {**params, "w_q": params["w_q"].copy()}
    >>> minus = {**params, "w_q": params["w_q"].copy()}
    >>> plus["w_q"][1, 2] += h
    >>> minus["w_q"][1, 2] -= h
    >>> numeric = (
    ...     loss_and_gradients(plus, tokens, targets)[0]
    ...     - loss_and_gradients(minus, tokens, targets)[0]
    ... ) / (2 * h)
    >>> bool(np.isclose(grads["w_q"][1, 2], numeric, rtol=1e-5, atol=1e-9))
    True
    """
    arrays, token_array, fwd = _checked_forward(params, tokens, positional)
    vocab = arrays["embedding"].shape[0]
    target_array = _check_tokens("targets", targets, vocab)
    if target_array.shape != token_array.shape:
        raise ValueError(
            f"`targets` must have the shape of `tokens`: shapes "
            f"{token_array.shape} and {target_array.shape}"
        )
    loss = _mean_loss(fwd.logits, target_array)
    try:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # below
            _, probs = _cross_entropy(fwd.logits, target_array)
            grads = _gradients(arrays, token_array, target_array, fwd, probs)
    except ValueError as error:  # dQ, dK or dV overflowed in the backward pass
        raise ValueError(
            f"the gradients overflow {fwd.logits.dtype} with these `params`: "
            f"they are too large (in the attention's backward pass, {error})"
        ) from None
    for name, grad in grads.items():
        if not np.all(np.isfinite(grad)):
            raise ValueError(
                f"the gradient with respect to params['{name}'] overflows {grad.dtype}"
            )
    return loss, {name: grads[name] for name in PARAMETER_NAMES}


class Adam:
    r"""The Adam optimiser of Kingma and Ba (2015), Algorithm 1.

    Parameters
    ----------
    params : dict of str to ndarray
        The parameters to optimise (e.g. from :func:`init_params`): float
        arrays that :meth:`step` updates in place.
    lr : float, optional
        Step size :math:`\alpha` (default 0.001, the paper's default).
    beta1, beta2 : float, optional
        Decay rates of the moving averages of the gradient and of its square,
        in :math:`[0, 1)` (defaults 0.9 and 0.999, the paper's).
    eps : float, optional
        :math:`\epsilon`, added to :math:`\sqrt{\hat v_t}` (default
        :math:`10^{-8}`, the paper's).

    Attributes
    ----------
    t : int
        Number of steps taken so far.
    m, v : dict of str to ndarray
        The moving averages :math:`m_t` and :math:`v_t` of each parameter
        (zeros before the first step).

    Raises
    ------
    ValueError
        If ``lr`` or ``eps`` is not a positive finite number, ``beta1`` or
        ``beta2`` is not in :math:`[0, 1)`, or ``params`` is empty.
    TypeError
        If ``params`` is not a dict of float arrays, or a key is not a string.

    Notes
    -----
    For every parameter :math:`\theta` with gradient :math:`g_t` at step
    :math:`t = 1, 2, \dots` (all operations elementwise):

    .. math::

        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \quad
        \hat m_t = \frac{m_t}{1 - \beta_1^t}, \quad
        \hat v_t = \frac{v_t}{1 - \beta_2^t}, \quad
        \theta_t = \theta_{t-1} - \alpha \frac{\hat m_t}{\sqrt{\hat v_t} + \epsilon},

    with :math:`m_0 = v_0 = 0`: Kingma and Ba, 2015, "Adam: A Method for
    Stochastic Optimization" (ICLR 2015, arXiv:1412.6980), Algorithm 1; the
    bias correction is derived in their Section 3. Ignoring :math:`\epsilon`,
    a step does not depend on the scale of the gradient, and it moves each
    entry by about :math:`\alpha` at most in common cases (their Section
    2.1). That is a rule of thumb, not a bound: with the default
    :math:`\beta_1, \beta_2`, a gradient that grows steadily over many steps
    moves an entry by several times :math:`\alpha` in one step.

    Examples
    --------
    At the first step the bias correction gives :math:`\hat m_1 = g_1` and
    :math:`\hat v_1 = g_1^2`, so every entry moves by :math:`\alpha` against
    the sign of its gradient:

    >>> params = {"w": np.array([1.0, -2.0])}
    >>> adam = Adam(params, lr=0.1)
    >>> adam.step(params, {"w": np.array([3.0, -0.5])})
    >>> np.round(params["w"], 6).tolist(), adam.t
    ([0.9, -1.9], 1)
    """

    def __init__(
        self,
        params: dict[str, FloatArray],
        *,
        lr: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
    ) -> None:
        if not isinstance(params, dict) or not params:
            raise ValueError("`params` must be a non-empty dict of float arrays")
        _check_keys("params", params)
        for name, value in params.items():
            if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
                raise TypeError(
                    f"`params['{name}']` must be a float ndarray (updated in "
                    f"place), got {type(value).__name__}"
                )
        self.lr = positive_finite("lr", lr)
        self.beta1 = _check_decay("beta1", beta1)
        self.beta2 = _check_decay("beta2", beta2)
        self.eps = positive_finite("eps", eps)
        self.t = 0
        # zeros of each parameter's shape and dtype, in native byte order
        self.m = {
            name: np.zeros(p.shape, p.dtype.newbyteorder("="))
            for name, p in params.items()
        }
        self.v = {
            name: np.zeros(p.shape, p.dtype.newbyteorder("="))
            for name, p in params.items()
        }

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(lr={self.lr}, beta1={self.beta1}, "
            f"beta2={self.beta2}, eps={self.eps}, t={self.t})"
        )

    def step(self, params: dict[str, FloatArray], grads: dict[str, ArrayLike]) -> None:
        r"""Take one step: update every parameter in place.

        Parameters
        ----------
        params : dict of str to ndarray
            The parameters given to the constructor (same keys and shapes):
            writeable float ndarrays, updated in place.
        grads : dict of str to array_like
            :math:`g_t`, the gradient of each parameter (same keys and
            shapes).

        Raises
        ------
        ValueError
            If the keys of ``params`` or ``grads`` are not those given to the
            constructor, a shape differs, a parameter is read-only, or a
            gradient is not finite; if the step overflows: a gradient so
            large that :math:`(1 - \beta_2) g^2` exceeds the largest float
            (about :math:`4 \cdot 10^{155}` in float64 with the default
            :math:`\beta_2`), or a new parameter that does.
        TypeError
            If a key of ``params`` or ``grads`` is not a string; if a
            parameter is not a float ndarray (a list, an integer array: it
            could not be updated in place), or a gradient does not hold real
            numbers or is a numpy masked array.

        Notes
        -----
        Every argument is checked and every new value computed before
        anything changes: a step that raises leaves the parameters, ``t``,
        ``m`` and ``v`` as they were. The operations are ordered as in
        current PyTorch's ``torch.optim.Adam``: :math:`(1 - \beta_2) g \cdot g`
        rather than :math:`g^2` first, and :math:`\sqrt{v_t} /
        \sqrt{1 - \beta_2^t}` rather than :math:`\sqrt{v_t / (1 -
        \beta_2^t)}`, so that a finite step is never lost to an overflowing
        intermediate.
        """
        for label, given in (("params", params), ("grads", grads)):
            if isinstance(given, dict):
                _check_keys(label, given)
            if not isinstance(given, dict) or set(given) != set(self.m):
                found = sorted(given) if isinstance(given, dict) else given
                raise ValueError(
                    f"`{label}` must have the keys {sorted(self.m)}, got {found}"
                )
        checked = {}
        for name in self.m:
            theta = params[name]
            reject_masked_array(f"params['{name}']", theta)
            if not isinstance(theta, np.ndarray) or theta.dtype.kind != "f":
                kind = type(theta).__name__
                if isinstance(theta, np.ndarray):
                    kind = f"an array of dtype {theta.dtype}"
                raise TypeError(
                    f"`params['{name}']` must be a float ndarray (updated in "
                    f"place), got {kind}"
                )
            if not theta.flags.writeable:
                raise ValueError(
                    f"`params['{name}']` is read-only: Adam updates it in place"
                )
            g = as_float_array(f"grads['{name}']", grads[name])
            for label, array in (("params", theta), ("grads", g)):
                if array.shape != self.m[name].shape:
                    raise ValueError(
                        f"`{label}['{name}']` has shape {array.shape}, "
                        f"expected {self.m[name].shape}"
                    )
            checked[name] = g
        t = self.t + 1
        new = {}
        for name, g in checked.items():
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                theta, m, v = _adam_update(
                    params[name], g, self.m[name], self.v[name], t,
                    self.lr, self.beta1, self.beta2, self.eps,
                )  # fmt: skip
                # in the dtypes they are stored in (float32 parameters may
                # get a float64 gradient): the cast is checked too
                theta = theta.astype(params[name].dtype, copy=False)
                m = m.astype(self.m[name].dtype, copy=False)
                v = v.astype(self.v[name].dtype, copy=False)
            if not np.all(np.isfinite(v)):
                raise ValueError(
                    f"the moving average of `grads['{name}']`**2 overflows "
                    f"{v.dtype}: the gradient is too large for Adam (largest "
                    f"magnitude {float(np.max(np.abs(g))):.3g})"
                )
            if not np.all(np.isfinite(theta)):
                raise ValueError(
                    f"the step overflows `params['{name}']` ({theta.dtype}): "
                    f"lr={self.lr!r} is too large for its values"
                )
            new[name] = theta, m, v
        for name, (theta, m, v) in new.items():  # nothing has changed until here
            params[name][...] = theta
            self.m[name][...] = m
            self.v[name][...] = v
        self.t = t


@dataclass(frozen=True)
class TrainingResult:
    r"""What :func:`train` returns.

    Attributes
    ----------
    params : dict of str to ndarray
        The trained parameters.
    initial_params : dict of str to ndarray
        The parameters before the first step (a copy).
    losses : ndarray, shape (steps,)
        ``losses[s]``: the loss of the batch of step ``s``, computed before
        that step's update (``losses[0]`` is the loss at initialisation).
    positional : bool
        Whether the model adds the positional encoding.
    n, vocab : int
        Sequence length and number of distinct tokens of the task.
    """

    params: Params
    initial_params: Params
    losses: FloatArray
    positional: bool
    n: int
    vocab: int

    def forward(self, tokens: ArrayLike, *, trained: bool = True) -> ForwardPass:
        """:func:`forward` with the trained (or, if ``trained`` is False, the
        initial) parameters and this result's ``positional``."""
        params = self.params if trained else self.initial_params
        return forward(params, tokens, positional=self.positional)

    def weights(self, tokens: ArrayLike, *, trained: bool = True) -> FloatArray:
        """The attention weights, shape (batch, n, n), for ``tokens``."""
        return self.forward(tokens, trained=trained).weights


def train(
    *,
    positional: bool = True,
    seed: int = 0,
    steps: int = 200,
    batch: int = 32,
    n: int = 6,
    vocab: int = 8,
    d_model: int = 16,
    d_k: int = 16,
    lr: float = 0.01,
) -> TrainingResult:
    r"""Train the model of :func:`forward` on :func:`reversal_task` with Adam.

    Parameters
    ----------
    positional : bool, optional
        Add the sinusoidal positional encoding (default True).
    seed : int, optional
        Seed of ``np.random.default_rng``, which draws the initial parameters
        (:func:`init_params`) and then every batch.
    steps : int, optional
        Number of Adam steps (default 200).
    batch : int, optional
        Sequences per step, each drawn afresh (default 32).
    n, vocab : int, optional
        Length of the sequences and number of distinct tokens (defaults 6
        and 8).
    d_model, d_k : int, optional
        Widths of the embeddings and of the head (defaults 16 and 16).
    lr : float, optional
        Adam's step size :math:`\alpha` (default 0.01).

    Returns
    -------
    TrainingResult
        The trained and initial parameters and the loss of every step.

    Raises
    ------
    ValueError
        If an integer argument is not a positive integer (``seed``: not a
        non-negative integer), ``lr`` is not a positive finite number, or
        ``positional`` is True and ``d_model`` is odd; if the training
        diverges (``lr`` too large: the loss or a gradient overflows; the
        message gives the step and names ``lr``). No floating-point warning
        is raised on the way, also under ``np.errstate(all="raise")``.
    TypeError
        If ``positional`` is not a bool.

    Notes
    -----
    Every step draws a new batch, and its loss is computed before the update
    that batch drives: it measures the model on a batch it has not been
    trained on (a single sequence may recur by chance among the
    ``vocab ** n`` possible ones). Adam's defaults (Kingma
    and Ba, 2015) except :math:`\alpha = 0.01` instead of 0.001: the
    parameters of this small model need to move by amounts of order 1, which
    takes :math:`\alpha = 0.001` about ten times as many steps. See the
    book's page "Training attention" (training.md, section "Results").

    Examples
    --------
    >>> result = train(steps=3)
    >>> result.losses.shape, result.positional
    ((3,), True)
    """
    steps = check_positive_int("steps", steps)
    batch = check_positive_int("batch", batch)
    n = check_positive_int("n", n)
    vocab = check_positive_int("vocab", vocab)
    lr = positive_finite("lr", lr)
    rng = np.random.default_rng(_check_seed(seed))
    params = init_params(rng, vocab=vocab, d_model=d_model, d_k=d_k)
    pe = _positional_encoding(positional, n, params["embedding"].shape[1])
    initial = {name: value.copy() for name, value in params.items()}
    optimizer = Adam(params, lr=lr)
    try:  # no floating-point warning: a run that diverges is checked below
        with np.errstate(
            over="ignore", under="ignore", invalid="ignore", divide="ignore"
        ):
            losses = _train_loop(params, optimizer, rng, steps, batch, n, vocab, pe)
    except ValueError:  # NaN or an overflow in the step that diverged
        losses = None
    if losses is None or not np.all(np.isfinite(losses)):
        step = (
            optimizer.t + 1
            if losses is None
            else int(np.argmin(np.isfinite(losses))) + 1
        )
        raise ValueError(
            f"the training diverged at step {step} of {steps}: the loss or its "
            f"gradients overflowed float64; `lr`={lr!r} is too large for this "
            "model, try a smaller `lr`"
        )
    return TrainingResult(params, initial, losses, bool(positional), n, vocab)


def alignment_accuracy(
    weights: ArrayLike, keys: ArrayLike, *, tol: float = 1e-9
) -> float:
    r"""Fraction of queries whose largest weight is on their correct key.

    Parameters
    ----------
    weights : array_like, shape (..., n_q, n_k)
        Attention weights, query ``i`` in row ``i``.
    keys : array_like of int, broadcastable to (..., n_q)
        The correct key of every query, in ``[0, n_k)``; for the reversal
        task ``n - 1 - np.arange(n)``.
    tol : float, optional
        Two weights closer than ``tol`` (default :math:`10^{-9}`) count as
        equal. Weights that are equal in exact arithmetic, such as those of
        two keys with the same row, can differ in their last bits once
        rounded; ``tol`` keeps such a tie a tie.

    Returns
    -------
    float
        The fraction of queries ``i`` with
        ``weights[..., i, keys[i]] > weights[..., i, j] + tol`` for every
        other key ``j``. A tie for the largest weight counts as a failure:
        the query does not single out its key.

    Raises
    ------
    ValueError
        If ``weights`` has fewer than 2 dimensions, is empty or not finite,
        or ``keys`` does not broadcast to ``weights.shape[:-1]`` or holds an
        index outside ``[0, n_k)``; if ``tol`` is negative or not finite.
    TypeError
        If ``keys`` does not hold integers, or an argument is a numpy masked
        array or not real numbers.

    Examples
    --------
    >>> w = np.array([[0.1, 0.9], [0.5, 0.5]])
    >>> alignment_accuracy(w, [1, 0])  # query 1 is a tie
    0.5
    """
    tol = as_real(
        "tol", tol, "a finite number >= 0", lambda x: math.isfinite(x) and x >= 0.0
    )
    w = as_float_array("weights", weights)
    check_ndim("weights", w, 2, "(..., n_q, n_k)")
    if w.size == 0:
        raise ValueError(f"`weights` is empty: shape {w.shape}")
    k = as_integer_array("keys", keys)
    try:
        k = np.broadcast_to(k, w.shape[:-1])
    except ValueError:
        raise ValueError(
            f"`keys` of shape {k.shape} does not broadcast to the queries of "
            f"`weights`, shape {w.shape[:-1]}"
        ) from None
    n_k = w.shape[-1]
    if k.min() < 0 or k.max() >= n_k:
        raise ValueError(
            f"`keys` must hold key indices in [0, {n_k}), got values from "
            f"{k.min()} to {k.max()}"
        )
    correct = np.take_along_axis(w, k[..., np.newaxis], axis=-1)  # (..., n_q, 1)
    others = np.where(np.arange(n_k) == k[..., np.newaxis], -np.inf, w)
    return float(np.mean(correct[..., 0] > others.max(axis=-1) + tol))
