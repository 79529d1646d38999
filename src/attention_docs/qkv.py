r"""Query, Key and Value as objects.

Attention read in object-oriented terms: a :class:`Query` (what is looked for)
compares itself with :class:`Key` objects (identifiers) and retrieves a
weighted mix of the :class:`Value` objects (the information), as on the book's
page "Attention through objects" (object-view.md, section
"Query, key and value as objects"). The classes give this reading a small
object interface, but the computation is done by the vectorised functions of
:mod:`attention_docs.attention`: the key vectors are stacked into a matrix
:math:`K` and the value vectors into :math:`V`.

.. math::

    w = \operatorname{softmax}\bigl(q K^\top / \sqrt{d_k}\bigr), \qquad
    \text{output} = \sum_j w_j \vec{v}_j = w V .

By default (``scaled=True``) the scores are divided by :math:`\sqrt{d_k}` as in
Vaswani et al., 2017, "Attention Is All You Need", arXiv:1706.03762, Section
3.2.1, Equation 1, like every other function of the package. ``scaled=False``
gives the unscaled variant :math:`\operatorname{softmax}(q K^\top)` that the
book's object-view page compares with its plain Python loops (object-view.md,
section "The unscaled variant and scaled=True").
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import ScoresOverflow, scaled_products, softmax_rows
from ._validation import (
    FloatArray,
    as_float_array,
    check_exact_ndim,
    check_same_size,
    resolve_scale,
)
from .attention import attention_kernel

__all__ = ["Key", "Query", "Value"]


class _Vector:
    """A 1-D float vector with a readable ``repr`` (base of Key, Value, Query)."""

    def __init__(self, vector: ArrayLike) -> None:
        vector = as_float_array("vector", vector)
        check_exact_ndim("vector", vector, 1, "(d,)")
        # its own copy: a later write into the caller's array changes nothing
        self.vector: FloatArray = vector.copy()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.vector.tolist()})"


class Key(_Vector):
    """A key: the identifier a query is compared with.

    Parameters
    ----------
    vector : array_like, shape (d_k,)
        The key vector :math:`\\vec{k}`; a float copy
        of it is stored in ``.vector``.

    Raises
    ------
    ValueError
        If ``vector`` is not 1-D or contains NaN or infinite values.
    TypeError
        If ``vector`` does not hold real numbers.

    Examples
    --------
    >>> Key([1, 0, 0])
    Key([1.0, 0.0, 0.0])
    """


class Value(_Vector):
    """A value: the information a query retrieves.

    Parameters
    ----------
    vector : array_like, shape (d_v,)
        The value vector :math:`\\vec{v}`; a float copy
        of it is stored in ``.vector``.

    Raises
    ------
    ValueError
        If ``vector`` is not 1-D or contains NaN or infinite values.
    TypeError
        If ``vector`` does not hold real numbers.

    Examples
    --------
    >>> Value([0.5, 0.2, 0.1]).vector.tolist()
    [0.5, 0.2, 0.1]
    """


def _stack(name: str, items: Iterable[_Vector], cls: type[_Vector]) -> FloatArray:
    """Stack the vectors of ``items`` (all ``cls``) into a matrix (n, d)."""
    items = list(items)
    if not items:
        raise ValueError(f"`{name}` is empty: need at least one {cls.__name__}")
    for i, item in enumerate(items):
        if not isinstance(item, cls):
            raise TypeError(
                f"`{name}[{i}]` must be a {cls.__name__}, got {type(item).__name__}"
            )
        first = (f"{name}[0]", items[0].vector, 0)
        check_same_size("dimension", first, (f"{name}[{i}]", item.vector, 0))
    return np.stack([item.vector for item in items])  # n vectors (d,) -> (n, d)


class Query(_Vector):
    r"""A query: compares itself with keys and retrieves a mix of values.

    Parameters
    ----------
    vector : array_like, shape (d_k,)
        The query vector :math:`\vec{q}`; a float copy
        of it is stored in ``.vector``.

    Raises
    ------
    ValueError
        If ``vector`` is not 1-D or contains NaN or infinite values.
    TypeError
        If ``vector`` does not hold real numbers.

    Notes
    -----
    The book's page "Attention through objects"
    (object-view.md, section "Query, key and value as objects"). Both methods
    stack the vectors into matrices and call the vectorised functions
    :func:`~attention_docs.attention.attention_weights` and
    :func:`~attention_docs.attention.scaled_dot_product_attention` with a single
    query row, instead of looping over the keys in Python.

    Examples
    --------
    Three unit keys, so that the unscaled scores (``scaled=False``) are the
    query's own components (0.2, 0.8, 0.1), as in the book's object-view page
    (object-view.md, section "Example: three keys and one query"):

    >>> keys = [Key(np.array([1, 0, 0])), Key(np.array([0, 1, 0])),
    ...         Key(np.array([0, 0, 1]))]
    >>> values = [Value(np.array([0.5, 0.2, 0.1])), Value(np.array([0.1, 0.7, 0.3])),
    ...           Value(np.array([0.3, 0.4, 0.6]))]
    >>> query = Query(np.array([0.2, 0.8, 0.1]))
    >>> output_vector, attention_weights = query.retrieve_values(
    ...     keys, values, scaled=False)
    >>> print("Output vector:", output_vector)
    Output vector: [0.25588256 0.4930077  0.31917147]
    >>> np.round(attention_weights, 4).tolist()
    [0.2683, 0.4889, 0.2428]
    >>> query
    Query([0.2, 0.8, 0.1])
    """

    def compute_attention_weights(
        self, keys: Iterable[Key], *, scaled: bool = True
    ) -> FloatArray:
        r"""Attention weights of this query over ``keys``.

        Parameters
        ----------
        keys : iterable of Key, length n_keys
            The keys, each of the same dimension ``d_k`` as the query.
        scaled : bool, optional
            True (default, like every other function of the package): the
            paper's :math:`\operatorname{softmax}(q K^\top / \sqrt{d_k})`.
            False: the unscaled variant
            :math:`\operatorname{softmax}(q K^\top)`, without
            :math:`1/\sqrt{d_k}`, which the book's object-view page uses to
            compare with its plain Python loops.

        Returns
        -------
        ndarray, shape (n_keys,)
            Non-negative weights summing to 1, one per key, in the order of
            ``keys``.

        Raises
        ------
        ValueError
            If ``keys`` is empty, or a key's dimension differs from the first
            key's or from the query's (the message names ``keys[i]`` and gives
            both shapes); if the scores overflow the floating-point type.
        TypeError
            If an item of ``keys`` is not a :class:`Key`.

        Notes
        -----
        .. math::

            w_j = \frac{e^{s_j}}{\sum_p e^{s_p}}, \qquad
            s_j = \vec{q} \cdot \vec{k}_j \quad
            \Bigl(\text{or } \frac{\vec{q} \cdot \vec{k}_j}{\sqrt{d_k}}
            \text{ if scaled}\Bigr).

        The unscaled variant is the one of the book's object-view page
        (object-view.md, section "The unscaled variant and scaled=True"); the
        scaled one is Vaswani et al. (2017), Section 3.2.1, Equation 1, for a
        single query. The softmax subtracts the largest score first (see
        :func:`~attention_docs.softmax.softmax`).

        Examples
        --------
        >>> keys = [Key([1.0, 0.0]), Key([0.0, 1.0])]
        >>> q = Query([np.log(3.0), 0.0])
        >>> np.round(q.compute_attention_weights(keys, scaled=False), 6).tolist()
        [0.75, 0.25]
        """
        k = _stack("keys", keys, Key)  # (n_keys, d_k)
        check_same_size("d_k", ("query", self.vector, 0), ("keys", k, 1))
        q = self.vector[np.newaxis, :]  # (d_k,) -> (1, d_k)
        scale = _scale(scaled, q.shape[-1])
        try:
            scores = scaled_products(q, k, scale)  # s = q K^T: (1, n_keys)
        except ScoresOverflow as overflow:
            raise ValueError(_overflow_message(overflow, self, k)) from None
        weights, _ = softmax_rows(scores, None)  # softmax(q K^T) -> (1, n_keys)
        return weights[0]  # (1, n_keys) -> (n_keys,)

    def retrieve_values(
        self, keys: Iterable[Key], values: Iterable[Value], *, scaled: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        r"""Weighted mix of ``values``, weighted by the attention over ``keys``.

        Parameters
        ----------
        keys : iterable of Key, length n_keys
            The keys, each of dimension ``d_k``.
        values : iterable of Value, length n_keys
            One value per key, each of dimension ``d_v``.
        scaled : bool, optional
            As in :meth:`compute_attention_weights` (default True: scores
            :math:`\vec{q} \cdot \vec{k}_j / \sqrt{d_k}`).

        Returns
        -------
        output : ndarray, shape (d_v,)
            :math:`\sum_j w_j \vec{v}_j`, a convex combination of the values.
        weights : ndarray, shape (n_keys,)
            The weights of :meth:`compute_attention_weights`.

        Raises
        ------
        ValueError
            For every reason of :meth:`compute_attention_weights`; if ``values``
            is empty, has a different length than ``keys`` (a plain ``zip`` of
            the two would silently drop the extra ones), or holds values of
            different dimensions (the message names ``values[i]`` and gives
            both shapes).
        TypeError
            If an item of ``keys`` is not a :class:`Key` or of ``values`` not a
            :class:`Value`.

        Notes
        -----
        .. math::

            \text{output} = \sum_{j=1}^{n_{keys}} w_j \, \vec{v}_j = w V .

        A convex combination of the values, as in Vaswani et al. (2017),
        Section 3.2 ("a weighted sum of the values") and the book's page
        "Attention through objects" (object-view.md).

        Examples
        --------
        >>> keys = [Key([1.0, 0.0]), Key([0.0, 1.0])]
        >>> values = [Value([4.0, 0.0]), Value([0.0, 8.0])]
        >>> out, w = Query([np.log(3.0), 0.0]).retrieve_values(
        ...     keys, values, scaled=False)
        >>> np.round(out, 6).tolist(), np.round(w, 6).tolist()
        ([3.0, 2.0], [0.75, 0.25])
        """
        k = _stack("keys", keys, Key)  # (n_keys, d_k)
        v = _stack("values", values, Value)  # (n_keys, d_v)
        check_same_size("d_k", ("query", self.vector, 0), ("keys", k, 1))
        check_same_size("n_keys", ("keys", k, 0), ("values", v, 0))
        q = self.vector[np.newaxis, :]  # (d_k,) -> (1, d_k)
        scale = _scale(scaled, q.shape[-1])
        try:  # w V: (1, n_keys) @ (n_keys, d_v) -> (1, d_v); weights (1, n_keys)
            output, weights = attention_kernel(q, k, v, scale, None)
        except ScoresOverflow as overflow:
            raise ValueError(_overflow_message(overflow, self, k)) from None
        return output[0], weights[0]  # (1, d_v) -> (d_v,), (1, n_keys) -> (n_keys,)


def _scale(scaled: bool, d_k: int) -> float:
    """1 / sqrt(d_k) if ``scaled``, else 1 (the unscaled variant)."""
    if d_k == 0:  # a query without components: no scores to scale
        raise ValueError("`query.vector` and `keys` have d_k=0 components")
    return resolve_scale(None, d_k) if scaled else 1.0


def _overflow_message(overflow: ScoresOverflow, query: Query, k: FloatArray) -> str:
    """The overflow of the scores, in the names the caller used."""
    return overflow.describe("`query.vector`", "`keys`", query.vector.shape, k.shape)
