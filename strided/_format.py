"""The text face of a tensor: ``repr``/``str``, and the print options they follow.

``format_repr`` prints what NumPy and PyTorch users expect to read. The other text face,
``explain`` (a picture of which storage cell holds which element of a view), is in
``_explain.py``.

Note [What repr prints]
~~~~~~~~~~~~~~~~~~~~~~~
The numbers come from ``numpy.array2string`` (``separator=', '``), run under strided's own print
options (Note [Print options]), so large tensors are summarised with ``...`` exactly as NumPy
does. The default line width is 80, PyTorch's, not NumPy's 75, so that the numbers and the
suffixes wrap at the same column. The suffixes follow ``torch/_tensor_str.py`` in its order and
rules:

- ``device='cuda:0'`` when the tensor is not on the CPU;
- for an empty tensor, ``size=(0, 3)`` unless it is 1-d, and ``dtype=`` unless it is the
  default float (an empty tensor has no numbers to tell an int from a float);
- otherwise ``dtype=`` unless the dtype is the default float, int64 or bool (the numbers show
  which of those it is: ``1.``, ``1``, ``True``);
- ``grad_fn=<Name>`` when the tensor was made by a recorded op, else ``requires_grad=True``
  when it is a leaf that requires grad.

A suffix that would pass the line width goes on its own line, indented under the first bracket.

Note [Print options]
~~~~~~~~~~~~~~~~~~~~
``set_printoptions``, ``get_printoptions`` and ``printoptions`` take NumPy's keys (precision,
threshold, edgeitems, linewidth, suppress, nanstr, infstr, formatter, sign, floatmode, legacy,
override_repr) with NumPy's meanings, and NumPy itself validates and merges them: strided's
``set_printoptions`` runs ``numpy.set_printoptions`` inside a ``numpy.printoptions`` block that
starts from strided's current options and keeps what NumPy made of them, so a bad value gets
NumPy's error, ``None`` leaves a key unchanged, and ``formatter``/``override_repr`` reset unless
given, exactly as in NumPy. An unknown key is a TypeError naming it (the signature is NumPy's).
The options are strided's own (as ``torch.set_printoptions`` are PyTorch's): setting NumPy's does
not change how tensors print, nor the other way round; they differ from NumPy's defaults only in
``linewidth`` (80). They live in a ``contextvars.ContextVar``, as NumPy's do, so ``printoptions``
is safe across threads and asyncio tasks, and restores the options when its block raises.
``repr`` formats under them with ``numpy.printoptions``, and ``override_repr``, when set, is
called with the tensor.
"""

import contextlib
import contextvars

import numpy as np

__all__ = [
    "array2string",
    "array_repr",
    "array_str",
    "base_repr",
    "binary_repr",
    "format_repr",
    "format_str",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]

_PREFIX = "tensor("


# ---------------------------------------------------------------------------------------------
# repr and str
# ---------------------------------------------------------------------------------------------

# NumPy's defaults but PyTorch's line width; see Note [Print options].
_DEFAULT_PRINTOPTIONS = {
    "edgeitems": 3,
    "threshold": 1000,
    "floatmode": "maxprec",
    "precision": 8,
    "suppress": False,
    "linewidth": 80,
    "nanstr": "nan",
    "infstr": "inf",
    "sign": "-",
    "formatter": None,
    "legacy": False,
    "override_repr": None,
}
_printoptions = contextvars.ContextVar("strided_printoptions", default=_DEFAULT_PRINTOPTIONS)


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    suppress=None,
    nanstr=None,
    infstr=None,
    formatter=None,
    sign=None,
    floatmode=None,
    *,
    legacy=None,
    override_repr=None,
):
    """Set how tensors print: NumPy's ``set_printoptions``, for strided's tensors.

    Every key means what it means in NumPy; ``None`` leaves a key as it is (``formatter`` and
    ``override_repr`` are reset unless given, as in NumPy). See Note [Print options].

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point (default 8).
    threshold : int, optional
        Tensors with more elements than this are summarised with ``...`` (default 1000).
    edgeitems : int, optional
        Items shown at each end of a summarised dim (default 3).
    linewidth : int, optional
        Characters per line (default 80, PyTorch's; NumPy's is 75).
    suppress : bool, optional
        Print tiny floats as 0 rather than in scientific notation.
    nanstr, infstr : str, optional
        How nan and inf are written.
    formatter : dict of callables, optional
        Per-kind formatting functions, as NumPy's.
    sign : {'-', '+', ' '}, optional
        How the sign of positive numbers is written.
    floatmode : {'fixed', 'unique', 'maxprec', 'maxprec_equal'}, optional
        How ``precision`` is applied.
    legacy : str or False, optional
        Print as an older NumPy did ('1.13', '1.21', ...).
    override_repr : callable, optional
        Called with the tensor to make its ``repr``.

    Raises
    ------
    TypeError
        For a key NumPy does not have.
    ValueError
        For a value NumPy refuses (``sign='x'``, a negative ``precision``...).

    Examples
    --------
    >>> import strided
    >>> strided.set_printoptions(precision=2, suppress=True)
    >>> strided.asarray([1 / 3, 1e-9])
    tensor([0.33, 0.  ])
    >>> strided.set_printoptions(precision=8, suppress=False)
    """
    given = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
        "suppress": suppress,
        "nanstr": nanstr,
        "infstr": infstr,
        "formatter": formatter,
        "sign": sign,
        "floatmode": floatmode,
        "legacy": legacy,
        "override_repr": override_repr,
    }
    # NumPy validates and merges, in a block that leaves NumPy's own options as they were.
    with np.printoptions(**_printoptions.get()):
        np.set_printoptions(**given)
        merged = np.get_printoptions()
    _printoptions.set(merged)


