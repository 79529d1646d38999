r"""From logits to the next token, and the generation loop with a KV cache.

A language model gives, after each position, logits :math:`u` over the
vocabulary. Generation turns the last row into one token, appends it, and
asks again:

- :func:`next_token_probs`: the distribution sampled from, after the
  temperature :math:`T` (:math:`\operatorname{softmax}(u / T)`), top-k
  (keep the ``k`` most likely tokens; Fan et al., 2018, "Hierarchical Neural
  Story Generation", ACL 2018, Section 5.4) and top-p (keep the smallest set
  of most likely tokens whose probability reaches ``p``; Holtzman et al.,
  2020, "The Curious Case of Neural Text Degeneration", ICLR 2020,
  Section 3.1), renormalised;
- :func:`sample_next`: one token per row, drawn from it, or the most likely
  one (greedy decoding);
- :func:`generate`: the loop. It first runs the whole prompt through the
  model (the *prefill*: every layer's keys and values go into its
  :class:`~attention_docs.kvcache.KVCache`, the queries attend with the
  bottom-right causal mask), then feeds one token at a time: each layer
  computes the new token's query, key and value only and attends to its
  cache (Vaswani et al., 2017, Section 3.2.3; Shazeer, 2019, "Fast
  Transformer Decoding", arXiv:1911.02150). ``use_cache=False`` runs the
  whole sequence again at every step, which gives the same tokens.

See the book's page "Generating text" (generation.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatArray,
    as_float_array,
    as_real,
    check_ndim,
    check_positive_int,
    positive_finite,
)
from .kvcache import KVCache
from .language_model import LanguageModel, decoder_forward
from .masks import causal_mask
from .softmax import softmax
from .tokenizer import PAD

__all__ = ["generate", "next_token_probs", "sample_next"]


def next_token_probs(
    logits: ArrayLike,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> FloatArray:
    r"""The distribution of the next token: temperature, then top-k, then top-p.

    Parameters
    ----------
    logits : array_like, shape (..., V)
        Logits :math:`u` of every token of the vocabulary (a row of
        :func:`~attention_docs.language_model.forward`'s output).
    temperature : float, optional
        :math:`T > 0`; the probabilities are :math:`\operatorname{softmax}(u /
        T)`. :math:`T < 1` sharpens the distribution (towards the most
        likely token as :math:`T \to 0`), :math:`T > 1` flattens it
        (towards uniform). Default 1: the model's own distribution.
    top_k : int, optional
        Keep only the ``k`` most likely tokens (``1 <= k``; ``k >= V`` keeps
        all). Ties at the ``k``-th place are broken towards the smaller id.
    top_p : float, optional
        Keep the smallest set of most likely tokens whose probability adds
        up to at least ``p``, :math:`0 < p \le 1`.

    Returns
    -------
    ndarray, shape (..., V)
        Probabilities, zero outside the kept tokens, each row summing to 1.
        float64 (float32 for float32 logits).

    Raises
    ------
    ValueError
        If ``logits`` has no axis or an empty one, or is not finite; if
        ``temperature`` is not a positive finite number, ``top_k`` not a
        positive integer, or ``top_p`` not in :math:`(0, 1]`.
    TypeError
        If ``logits`` does not hold real numbers.

    Examples
    --------
    >>> u = np.log([0.5, 0.3, 0.15, 0.05])
    >>> np.round(next_token_probs(u), 2).tolist()
    [0.5, 0.3, 0.15, 0.05]
    >>> np.round(next_token_probs(u, temperature=0.5), 2).tolist()  # p^2, renormalised
    [0.68, 0.25, 0.06, 0.01]
    >>> np.round(next_token_probs(u, top_k=2), 3).tolist()
    [0.625, 0.375, 0.0, 0.0]
    >>> np.round(next_token_probs(u, top_p=0.9), 3).tolist()  # 0.5 + 0.3 + 0.15 >= 0.9
    [0.526, 0.316, 0.158, 0.0]
    """
    u = as_float_array("logits", logits)
    check_ndim("logits", u, 1, "(..., V)")
    if u.shape[-1] == 0:
        raise ValueError(f"`logits` has V=0 tokens: shape {u.shape}")
    t = positive_finite("temperature", temperature)
    if top_k is not None:
        top_k = check_positive_int("top_k", top_k)
    if top_p is not None:
        top_p = as_real("top_p", top_p, "a number in (0, 1]", lambda p: 0.0 < p <= 1.0)
    with np.errstate(over="ignore", under="ignore"):
        shifted = (u - u.max(axis=-1, keepdims=True)) / t  # (u - max u) / T <= 0
        # a difference beyond the float range is -inf: any huge finite value
        # gives the same probability, 0
        np.maximum(shifted, -np.finfo(u.dtype).max, out=shifted)
        probs = softmax(shifted)  # softmax(u / T)
    # most likely first: by the logits themselves (u / T and the probabilities
    # may round distinct logits to ties)
    return _truncate(u, probs, top_k, top_p)


# --8<-- [start:truncate]
def _truncate(u, probs, top_k, top_p):
    """(probs * keep) / sum(probs * keep)."""
    order = np.argsort(-u, axis=-1, kind="stable")  # (1), (2), ..., (|V|)
    sorted_pi = np.take_along_axis(probs, order, axis=-1)  # π_(1) >= π_(2) >= ...
    keep_sorted = np.ones(sorted_pi.shape, dtype=bool)
    if top_k is not None:
        keep_sorted[..., top_k:] = False  # 𝒮 = {(1), ..., (k)}
    if top_p is not None:
        before = np.cumsum(sorted_pi, axis=-1) - sorted_pi  # π_(1) + ... + π_(j-1)
        keep_sorted &= before < top_p  # 𝒮 = {(1), ..., (j)}
    keep = np.empty_like(keep_sorted)
    np.put_along_axis(keep, order, keep_sorted, axis=-1)  # keep[order] = keep_sorted
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum(axis=-1, keepdims=True)


# --8<-- [end:truncate]


def sample_next(
    logits: ArrayLike,
    rng: np.random.Generator | None = None,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    greedy: bool = False,
) -> np.ndarray:
    r"""One token per row of ``logits``: drawn from :func:`next_token_probs`, or greedy.

    Parameters
    ----------
    logits : array_like, shape (..., V)
        The logits of the next token.
    rng : numpy.random.Generator, optional
        The source of randomness (needed unless ``greedy``); the same
        generator state gives the same tokens.
    temperature, top_k, top_p
        As in :func:`next_token_probs`.
    greedy : bool, optional
        Take the most likely token (the smallest id among ties) instead of
        drawing; then ``rng`` and the other options are not used.

    Returns
    -------
    ndarray of int, shape (...)
        The chosen ids.

    Raises
    ------
    ValueError, TypeError
        As :func:`next_token_probs`; ``TypeError`` if ``rng`` is missing or
        not a ``numpy.random.Generator`` when drawing.

    Notes
    -----
    A draw takes one uniform number :math:`r \in [0, 1)` per row from
    ``rng`` and returns the first token whose cumulative probability
    exceeds :math:`r` (inverse transform sampling).

    Examples
    --------
    >>> u = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 5.0]])
    >>> sample_next(u, greedy=True).tolist()
    [0, 2]
    >>> rng = np.random.default_rng(0)
    >>> sample_next(u, rng, top_k=1).tolist()  # top-1 sampling is greedy
    [0, 2]
    """
    if greedy:
        u = as_float_array("logits", logits)
        check_ndim("logits", u, 1, "(..., V)")
        if u.shape[-1] == 0:
            raise ValueError(f"`logits` has V=0 tokens: shape {u.shape}")
        return np.argmax(u, axis=-1)
    probs = next_token_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"`rng` must be a numpy.random.Generator to draw tokens, got "
            f"{type(rng).__name__} (or pass greedy=True)"
        )
    return _draw(probs, rng)


# --8<-- [start:draw]
def _draw(probs, rng):
    """ids = #{a : π_0 + ... + π_a <= r}, r ~ U[0, 1)."""
    r = rng.random(size=(*probs.shape[:-1], 1))  # (..., 1)
    cdf = np.cumsum(probs, axis=-1)  # π_0, π_0 + π_1, ..., 1
    ids = (cdf <= r).sum(axis=-1)  # #{a : cdf_a <= r}
    last = probs.shape[-1] - 1 - np.argmax(probs[..., ::-1] > 0, axis=-1)
    return np.minimum(ids, last)


