"""Input checks shared by every module of :mod:`attention_docs` (private).

Every public function validates its arguments with these helpers, so that the
whole package speaks with one voice (the book's page "The package" (package.md,
section "Errors")):

- a shape that does not fit raises :class:`ValueError` whose message names the
  argument(s) the caller passed and both shapes;
- non-finite input (NaN, +inf, -inf) raises :class:`ValueError`;
- a product that overflows (scores, projections, outputs) raises
  :class:`ValueError` instead of returning ``inf``, without a RuntimeWarning;
- a mask that is not boolean raises :class:`TypeError`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.floating[Any]]
BoolArray = NDArray[np.bool_]


def as_array(name: str, x: ArrayLike) -> NDArray[Any]:
    """``np.asarray(x)``, with errors that name the argument.

    Refuses a numpy masked array (:func:`reject_masked_array`), nested
    sequences of different lengths (numpy's own message names no argument),
    and Python integers beyond the range of int64 and uint64, which numpy
    would keep as Python objects.

    Raises
    ------
    TypeError
        If ``x`` is a numpy masked array.
    ValueError
        If ``x`` is ragged (nested sequences of different lengths), or holds
        an integer of 2**64 or more in magnitude (more precisely: one that
        neither int64 nor uint64 holds).

    Examples
    --------
    >>> as_array("q", [[1.0, 2.0], [3.0]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `q` is ragged: nested sequences of different lengths ...
    >>> as_array("lengths", [2**64])
    Traceback (most recent call last):
    ...
    ValueError: `lengths` holds an integer too large for int64 and uint64: an integer of 65 bits
    """  # noqa: E501
    reject_masked_array(name, x)
    try:
        array = np.asarray(x)
    except ValueError as error:  # "setting an array element with a sequence"
        raise ValueError(
            f"`{name}` is ragged: nested sequences of different lengths do not "
            f"make an array ({error})"
        ) from None
    if array.dtype == object:
        huge = [
            item
            for item in array.ravel()
            if isinstance(item, numbers.Integral)
            and not isinstance(item, bool)
            and not -(2**63) <= item < 2**64
        ]
        if huge:
            raise ValueError(
                f"`{name}` holds an integer too large for int64 and uint64: "
                f"{shown(huge[0]) if abs(huge[0]) >= 2**64 else repr(huge[0])}"
            )
    return array


def as_float_array(name: str, x: ArrayLike) -> FloatArray:
    """Convert ``x`` to a finite floating-point array in native byte order.

    Parameters
    ----------
    name : str
        Name of the argument, used in error messages (``"q"`` gives "`q` ...").
    x : array_like
        Real numbers of any shape.

    Returns
    -------
    ndarray
        ``x`` as float64 (from bool, integer, float64 or longer floats) or
        float32 (from float16 or float32), in the machine's native byte order
        (a big-endian ``'>f8'`` array is converted). No copy is made when
        ``x`` already is a native float32 or float64 array.

    Raises
    ------
    TypeError
        If ``x`` does not hold real numbers (complex, strings, objects), or is
        a numpy masked array (see :func:`reject_masked_array`).
    ValueError
        If ``x`` contains NaN or infinite values, or finite values of a longer
        float type (``np.longdouble``) beyond the range of float64; if ``x``
        is ragged or holds a Python integer too large for int64 and uint64
        (see :func:`as_array`).

    Examples
    --------
    >>> as_float_array("q", [1, 2]).dtype
    dtype('float64')
    >>> as_float_array("q", np.ones(2, dtype=np.float16)).dtype
    dtype('float32')
    >>> as_float_array("q", np.ones(2, dtype=">f8")).dtype.isnative
    True
    >>> as_float_array("q", [1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: `q` contains NaN or infinite values
    """
    array = as_array(name, x)
    kind = array.dtype.kind
    if kind in "biu":
        return array.astype(np.float64)  # integers are always finite
    if kind != "f":
        raise TypeError(f"`{name}` must hold real numbers, got dtype {array.dtype}")
    if not np.all(np.isfinite(array)):  # checked in the caller's own dtype
        raise ValueError(f"`{name}` contains NaN or infinite values")
    if array.dtype.itemsize < 4:
        return array.astype(np.float32)  # float16 -> float32: exact
    if array.dtype.itemsize > 8:  # np.longdouble: may exceed float64's range
        with np.errstate(over="ignore", under="ignore"):
            converted = array.astype(np.float64)
        if not np.all(np.isfinite(converted)):
            raise ValueError(
                f"`{name}` has dtype {array.dtype} and values beyond the range of "
                f"float64, in which the package computes"
            )
        return converted
    if not array.dtype.isnative:  # '>f8' on a little-endian machine: same values
        return array.astype(array.dtype.newbyteorder("="))
    return array


def as_integer_array(name: str, x: ArrayLike) -> NDArray[np.integer[Any]]:
    """``x`` as an integer array (an empty ``[]`` counts as integers).

    Raises
    ------
    TypeError
        If ``x`` does not hold integers (floats and bools are refused) or is
        a numpy masked array.
    ValueError
        If ``x`` is ragged or holds an integer too large for int64 and uint64
        (see :func:`as_array`).

    Examples
    --------
    >>> as_integer_array("tokens", [[1, 2]]).dtype.kind
    'i'
    >>> as_integer_array("tokens", [0.5])
    Traceback (most recent call last):
    ...
    TypeError: `tokens` must hold integers, got dtype float64
    """
    array = as_array(name, x)
    if array.size == 0 and array.dtype.kind == "f":  # np.asarray([]) is float64
        array = array.astype(np.intp)
    if array.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must hold integers, got dtype {array.dtype}")
    return array


@contextmanager
def rng_restored_on_error(rng: object) -> Iterator[None]:
    """Put a Generator's state back if the block raises (even a MemoryError).

    A constructor that draws several arrays from the caller's ``rng`` and
    fails part way would otherwise leave it advanced: a call that raises
    changes nothing, the caller's generator included.

    >>> rng = np.random.default_rng(0)
    >>> try:
    ...     with rng_restored_on_error(rng):
    ...         _ = rng.standard_normal(3)
    ...         raise MemoryError
    ... except MemoryError:
    ...     pass
    >>> bool(rng.standard_normal() == np.random.default_rng(0).standard_normal())
    True
    """
    if not isinstance(rng, np.random.Generator):  # the caller's check words it
        yield
        return
    state = rng.bit_generator.state
    try:
        yield
    except BaseException:
        rng.bit_generator.state = state
        raise


def reject_masked_array(name: str, x: object) -> None:
    """Raise TypeError if ``x`` is a numpy masked array.

    ``np.asarray`` drops the mask of a :class:`numpy.ma.MaskedArray` and keeps
    its hidden data, so a masked array would be computed with values its owner
    meant to hide, and a masked-array ``mask`` would lose its own mask. The
    package refuses them rather than guess: pass the data with
    ``np.ma.getdata`` (or ``.filled(...)``) and say which keys to hide with a
    boolean ``mask``.

    >>> v = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    >>> reject_masked_array("v", v)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: `v` is a numpy masked array (its hidden entries would be used): ...
    """
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"`{name}` is a numpy masked array (its hidden entries would be "
            "used): pass a plain array, and hide keys with a boolean `mask`"
        )


def check_ndim(name: str, x: NDArray[Any], min_ndim: int, layout: str) -> None:
    """Raise ValueError unless ``x.ndim >= min_ndim``.

    ``layout`` is the expected shape written out, e.g. ``"(..., n_q, d_k)"``.

    >>> check_ndim("q", np.ones(4), 2, "(..., n_q, d_k)")
    Traceback (most recent call last):
    ...
    ValueError: `q` must have shape (..., n_q, d_k), got shape (4,)
    """
    if x.ndim < min_ndim:
        raise ValueError(f"`{name}` must have shape {layout}, got shape {x.shape}")


def check_exact_ndim(name: str, x: NDArray[Any], ndim: int, layout: str) -> None:
    """Raise ValueError unless ``x.ndim == ndim``; ``layout`` as in :func:`check_ndim`.

    >>> check_exact_ndim("a", np.ones(3), 2, "(m, k)")
    Traceback (most recent call last):
    ...
    ValueError: `a` must have shape (m, k), got shape (3,)
    """
    if x.ndim != ndim:
        raise ValueError(f"`{name}` must have shape {layout}, got shape {x.shape}")


def as_projection(
    name: str, w: ArrayLike, layout: str, x_name: str, x: NDArray[Any]
) -> FloatArray:
    """Convert a projection matrix ``w`` that multiplies the rows of ``x``.

    ``w`` must be finite, 2-D (``layout``, e.g. ``"(d_model, d_k)"``) and have
    as many rows as ``x`` has columns (``d_model``).

    >>> as_projection("w_q", np.ones((3, 2)), "(d_model, d_k)", "x", np.ones((5, 4)))
    Traceback (most recent call last):
    ...
    ValueError: `x` has d_model=4 but `w_q` has d_model=3: shapes (5, 4) and (3, 2)
    """
    w = as_float_array(name, w)
    check_exact_ndim(name, w, 2, layout)
    check_same_size("d_model", (x_name, x, -1), (name, w, 0))
    return w


def check_same_size(
    dim: str,
    first: tuple[str, NDArray[Any], int],
    second: tuple[str, NDArray[Any], int],
) -> None:
    """Raise ValueError unless two arrays agree on one axis each.

    ``first`` and ``second`` are ``(name, array, axis)``; ``dim`` names the size
    (``"d_k"``, ``"n_k"``, ...). The message lists both shapes in argument order.

    >>> q, k = np.ones((2, 4)), np.ones((5, 3))
    >>> check_same_size("d_k", ("q", q, -1), ("k", k, -1))
    Traceback (most recent call last):
    ...
    ValueError: `q` has d_k=4 but `k` has d_k=3: shapes (2, 4) and (5, 3)
    """
    name_a, a, axis_a = first
    name_b, b, axis_b = second
    if a.shape[axis_a] != b.shape[axis_b]:
        raise ValueError(
            f"`{name_a}` has {dim}={a.shape[axis_a]} but `{name_b}` has "
            f"{dim}={b.shape[axis_b]}: shapes {a.shape} and {b.shape}"
        )


def check_finite_product(
    product: NDArray[Any],
    first: tuple[str, NDArray[Any]],
    second: tuple[str, NDArray[Any]],
) -> None:
    """Raise ValueError if the product of two finite arrays overflowed.

    ``first`` and ``second`` are ``(name, array)``, the factors as the caller
    named them; compute ``product`` inside ``np.errstate(over="ignore",
    invalid="ignore")`` so that an overflow gives this error, not a warning.

    >>> x, w = np.full((2, 3), 1e200), np.full((3, 1), 1e200)
    >>> with np.errstate(over="ignore", invalid="ignore"):
    ...     q = x @ w
    >>> check_finite_product(q, ("x", x), ("w_q", w))
    Traceback (most recent call last):
    ...
    ValueError: `x` @ `w_q` overflows float64: shapes (2, 3) and (3, 1)
    """
    if not np.all(np.isfinite(product)):
        (name_a, a), (name_b, b) = first, second
        raise ValueError(
            f"`{name_a}` @ `{name_b}` overflows {product.dtype}: "
            f"shapes {a.shape} and {b.shape}"
        )


def sum_to_shape(
    x: FloatArray, shape: tuple[int, ...], name: str, shapes: str
) -> FloatArray:
    """Sum ``x`` over the dimensions that broadcasting added to ``shape``.

    The gradient of an argument that was broadcast is the sum of the
    gradients of all its copies. Where that sum overflows on the way
    (copies near the largest float, of both signs), the terms of each sum
    are divided by the power of two of their largest magnitude, summed and
    multiplied back: ValueError naming the argument ``name`` only when the
    sum itself does not fit. ``shapes`` lists the caller's shapes for the
    message.
    """
    extra = x.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i
        for i, size in enumerate(shape)
        if size == 1 and x.shape[extra + i] != 1
    )
    if not axes:
        return x
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        total = x.sum(axis=axes, keepdims=True)  # the sum over the copies
        if not np.all(np.isfinite(total)):  # a partial sum overflowed
            top = np.max(np.abs(x), axis=axes, keepdims=True, initial=0.0)
            e = np.frexp(top)[1]  # top = f * 2**e, f in [0.5, 1): |x / 2**e| < 1
            rescaled = np.ldexp(np.ldexp(x, -e).sum(axis=axes, keepdims=True), e)
            total = np.where(np.isfinite(total), total, rescaled)
    if not np.all(np.isfinite(total)):
        raise ValueError(
            f"the gradient with respect to `{name}` overflows {total.dtype} when "
            f"summed over the batch dimensions `{name}` was broadcast along: "
            f"shapes {shapes}"
        )
    return total.reshape(shape)


def broadcast_batch(*named: tuple[str, NDArray[Any]]) -> tuple[int, ...]:
    """Broadcast the leading (batch) dimensions ``x.shape[:-2]`` of named arrays.

    Returns the broadcast batch shape; raises ValueError naming every argument
    and its full shape when they do not broadcast.

    >>> broadcast_batch(("q", np.ones((2, 1, 3, 4))), ("k", np.ones((5, 6, 4))))
    (2, 5)
    >>> q, k = np.ones((2, 3, 4)), np.ones((5, 6, 4))
    >>> broadcast_batch(("q", q), ("k", k))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: leading (batch) dimensions of `q`, `k` do not broadcast: shapes ...
    >>> try:
    ...     broadcast_batch(("q", q), ("k", k))
    ... except ValueError as error:
    ...     print(str(error).split(": ")[1])
    shapes (2, 3, 4) and (5, 6, 4)
    """
    try:
        return np.broadcast_shapes(*(x.shape[:-2] for _, x in named))
    except ValueError:
        names = ", ".join(f"`{name}`" for name, _ in named)
        shapes = " and ".join(str(x.shape) for _, x in named)
        raise ValueError(
            f"leading (batch) dimensions of {names} do not broadcast: shapes {shapes}"
        ) from None


def check_bool(name: str, mask: ArrayLike) -> BoolArray:
    """Return ``mask`` as an array, raising TypeError unless its dtype is bool.

    >>> check_bool("mask", [[1, 0]])
    Traceback (most recent call last):
    ...
    TypeError: mask must be boolean (True = may attend), got dtype int64
    """
    array = as_array(name, mask)
    if array.dtype != np.bool_:
        raise TypeError(
            f"{name} must be boolean (True = may attend), got dtype {array.dtype}"
        )
    return array


def check_mask(
    mask: ArrayLike,
    expected_shape_for_broadcast: tuple[int, ...],
    name: str = "mask",
) -> BoolArray:
    """Check that ``mask`` is boolean and broadcasts to the scores' shape.

    Parameters
    ----------
    mask : array_like of bool
        True where query ``i`` may attend to key ``j``.
    expected_shape_for_broadcast : tuple of int
        The shape ``(..., n_q, n_k)`` of the scores the mask is applied to.
    name : str, optional
        Name used in error messages.

    Returns
    -------
    ndarray of bool
        ``mask`` as an array (not yet broadcast).

    Raises
    ------
    TypeError
        If the dtype of ``mask`` is not bool (e.g. 0/1 integers or floats).
    ValueError
        If ``mask`` does not broadcast to ``expected_shape_for_broadcast``.

    Examples
    --------
    >>> check_mask(np.ones((1, 3), dtype=bool), (2, 3)).shape
    (1, 3)
    >>> check_mask(np.ones((2, 2), dtype=bool), (2, 3))
    Traceback (most recent call last):
    ...
    ValueError: mask of shape (2, 2) does not broadcast to (..., n_q, n_k) = (2, 3)
    """
    array = check_bool(name, mask)
    try:
        shape = np.broadcast_shapes(array.shape, expected_shape_for_broadcast)
    except ValueError:
        shape = None
    if shape != tuple(expected_shape_for_broadcast):
        raise ValueError(
            f"{name} of shape {array.shape} does not broadcast to (..., n_q, n_k) = "
            f"{tuple(expected_shape_for_broadcast)}"
        )
    return array


def shown(value: object) -> str:
    """``repr(value)`` for an error message, short even for a huge integer.

    Python refuses to write an integer of more than 4300 digits as text, and
    a shorter one still makes an unreadable message: such integers are
    described by their size.

    >>> shown(3), shown(2.5), shown(-(10**400))
    ('3', '2.5', 'a negative integer of 1329 bits')
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
        if abs(number) >= 2**64:
            sign = "a negative" if number < 0 else "an"
            return f"{sign} integer of {number.bit_length()} bits"
    return repr(value)


def as_real(
    name: str, value: object, requirement: str, valid: Callable[[float], bool]
) -> float:
    """``value`` as a Python float; ValueError unless a real number ``valid`` accepts.

    ``requirement`` says what ``valid`` accepts, for the message ("a positive
    finite number"). Bools and non-numbers are refused. A real number beyond
    the range of a float (a huge Python integer, a ``Fraction``, an
    ``np.longdouble``) counts as infinite, so it is refused by a ``valid``
    that wants a finite number, never an ``OverflowError``.

    >>> as_real("eps", 10**400, "a positive finite number", math.isfinite)
    Traceback (most recent call last):
    ...
    ValueError: `eps` must be a positive finite number, got an integer of 1329 bits
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"`{name}` must be {requirement}, got {shown(value)}")
    try:
        with np.errstate(over="ignore", under="ignore"):  # np.longdouble -> float
            number = float(value)
    except OverflowError:  # an int or Fraction beyond the largest float
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number) or not valid(number):
        raise ValueError(f"`{name}` must be {requirement}, got {shown(value)}")
    return number


def positive_finite(name: str, value: object) -> float:
    """``value`` as a float; ValueError unless it is a positive finite number.

    >>> positive_finite("eps", 1e-5)
    1e-05
    >>> positive_finite("lr", 0)
    Traceback (most recent call last):
    ...
    ValueError: `lr` must be a positive finite number, got 0
    """
    return as_real(
        name, value, "a positive finite number", lambda x: math.isfinite(x) and x > 0
    )


def check_positive_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int``; ValueError unless it is an integer >= 1.

    Every such count (sizes, heads, steps) must also fit an array dimension
    (``np.intp``), so that a huge one is refused by name rather than by
    numpy's "Maximum allowed dimension exceeded".

    >>> check_positive_int("h", 0)
    Traceback (most recent call last):
    ...
    ValueError: `h` must be a positive integer, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"`{name}` must be a positive integer, got {shown(value)}")
    if value < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {shown(value)}")
    limit = int(np.iinfo(np.intp).max)
    if value > limit:
        raise ValueError(
            f"`{name}` is too large for an array dimension (at most {limit}), "
            f"got {shown(value)}"
        )
    return int(value)


def resolve_scale(scale: object, d_k: int) -> float:
    """Return the score scale: ``1 / sqrt(d_k)`` when ``scale`` is None.

    ``d_k`` must be at least 1: every caller refuses ``d_k = 0`` first, with
    the names of its own arguments. The result is a Python float, so that
    multiplying a float32 array by it keeps float32 (NEP 50).

    >>> resolve_scale(None, 4)
    0.5
    >>> resolve_scale(-1.0, 4)
    Traceback (most recent call last):
    ...
    ValueError: `scale` must be a positive finite number, got -1.0
    """
    if scale is None:
        return 1.0 / math.sqrt(d_k)
    return positive_finite("scale", scale)


def validated_qk(
    q: ArrayLike, k: ArrayLike, *, allow_no_keys: bool = False
) -> tuple[FloatArray, FloatArray]:
    """Convert and check queries ``q`` and keys ``k``; return them as float arrays.

    ``q (..., n_q, d_k)`` and ``k (..., n_k, d_k)``: at least 2 dimensions
    each, the same ``d_k > 0``, ``n_k > 0`` and batch dimensions that
    broadcast. ``allow_no_keys=True`` accepts ``n_k = 0``, for a caller
    that transforms the keys row by row and never normalises over them.

    >>> q, k = validated_qk([[1, 0]], [[0.5, 1.0], [2.0, 0.0]])
    >>> q.dtype, k.shape
    (dtype('float64'), (2, 2))
    >>> validated_qk(np.ones((2, 4)), np.ones((5, 3)))
    Traceback (most recent call last):
    ...
    ValueError: `q` has d_k=4 but `k` has d_k=3: shapes (2, 4) and (5, 3)
    """
    q = as_float_array("q", q)
    k = as_float_array("k", k)
    check_ndim("q", q, 2, "(..., n_q, d_k)")
    check_ndim("k", k, 2, "(..., n_k, d_k)")
    check_same_size("d_k", ("q", q, -1), ("k", k, -1))
    if q.shape[-1] == 0:
        raise ValueError(f"`q` and `k` have d_k=0: shapes {q.shape} and {k.shape}")
    if k.shape[-2] == 0 and not allow_no_keys:
        raise ValueError(f"`k` has n_k=0 keys: shape {k.shape}")
    broadcast_batch(("q", q), ("k", k))
    return q, k


def validated_qkv(
    q: ArrayLike, k: ArrayLike, v: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray, tuple[int, ...]]:
    """Convert and check ``q``, ``k`` and ``v``; return them and the batch shape.

    As :func:`validated_qk`, and values ``v (..., n_k, d_v)`` with as many
    rows as ``k``; the batch shape is that of all three broadcast together.

    >>> q, k, v, batch = validated_qkv(np.ones((2, 3, 4)), np.ones((5, 4)),
    ...                                np.ones((5, 6)))
    >>> batch
    (2,)
    """
    q, k = validated_qk(q, k)
    v = as_float_array("v", v)
    check_ndim("v", v, 2, "(..., n_k, d_v)")
    check_same_size("n_k", ("k", k, -2), ("v", v, -2))
    batch = broadcast_batch(("q", q), ("k", k), ("v", v))
    return q, k, v, batch