def get_printoptions():
    """The current print options, as a new dict (NumPy's keys; Note [Print options]).

    Examples
    --------
    >>> import strided
    >>> opts = strided.get_printoptions()
    >>> opts["precision"], opts["threshold"], opts["linewidth"]
    (8, 1000, 80)
    """
    return dict(_printoptions.get())


@contextlib.contextmanager
def printoptions(*args, **kwargs):
    """Print options for the length of a ``with`` block, restored after it even if it raises.

    Takes the arguments of ``set_printoptions`` and yields the options in force.

    Examples
    --------
    >>> import strided
    >>> with strided.printoptions(precision=3, sign="+"):
    ...     print(strided.asarray([3.14159, -1.0]))
    tensor([+3.142, -1.   ])
    >>> strided.get_printoptions()["precision"]
    8
    """
    token = _printoptions.set(_printoptions.get())
    try:
        set_printoptions(*args, **kwargs)
        yield get_printoptions()
    finally:
        _printoptions.reset(token)


def _default_float_name():
    """Name of the default float dtype (imported late so this module stays pure Python)."""
    from strided._dtype import get_default_dtype

    return get_default_dtype().name


def _host_array(t):
    """A NumPy array with ``t``'s values, copied to the host if ``t`` lives on a GPU."""
    # Printing must not trip over autograd: look at the values, not the graph.
    if t.requires_grad and hasattr(t, "detach"):
        t = t.detach()
    if str(t.device) != "cpu":
        t = t.cpu()
    if t.dtype.name == "bfloat16":
        # NumPy has no bfloat16 of its own to print (ml_dtypes' prints as a non-float): float32
        # holds every bfloat16 exactly, and prints the same digits
        t = t.astype("float32")
    return t.numpy()


def _add_suffixes(body, suffixes, linewidth):
    """``body`` closed with its suffixes, each wrapped to its own line if it passes the line
    width."""
    parts = [body]
    indent = len(_PREFIX)
    line_len = len(body) - body.rfind("\n") + 1
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_repr(t):
    """The ``repr`` of a tensor, as PyTorch writes it, with NumPy's number formatting.

    See Note [What repr prints] for the rules of the suffixes.

    Parameters
    ----------
    t : Tensor
        Any tensor, on any device; a GPU tensor is copied to the host to be printed.

    Returns
    -------
    str
        ``tensor(<numbers>[, device=...][, size=...][, dtype=...][, grad_fn=...])``.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape(2, 3)
    >>> print(format_repr(x))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> print(format_repr(strided.ones(2, dtype=strided.float32)))
    tensor([1., 1.], dtype=strided.float32)
    >>> print(format_repr(strided.zeros((0, 3))))
    tensor([], size=(0, 3))
    >>> print(format_repr(strided.asarray(3.0)))
    tensor(3.)
    """
    opts = _printoptions.get()
    if opts["override_repr"] is not None:
        return opts["override_repr"](t)
    suffixes = []
    device = str(t.device)
    if device != "cpu":
        suffixes.append(f"device='{device}'")
    dtype_name = t.dtype.name
    dtype_suffix = f"dtype=strided.{dtype_name}"
    default_float = _default_float_name()
    if t.numel() == 0:
        body = _PREFIX + "[]"
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if dtype_name != default_float:
            suffixes.append(dtype_suffix)
    else:
        with np.printoptions(**opts):  # Note [Print options]
            numbers = np.array2string(_host_array(t), separator=", ", prefix=_PREFIX)
        body = _PREFIX + numbers
        if dtype_name not in (default_float, "int64", "bool"):
            suffixes.append(dtype_suffix)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(body, suffixes, opts["linewidth"])