# --8<-- [end:draw]


def generate(
    model: LanguageModel,
    prompt: str | Sequence[str],
    max_new_tokens: int,
    *,
    rng: np.random.Generator | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    greedy: bool = False,
    stop: str = "",
    use_cache: bool = True,
) -> str | list[str]:
    r"""Continue ``prompt`` one token at a time, with a KV cache per layer.

    Parameters
    ----------
    model : LanguageModel
        The model (e.g. :func:`~attention_docs.language_model.load_pretrained`).
    prompt : str or sequence of str
        One prompt, or a batch of prompts of any lengths (each at least one
        character). A batch is padded on the left with ``PAD``, which no
        query attends to, and every sequence's positions start at its own
        first character: with ``greedy``, each continuation equals the one
        generated for that prompt alone (a draw takes one random number per
        sequence and step, so drawn continuations depend on the batch).
    max_new_tokens : int
        Tokens to generate at most. The model reads the prompt and every new
        token but the last, so ``len(prompt) + max_new_tokens - 1`` must not
        exceed the model's ``context``.
    rng, temperature, top_k, top_p, greedy
        How each token is chosen, as in :func:`sample_next`.
    stop : str, optional
        Characters that end a continuation: a sequence stops after it
        produces one of them (kept in the text). Default: none.
    use_cache : bool, optional
        Keep every layer's keys and values (default). With False the whole
        sequence is run through the model again at each step: the same
        tokens, about ``n`` times the work per token.

    Returns
    -------
    str or list of str
        The continuation (without the prompt); a list for a batch.

    Raises
    ------
    ValueError
        If a prompt is empty, the lengths exceed ``context``, or an option
        is out of range (as :func:`next_token_probs`); if ``model`` carries
        other RoPE angles or another scale (``model.theta``,
        ``model.scale``: a fine-tuned model of
        :func:`~attention_docs.language_model.load_pretrained`), which the
        cached steps do not apply.
    TypeError
        If ``model`` is not a :class:`LanguageModel`, a prompt not a string,
        or ``rng`` is missing when drawing.

    Notes
    -----
    Memory: the caches, :math:`2 L\, b\, n\, d_\text{model}` floats for ``b``
    sequences of ``n`` tokens (see :func:`~attention_docs.kvcache.kv_cache_bytes`),
    and one row of logits per sequence. The prefill computes the prompt's
    rows all at once with the causal mask; each later step costs one row
    per layer, attending to the ``n`` cached keys.

    Examples
    --------
    >>> from attention_docs.language_model import load_pretrained
    >>> model = load_pretrained("ja")
    >>> text = generate(model, "注意", 8, greedy=True)
    >>> len(text)
    8
    >>> text == generate(model, "注意", 8, greedy=True, use_cache=False)
    True
    """
    if not isinstance(model, LanguageModel):
        raise TypeError(f"`model` must be a LanguageModel, got {type(model).__name__}")
    if model.theta is not None or model.scale is not None:
        raise ValueError(
            "`model` was trained with other RoPE angles (`model.theta`) or "
            "another `model.scale`; generate applies the trained ones only"
        )
    single = isinstance(prompt, str)
    prompts = [prompt] if single else list(prompt)
    if not prompts:
        raise ValueError("`prompt` is an empty list: give at least one prompt")
    for text in prompts:
        if not isinstance(text, str):
            raise TypeError(
                f"`prompt` must be a string or strings, got {type(text).__name__}"
            )
        if not text:
            raise ValueError(
                "`prompt` holds an empty string: a prompt needs one character"
            )
    max_new_tokens = check_positive_int("max_new_tokens", max_new_tokens)
    if not isinstance(stop, str):
        raise TypeError(
            f"`stop` must be a string of characters, got {type(stop).__name__}"
        )
    config = model.config
    longest = max(len(text) for text in prompts)
    if longest + max_new_tokens - 1 > config.context:  # the last token is not read
        raise ValueError(
            f"the longest prompt ({longest} tokens) and `max_new_tokens`="
            f"{max_new_tokens} make the model read {longest + max_new_tokens - 1} "
            f"tokens (all but the last new one), which exceeds the model's "
            f"context of {config.context}"
        )
    options = {
        "temperature": temperature,
        "top_k": top_k,
        "top_p": top_p,
        "greedy": greedy,
    }
    next_token_probs(np.zeros(2), temperature=temperature, top_k=top_k, top_p=top_p)
    if not greedy and not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"`rng` must be a numpy.random.Generator to draw tokens, got "
            f"{type(rng).__name__} (or pass greedy=True)"
        )
    b = len(prompts)
    encoded = [model.tokenizer.encode(text) for text in prompts]
    pads = np.array([longest - len(ids) for ids in encoded])
    ids = np.full((b, longest), PAD, dtype=np.intp)
    for row, seq in enumerate(encoded):
        ids[row, pads[row] :] = seq  # left padding
    stop_ids = {model.tokenizer.encode(char)[0] for char in stop}
    done = np.zeros(b, dtype=bool)
    out: list[list[int]] = [[] for _ in range(b)]
    step = (
        _cached_steps(model, ids, pads)
        if use_cache
        else _uncached_steps(model, ids, pads)
    )
    logits = next(step)
    for step_number in range(1, max_new_tokens + 1):
        # PAD (id 0) is never a prediction: sample among ids 1, ..., V - 1
        chosen = sample_next(logits[:, PAD + 1 :], rng, **options) + PAD + 1  # (b,)
        for row in range(b):
            if not done[row]:
                out[row].append(int(chosen[row]))
                done[row] = int(chosen[row]) in stop_ids
        if done.all() or step_number == max_new_tokens:
            break  # no row for a token that nothing follows
        logits = step.send(chosen)
    texts = [model.tokenizer.decode(np.array(seq, dtype=np.intp)) for seq in out]
    return texts[0] if single else texts


