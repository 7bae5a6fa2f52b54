"""Loss layers: Modules that hold a loss's options and call ``strided.nn.functional``."""

from __future__ import annotations

from strided.nn import functional as F
from strided.nn.module import Module

__all__ = ["BCEWithLogitsLoss", "CrossEntropyLoss", "MSELoss", "NLLLoss"]


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    """Cross-entropy of logits against class indices (or probabilities), with optional class
    weights, an ignored target value and label smoothing; see ``functional.cross_entropy``."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.ignore_index, self.reduction = ignore_index, reduction
        self.label_smoothing = label_smoothing
        self.register_buffer("weight", weight)  # moves with .to(device), saved in state_dict

    def forward(self, input, target):
        return F.cross_entropy(
            input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing
        )

    def extra_repr(self):
        return f"label_smoothing={self.label_smoothing}" if self.label_smoothing else ""


class NLLLoss(Module):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__()
        self.ignore_index, self.reduction = ignore_index, reduction
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(Module):
    def __init__(self, reduction="mean", pos_weight=None):
        super().__init__()
        self.reduction = reduction
        if pos_weight is not None:
            self.register_buffer("pos_weight", pos_weight)
        else:
            self.pos_weight = None

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.reduction, self.pos_weight)
