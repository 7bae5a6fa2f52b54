"""``Sequential``: modules applied one after the other."""

from __future__ import annotations

from collections import OrderedDict

from strided.nn.module import Module

__all__ = ["Sequential"]


class Sequential(Module):
    """Calls its modules in order, each on the output of the one before.

    Built from modules (named "0", "1", ...) or from one OrderedDict of named modules.

    Examples
    --------
    >>> import strided
    >>> from strided import nn
    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> model[0]
    Linear(in_features=4, out_features=8, bias=True)
    >>> len(model), model(strided.ones((1, 4))).shape
    (3, (1, 2))
    """

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        mods = list(self._modules.values())
        if isinstance(i, slice):
            return Sequential(OrderedDict(list(self._modules.items())[i]))
        try:
            return mods[i]
        except IndexError:
            raise IndexError(
                f"Sequential: index {i} is out of range for {len(mods)} modules"
            ) from None

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self
