"""The derivatives table itself: every row's names are valid, and every differentiable op has
exactly one row (Note [Named derivative rows] in strided/autograd/rows.py)."""

from __future__ import annotations

import collections

import pytest

import strided
from strided import _dispatch, _views
from strided.autograd import derivatives
from strided.autograd.rows import SPECIAL_NAMES, parse_signature


def _parameters(fn):
    code = fn.__code__
    return code.co_varnames[: code.co_argcount]


@pytest.mark.parametrize("entry", derivatives.ROWS, ids=lambda r: r.op)
def test_every_formula_names_only_the_ops_inputs_grad_and_result(entry):
    names, vararg, keywords = entry.signature
    inputs = set(names) | set(keywords) | ({vararg} if vararg else set())
    allowed = inputs | {n + "_meta" for n in inputs} | SPECIAL_NAMES
    for target, fn in entry.formulas.items():
        targets = [t.strip() for t in target.split(",")]
        for t in targets:
            assert t in set(names) | {vararg}, f"{entry.op}: {t!r} is no input"
        assert len(set(targets)) == len(targets), f"{entry.op}: {target!r} repeats an input"
        bad = [p for p in _parameters(fn) if p not in allowed]
        assert not bad, f"{entry.op}: the formula for {target!r} names {bad}, not inputs of it"
        if vararg is None and len(targets) == 1:
            assert "needs" not in _parameters(fn), f"{entry.op}: needs is for joint formulas"
    covered = [t.strip() for target in entry.formulas for t in target.split(",")]
    assert len(set(covered)) == len(covered), f"{entry.op}: an input has two formulas"


def test_the_row_names_its_op_and_signature():
    for entry in derivatives.ROWS:
        op, positional, vararg, keywords = parse_signature(
            f"{entry.op}({', '.join(entry.signature[0])})"
        )
        assert op == entry.op and [p for p, _ in positional] == entry.signature[0]


def test_every_differentiable_op_has_exactly_one_row():
    counts = collections.Counter(r.op for r in derivatives.ROWS)
    assert [op for op, n in counts.items() if n > 1] == []
    # custom ops (strided.library, "namespace::name") add their rows at run time
    assert {op for op in derivatives.TABLE if "::" not in op} == set(counts)
    strided.ones(1).requires_grad_()  # autograd registers its kernels
    ops = _dispatch.registered_ops()
    views = set(_views.VIEW_OPS)
    for name in ops:
        kinds = [
            name in derivatives.TABLE,
            name in derivatives.NOT_DIFFERENTIABLE,
            name in views,
        ]
        assert sum(kinds) <= 1, f"{name} is in more than one table"
        assert "Autograd" in ops[name], name
    assert not set(derivatives.TABLE) - set(ops), "a row for an op the dispatcher does not know"
    assert views <= set(ops)
    assert set(derivatives.VIEW_TABLE) <= views


def test_what_a_row_saves_is_read_off_its_formulas():
    t = derivatives.TABLE
    assert t["add"].save == () and not t["add"].result
    assert t["multiply"].save == (0, 1)
    assert t["exp"].save == () and t["exp"].result
    assert t["log"].save == (0,) and not t["log"].result
    assert t["where"].save == (0,)  # the condition only
    assert t["addmm"].save == (1, 2)  # not the added input