# --8<-- [start:cached]
def _masks(valid, t):
    """causal_mask(t, n) & valid: (b, 1, t, n)."""
    n = valid.shape[1]
    return causal_mask(t, n)[None, None] & valid[:, None, None, :]


def _cached_steps(model, ids, pads):
    """u_n, u_(n+1), u_(n+2), ...: (b, |V|)."""
    config, params = model.config, model.params
    b, n = ids.shape
    caches = [
        KVCache(config.d_k, batch_shape=(b, config.n_heads), capacity=config.context)
        for _ in range(config.n_layers)
    ]
    valid = np.arange(n)[None, :] >= pads[:, None]  # valid[s, j] = j >= pads[s]
    positions = (np.arange(n) - pads[:, None])[:, None, :]  # (b, 1, n)
    logits, _ = decoder_forward(
        params, config, ids, positions, _masks(valid, n), caches
    )
    while True:  # t = 1: q (b, h, 1, d_k), K (b, h, n_cached, d_k)
        new = yield logits[:, -1]  # (b, |V|)
        positions = positions[..., -1:] + 1  # (b, 1, 1)
        valid = np.concatenate([valid, np.ones((b, 1), dtype=bool)], axis=1)
        logits, _ = decoder_forward(
            params, config, new[:, None], positions, _masks(valid, 1), caches
        )


# --8<-- [end:cached]


def _uncached_steps(model, ids, pads):
    """The whole sequence through the model again at every step."""
    config, params = model.config, model.params
    while True:
        n = ids.shape[1]
        valid = np.arange(n)[None, :] >= pads[:, None]  # (b, n): not padding
        positions = (np.arange(n) - pads[:, None])[:, None, :]
        logits, _ = decoder_forward(params, config, ids, positions, _masks(valid, n))
        new = yield logits[:, -1]
        ids = np.concatenate([ids, new[:, None].astype(np.intp)], axis=1)
