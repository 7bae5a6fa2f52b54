"""Floating-point error handling, NumPy's way: ``errstate``, ``seterr``, ``geterr``,
``seterrcall``, ``geterrcall``.

A module with no imports from strided, so that the kernels (``_cpu/binary.pyx``,
``_cpu/unary.pyx``, the CUDA host code) can report to it without importing upwards.

Note [Floating-point errors]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy sorts what can go wrong in arithmetic into four kinds: ``divide`` (1/0 of a finite
number, log(0)), ``over`` (a result too large: 1e308 * 10), ``under`` (too small to be normal)
and ``invalid`` (no meaningful result: 0/0, sqrt(-1), inf - inf). For each kind a mode says what
happens: ``'ignore'``, ``'warn'`` (a RuntimeWarning), ``'raise'`` (FloatingPointError),
``'call'`` (the function given to ``seterrcall`` is called with the kind's text and the flag
bits), ``'print'`` (a line on stderr) or ``'log'`` (a line written to the ``seterrcall``
object's ``write``). The defaults are NumPy's: warn on divide, over and invalid, ignore under.

The modes live in a ``contextvars.ContextVar``, as NumPy's do, so ``errstate`` is safe across
threads and asyncio tasks and restores the previous modes on leaving its block, exceptions
included. strided's modes are strided's own: ``numpy.errstate`` does not change them (NumPy's
own functions called on tensors run strided's kernels, Note [NumPy first]).

How the kernels find out. The C library keeps sticky floating-point status flags (``fenv.h``)
that every IEEE operation sets as a side effect: ``1.0 / 0.0`` sets FE_DIVBYZERO, ``0.0 / 0.0``
FE_INVALID. A checked op clears them, runs its loop, and tests them (a few nanoseconds); only
when one is set does it call ``report_fp`` here, which reads the modes: so the hot path never
touches Python, and an op whose inputs are ordinary pays only the clear and the test. Threads
keep their own flags; the iterator's parallel loop ORs every chunk's flags back into the
calling thread (``plan_run`` in ``_iter.pyx``), so a 1/0 found by any thread is reported.

Which ops are checked. NumPy checks the flags after every ufunc. strided checks them for real
floats (float32, float64) after the ops where a user meets these errors and where the flags
are trustworthy: ``divide``, ``floor_divide``, ``remainder``, ``pow``, ``reciprocal``,
``sqrt``, the logarithms and the inverse trigonometric and hyperbolic functions whose domain is
bounded. Not checked: ``add``/``subtract``/``multiply`` overflow (rare in practice, and they are
the hottest ops), ``exp``'s overflow (strided's vectorised ``exp`` computes with integer tricks
whose flags would not match NumPy's), comparisons (an ordered comparison with a NaN sets
FE_INVALID on x86 where NumPy is silent), complex dtypes, and the GPU (which has no status
flags). These give IEEE's answers (inf, nan) silently, as under ``errstate(all='ignore')``.

Integers have no flags: an integer division by zero is found by the kernel itself (Note
[Integer division by zero] in _cpu/scalar_math.h) and reported here as a ``divide`` error, as
NumPy does (a warning by default, FloatingPointError under ``errstate(divide='raise')``). On a
GPU the kernel's flag is read when the host next waits for the device (Note [Flags from the GPU]
in cuda/_elementwise.py), so the mode in force at that wait decides, not the one at the launch.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import warnings

__all__ = ["errstate", "geterr", "geterrcall", "report", "report_fp", "seterr", "seterrcall"]

KINDS = ("divide", "over", "under", "invalid")
MODES = ("ignore", "warn", "raise", "call", "print", "log")
# NumPy's flag bits (UFUNC_FPE_*), what a 'call' callback receives; the kernels use them too.
FLAG_BITS = {"divide": 1, "over": 2, "under": 4, "invalid": 8}
_TEXT = {
    "divide": "divide by zero",
    "over": "overflow",
    "under": "underflow",
    "invalid": "invalid value",
}
_DEFAULT = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
# kernels' names that NumPy spells otherwise, so that messages (and warning filters) match NumPy's
_NUMPY_NAMES = {
    "pow": "power",
    "asin": "arcsin",
    "acos": "arccos",
    "acosh": "arccosh",
    "atanh": "arctanh",
}

# (modes dict, errcall): one value so that errstate sets and restores both at once
_state = contextvars.ContextVar("strided_errstate", default=(_DEFAULT, None))


def _check_mode(key, mode):
    if mode not in MODES:
        raise ValueError(f"errstate: {key}={mode!r} is not a mode; use one of {', '.join(MODES)}")


def _merged(all=None, divide=None, over=None, under=None, invalid=None):
    """The current modes with the given ones changed (``all`` first, then the named kinds)."""
    modes = dict(_state.get()[0])
    if all is not None:
        _check_mode("all", all)
        modes = dict.fromkeys(KINDS, all)
    for key, mode in zip(KINDS, (divide, over, under, invalid), strict=True):
        if mode is not None:
            _check_mode(key, mode)
            modes[key] = mode
    return modes


def seterr(all=None, divide=None, over=None, under=None, invalid=None):
    """Set how floating-point errors are handled; return the old settings.

    Parameters
    ----------
    all, divide, over, under, invalid : {'ignore', 'warn', 'raise', 'call', 'print', 'log'}
        The mode for every kind (``all``), or for one kind; ``None`` leaves it as it is. See
        Note [Floating-point errors].

    Returns
    -------
    dict
        The settings before the call, for a later ``seterr(**old)``.

    Examples
    --------
    >>> import strided
    >>> old = strided.seterr(divide="ignore")
    >>> strided.asarray([1.0]) / 0
    tensor([inf])
    >>> _ = strided.seterr(**old)
    """
    old = geterr()
    modes = _merged(all, divide, over, under, invalid)
    _state.set((modes, _state.get()[1]))
    return old


def geterr():
    """How floating-point errors are handled now: a dict of kind -> mode.

    Examples
    --------
    >>> import strided
    >>> strided.geterr()
    {'divide': 'warn', 'over': 'warn', 'under': 'ignore', 'invalid': 'warn'}
    """
    return dict(_state.get()[0])


def _check_call(func):
    if func is not None and not callable(func) and not callable(getattr(func, "write", None)):
        raise ValueError(
            "seterrcall: the callback must be callable (for 'call'), have a write method (for "
            f"'log'), or be None; got a {type(func).__name__}"
        )


def seterrcall(func):
    """Set the function (mode ``'call'``) or the object with ``write`` (mode ``'log'``) that
    receives floating-point errors; return the old one.

    ``func(text, flags)`` gets NumPy's text ("divide by zero") and flag bits (divide 1, over 2,
    under 4, invalid 8).

    Examples
    --------
    >>> import strided
    >>> seen = []
    >>> old = strided.seterrcall(lambda text, flags: seen.append(text))
    >>> with strided.errstate(divide="call"):
    ...     _ = strided.asarray([1.0]) / 0
    >>> seen
    ['divide by zero']
    >>> _ = strided.seterrcall(old)
    """
    _check_call(func)
    modes, old = _state.get()
    _state.set((modes, func))
    return old


def geterrcall():
    """The current ``seterrcall`` callback, or None.

    Examples
    --------
    >>> import strided
    >>> strided.geterrcall() is None
    True
    """
    return _state.get()[1]


_UNSET = object()


class errstate(contextlib.ContextDecorator):
    """Floating-point error handling for the length of a ``with`` block (or a decorated
    function), restored afterwards even if the block raises.

    Parameters
    ----------
    call : callable or object with ``write``, optional
        The ``seterrcall`` callback inside the block.
    all, divide, over, under, invalid : str, optional
        The modes inside the block, as ``seterr`` takes them.

    Examples
    --------
    >>> import strided
    >>> with strided.errstate(divide="raise"):
    ...     strided.asarray([1.0]) / 0
    Traceback (most recent call last):
    ...
    FloatingPointError: divide by zero encountered in divide
    >>> with strided.errstate(all="ignore"):
    ...     strided.asarray([0.0, 1.0]) / 0
    tensor([nan, inf])
    """

    def __init__(self, *, call=_UNSET, all=None, divide=None, over=None, under=None, invalid=None):
        self._modes = dict(all=all, divide=divide, over=over, under=under, invalid=invalid)
        for key, mode in self._modes.items():
            if mode is not None:
                _check_mode(key, mode)
        if call is not _UNSET:
            _check_call(call)
        self._call = call
        self._tokens = []

    def __enter__(self):
        modes = _merged(**self._modes)
        call = _state.get()[1] if self._call is _UNSET else self._call
        self._tokens.append(_state.set((modes, call)))
        return self

    def __exit__(self, *exc):
        _state.reset(self._tokens.pop())

    def __repr__(self):
        given = {k: v for k, v in self._modes.items() if v is not None}
        if self._call is not _UNSET:
            given["call"] = self._call
        return f"errstate({', '.join(f'{k}={v!r}' for k, v in given.items())})"


def _user_stacklevel():
    """The ``stacklevel`` (counted from report's caller) of the first frame outside strided, so
    that a warning points at the user's line however many strided layers lie between."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(2), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def report(kind, op, message=None, stacklevel=None):
    """Handle one floating-point error of ``kind`` found by ``op``, as the modes say.

    ``message`` replaces NumPy's text ("divide by zero encountered in divide") in the warning
    and the exception (the integer kernels say more). ``stacklevel`` counts from the caller; by
    default the warning points at the first line outside strided. Returns nothing or raises.
    """
    modes, call = _state.get()
    mode = modes[kind]
    if mode == "ignore":
        return
    text = message or f"{_TEXT[kind]} encountered in {_NUMPY_NAMES.get(op, op)}"
    if mode == "warn":
        if stacklevel is None:
            stacklevel = _user_stacklevel()
        warnings.warn(text, RuntimeWarning, stacklevel=stacklevel + 1)
    elif mode == "raise":
        raise FloatingPointError(text)
    elif mode == "print":
        print(f"Warning: {text}", file=sys.stderr)
    elif mode == "call":
        if call is None or not callable(call):
            raise ValueError(
                f"errstate: {kind}='call' but no callable was given (use seterrcall or "
                "errstate(call=...))"
            )
        call(_TEXT[kind], FLAG_BITS[kind])
    else:  # log
        write = getattr(call, "write", None)
        if write is None:
            raise ValueError(
                f"errstate: {kind}='log' but no object with a write method was given (use "
                "seterrcall or errstate(call=...))"
            )
        write(f"Warning: {text}\n")


def report_fp(op, bits):
    """Handle the floating-point status ``bits`` (FLAG_BITS) that ``op``'s loop raised, each
    kind in NumPy's order (divide, over, under, invalid)."""
    for kind in KINDS:
        if bits & FLAG_BITS[kind]:
            report(kind, op)
