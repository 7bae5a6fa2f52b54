"""``strided.optim``: optimizers that update parameters in place from their ``.grad``.

Read ``optimizer.py`` (groups, state, state_dict), then ``sgd.py`` and ``adam.py``.
"""

from strided.optim.adam import Adam, AdamW
from strided.optim.optimizer import Optimizer
from strided.optim.sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]
