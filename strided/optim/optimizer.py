"""``Optimizer``: the base class of SGD, Adam and AdamW, as ``torch.optim.Optimizer``.

Note [Optimizer state and its dict]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An optimizer holds ``param_groups``, a list of dicts: ``"params"`` (a list of Parameters) plus the
hyper-parameters of that group (``lr``, ``momentum``, ...), so different layers can learn at
different rates. Per-parameter state (a momentum buffer, Adam's moments and step count) lives
in ``state[param]``. ``state_dict()`` cannot name parameters by object, so, as PyTorch, it numbers
them 0, 1, 2, ... in the order the groups list them: ``{"state": {0: {...}, ...},
"param_groups": [{"lr": ..., "params": [0, 1]}, ...]}``. ``load_state_dict`` maps the numbers
back to the parameters of *this* optimizer, which must have been built with the same groups of
the same shapes; the state tensors are copied (so later steps do not write into the dict).

Note [Updates are tensor ops under no_grad]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A step writes into the parameters in place (``p.sub_(...)``, ``buf.mul_(...).add_(...)``): the
same storage, so every view of the parameter (the model's, a ``state_dict``'s) sees the new
values, and each write bumps the version counter, so a graph that saved the old values refuses to
run backward on stale data. The step runs under ``no_grad``: it is not part of the function
being differentiated, and an in-place write into a leaf that requires grad is only allowed then.
"""

from __future__ import annotations

import copy

from strided._core import TensorBase
from strided.autograd.grad_mode import no_grad

__all__ = ["Optimizer"]


def _check_fused(name, fused):
    """``fused`` as PyTorch takes it: None, False or True (Note [A fused optimizer step])."""
    if fused not in (None, False, True):
        raise TypeError(f"{name}: fused must be None, False or True, got {fused!r}")
    return bool(fused)


class Optimizer:
    """Base class: holds ``param_groups`` and ``state`` (Note [Optimizer state and its dict])."""

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.state = {}
        self.param_groups = []
        if isinstance(params, TensorBase):
            raise TypeError(
                f"{type(self).__name__}: params must be an iterable of tensors (or of dicts), got "
                "one tensor; pass [tensor] or model.parameters()"
            )
        groups = list(params)
        if not groups:
            raise ValueError(f"{type(self).__name__}: got an empty list of parameters")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, group):
        """Add a dict with ``"params"`` and optional hyper-parameters (defaults fill the rest)."""
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("add_param_group: a group is a dict with a 'params' key")
        params = group["params"]
        params = [params] if isinstance(params, TensorBase) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for i, p in enumerate(params):
            if not isinstance(p, TensorBase):
                raise TypeError(
                    f"{type(self).__name__}: parameter {i} is a {type(p).__name__}, not a Tensor"
                )
            if not p.requires_grad:
                raise ValueError(
                    f"{type(self).__name__}: parameter {i} (shape {tuple(p.shape)}) does not "
                    "require grad, so it would never be updated"
                )
            if id(p) in seen:
                raise ValueError(
                    f"{type(self).__name__}: parameter {i} (shape {tuple(p.shape)}) appears in "
                    "more than one group"
                )
            seen.add(id(p))
        full = dict(self.defaults)
        full.update({k: v for k, v in group.items() if k != "params"})
        full["params"] = params
        self.param_groups.append(full)

    def zero_grad(self, set_to_none=True):
        """Forget every parameter's gradient (``None``, or zeros with ``set_to_none=False``)."""
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    with no_grad():
                        p.grad.zero_()

    def step(self, closure=None):
        """One update of every parameter that has a gradient. ``closure`` (optional) re-computes
        the loss and returns it; it runs with grad mode on, before the update."""
        loss = None
        if closure is not None:
            from strided.autograd.grad_mode import enable_grad

            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                todo = []
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.shape != p.shape:
                        raise ValueError(
                            f"{type(self).__name__}: a gradient of shape {tuple(p.grad.shape)} "
                            f"for a parameter of shape {tuple(p.shape)}"
                        )
                    todo.append((p, self.state.setdefault(p, {})))
                if group.get("fused") and todo:  # Note [A fused optimizer step]
                    todo = self._fused_update(todo, group)
                for p, state in todo:
                    self._update(p, p.grad, state, group)
        return loss

    def _update(self, p, grad, state, group):
        raise NotImplementedError

    def _fused_update(self, todo, group):
        """Update the (parameter, state) pairs of ``todo`` that one generated C call can take
        (Note [A fused optimizer step] in strided/_compile/optim.py); return the others, which
        take ``_update``. An optimizer without a fused step returns them all."""
        return todo

    # -- state_dict ---------------------------------------------------------------------------

    def state_dict(self):
        """``{"state": {index: {...}}, "param_groups": [...]}``; see Note [Optimizer state and
        its dict]. Tensors in it are the optimizer's own (clone to snapshot)."""
        index, groups = {}, []
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                if p in self.state and self.state[p]:
                    state[index[id(p)]] = dict(self.state[p])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore hyper-parameters and per-parameter state saved by ``state_dict``."""
        name = type(self).__name__
        groups = state_dict.get("param_groups")
        if not isinstance(groups, list) or len(groups) != len(self.param_groups):
            n = None if not isinstance(groups, list) else len(groups)
            raise ValueError(
                f"{name}.load_state_dict: the state dict has {n} parameter groups, this "
                f"optimizer {len(self.param_groups)}"
            )
        by_index = {}
        for i, (saved, own) in enumerate(zip(groups, self.param_groups, strict=True)):
            if len(saved["params"]) != len(own["params"]):
                raise ValueError(
                    f"{name}.load_state_dict: group {i} has {len(saved['params'])} parameters "
                    f"in the state dict and {len(own['params'])} here"
                )
            for k, p in zip(saved["params"], own["params"], strict=True):
                by_index[k] = p
        new_state = {}
        for k, st in state_dict.get("state", {}).items():
            k = int(k)
            if k not in by_index:
                raise ValueError(f"{name}.load_state_dict: state for unknown parameter {k}")
            p = by_index[k]
            restored = {}
            for key, v in st.items():
                if isinstance(v, TensorBase):
                    if v.ndim and tuple(v.shape) != tuple(p.shape):
                        raise ValueError(
                            f"{name}.load_state_dict: state {key!r} of parameter {k} has shape "
                            f"{tuple(v.shape)}, the parameter {tuple(p.shape)}"
                        )
                    v = v.to(
                        dtype=p.dtype if v.dtype.kind == "f" else None, device=p.device, copy=True
                    )
                else:
                    v = copy.deepcopy(v)
                restored[key] = v
            new_state[p] = restored
        for saved, own in zip(groups, self.param_groups, strict=True):
            for key, v in saved.items():
                if key != "params":
                    own[key] = v
        self.state = new_state

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)
