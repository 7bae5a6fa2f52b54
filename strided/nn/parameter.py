"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights.

Note [Parameter is a Tensor with another class]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
As in PyTorch, a Parameter *is* a tensor (every op takes it) and differs only in its class, which
is what ``Module.__setattr__`` looks at to register it. ``Parameter(t)`` makes a new tensor object
over ``t``'s memory (``t.detach()``: no history, same storage) and changes its class; results of
ops on a Parameter are plain Tensors, because ``_core`` makes every new tensor as the class
``_tensor.py`` registered. A Parameter requires grad unless told otherwise.
"""

from __future__ import annotations

from strided._core import TensorBase
from strided._dtype import float32
from strided._ops import creation as _creation
from strided._tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A learnable tensor of a Module (see Note [Parameter is a Tensor with another class]).

    Examples
    --------
    >>> import strided
    >>> p = strided.nn.Parameter(strided.zeros(2))
    >>> p.requires_grad, isinstance(p, strided.Tensor)
    (True, True)
    >>> p
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            # float32 like every layer's parameters: Note [nn parameters are float32] (layers.py)
            data = _creation.empty(0, dtype=float32)
        if not isinstance(data, TensorBase):
            raise TypeError(
                f"Parameter: data must be a strided Tensor, got {type(data).__name__}; "
                "wrap it with strided.asarray(...)"
            )
        if requires_grad and data.dtype.kind != "f":
            raise TypeError(
                f"Parameter: only floating tensors can require grad, got {data.dtype.name}; "
                "pass requires_grad=False or convert with .astype('float32')"
            )
        p = data.detach()
        p.__class__ = cls
        p.requires_grad_(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # all done in __new__ (TensorBase takes no constructor arguments)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        rebuild, args = Tensor.__reduce_ex__(self, protocol)
        return (_rebuild_parameter, (rebuild, args, self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.clone(), self.requires_grad)
        memo[id(self)] = out
        return out


def _rebuild_parameter(rebuild, args, requires_grad):
    return Parameter(rebuild(*args), requires_grad)
