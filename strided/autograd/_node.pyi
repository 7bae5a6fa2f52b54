"""Nodes made from compiled code (Note [A compiled Node base] in _record.pyx)."""

import itertools
from typing import Any

sequence: itertools.count[int]
NODE_FIELDS: tuple[str, ...]
FORMULA_FIELDS: tuple[str, ...]
ACCUMULATE_FIELDS: tuple[str, ...]
SAVED_FIELDS: tuple[str, ...]

class _Layout:
    def __init__(self, cls: type, fields: tuple[str, ...]) -> None: ...

def setup(FormulaNode: type, AccumulateGrad: type, SavedTensor: type) -> None: ...
def _make_formula_node(
    op: str,
    formula: Any,
    args: tuple,
    kwargs: Any,
    next_functions: tuple,
    input_meta: tuple,
    needs: tuple,
) -> Any: ...
def _make_accumulate_grad(variable: Any) -> Any: ...
def _make_saved_input(tensor: Any, what: Any) -> Any: ...
def _make_saved_output(tensor: Any, what: Any) -> Any: ...