def format_str(t):
    """The ``str`` of a tensor: the same text as its ``repr``, as in PyTorch.

    Parameters
    ----------
    t : Tensor
        Any tensor.

    Returns
    -------
    str
        ``format_repr(t)``.

    Examples
    --------
    >>> import strided
    >>> print(format_str(strided.arange(3)))
    tensor([0, 1, 2])
    """
    return format_repr(t)


# ---------------------------------------------------------------------------------------------
# NumPy's printing functions
# ---------------------------------------------------------------------------------------------

# NumPy's argument names -> strided's print options
_NUMPY_OPTION = {"max_line_width": "linewidth", "precision": "precision",
                 "suppress_small": "suppress"}  # fmt: skip


def _given(**given):
    """NumPy's print arguments that were given, as strided's print options."""
    return {_NUMPY_OPTION[k]: v for k, v in given.items() if v is not None}


def _options(**given):
    """strided's print options (NumPy's keywords) with NumPy's arguments that were given laid
    over them."""
    opts = dict(_printoptions.get())
    opts.pop("override_repr")
    opts.update(_given(**given))
    return opts


def array2string(a, max_line_width=None, precision=None, suppress_small=None, separator=" ",
                 prefix="", **kwargs):  # fmt: skip
    """The numbers of ``a`` as text, without ``repr``'s ``tensor(...)`` around them:
    ``numpy.array2string``, every argument as NumPy's, defaults from strided's print options
    (``set_printoptions``).

    Examples
    --------
    >>> import strided
    >>> strided.array2string(strided.asarray([1.0, 2.5]), separator=", ")
    '[1. , 2.5]'
    """
    from strided._check import tensor

    opts = _options(max_line_width=max_line_width, precision=precision,
                    suppress_small=suppress_small)  # fmt: skip
    with np.printoptions(**opts):
        return np.array2string(_host_array(tensor(a)), separator=separator, prefix=prefix,
                               **kwargs)  # fmt: skip


def _formatted(fmt, a, max_line_width, precision, suppress_small):
    """``fmt(a)`` under NumPy's three print arguments that were given."""
    from strided._check import tensor

    given = _given(max_line_width=max_line_width, precision=precision,
                   suppress_small=suppress_small)  # fmt: skip
    with printoptions(**given):
        return fmt(tensor(a))


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``repr(arr)`` with NumPy's three print arguments for this call (see ``format_repr``).

    Examples
    --------
    >>> import strided
    >>> strided.array_repr(strided.asarray([1 / 3]), precision=3)
    'tensor([0.333])'
    """
    return _formatted(format_repr, arr, max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """``str(a)`` with NumPy's three print arguments for this call (see ``format_str``).

    Examples
    --------
    >>> import strided
    >>> strided.array_str(strided.asarray([1 / 3]), precision=2)
    'tensor([0.33])'
    """
    return _formatted(format_str, a, max_line_width, precision, suppress_small)


def binary_repr(num, width=None):
    """The binary digits of the integer ``num`` (a Python int or a 0-d integer tensor), two's
    complement in ``width`` bits for a negative one: ``numpy.binary_repr``.

    Examples
    --------
    >>> import strided
    >>> strided.binary_repr(5), strided.binary_repr(-3, width=4)
    ('101', '1101')
    """
    return np.binary_repr(int(num), width)


def base_repr(number, base=2, padding=0):
    """The digits of the integer ``number`` in ``base`` (2 to 36), ``padding`` zeros in front:
    ``numpy.base_repr``.

    Examples
    --------
    >>> import strided
    >>> strided.base_repr(255, 16), strided.base_repr(-7, 3)
    ('FF', '-21')
    """
    return np.base_repr(int(number), base, padding)
