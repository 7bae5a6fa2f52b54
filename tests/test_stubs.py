"""The type stubs agree with the compiled modules they describe (STYLE.md: a ``.pyi`` for every
extension module).

Note [Checking the stubs]
~~~~~~~~~~~~~~~~~~~~~~~~~
A ``.pyi`` beside a compiled module is all that an editor, a type checker or ``help()`` in an
IDE knows of it, and nothing keeps the two in step: a function renamed, added or given a new
argument in the ``.pyx`` leaves the stub describing a module that no longer exists. mypy's
``stubtest`` does this comparison for Python modules; on Cython extensions it reports the
machinery Cython adds (``__pyx_unpickle_*``, ``__test__``, the C-level attributes of cdef
classes) and needs mypy installed in CI, so this test does the part that matters with ``ast`` and
``inspect``, for every ``.pyi`` under ``strided/``:

- every name the stub defines (a function, a class, a variable) exists in the module, and every
  method or attribute a stub class lists exists on the class;
- every public name the module defines (not imported from elsewhere, no leading underscore) is in
  the stub, and so is every public method a class defines itself;
- where ``inspect.signature`` can read the compiled function (Cython's ``binding=True``), the
  parameters agree with the stub's: the same names in the same order, the same kinds
  (positional-only, keyword-only, ``*args``, ``**kwargs``) and the same ones with defaults.

Names are compared as the module sees them: a name the ``.pyx`` imports at Python level
(``from strided._dtype import can_cast``) is the other module's and need not be in this stub.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

STRIDED = Path(__file__).resolve().parent.parent / "strided"
STUBS = sorted(STRIDED.rglob("*.pyi"))
# What Cython itself adds to every module and class.
CYTHON_NAMES = {"__test__", "__pyx_capi__", "__reduce_cython__", "__setstate_cython__"}


def _module_name(stub):
    return ".".join(stub.relative_to(STRIDED.parent).with_suffix("").parts)


def _source(stub):
    """The module's source: its .pyx (rendered from a .pyx.tp when there is one)."""
    pyx = stub.with_suffix(".pyx")
    return pyx.read_text() if pyx.exists() else ""


def _python_imports(source):
    """Names a .pyx binds by Python-level import (``import x``, ``from x import a as b``)."""
    names = set()
    for m in re.finditer(r"^from\s+\S+\s+import\s+(\([^)]*\)|[^\n]*)", source, re.M):
        for part in m.group(1).strip("()").replace("\n", " ").split(","):
            part = part.split("#")[0].strip()
            if part:
                names.add(part.split(" as ")[-1].strip())
    for m in re.finditer(r"^import\s+([^\n]*)", source, re.M):
        for part in m.group(1).split(","):
            names.add(part.split(" as ")[-1].strip().split(".")[0])
    return names


class Stub:
    """What a .pyi declares: top-level names, and each class's members."""

    def __init__(self, path):
        tree = ast.parse(path.read_text())
        self.functions = {}  # name -> ast.FunctionDef
        self.classes = {}  # name -> {member name: ast node}
        self.variables = set()
        self.imported = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                members = {}
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        members.setdefault(item.name, item)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        members[item.target.id] = item
                    elif isinstance(item, ast.Assign):
                        for t in item.targets:
                            if isinstance(t, ast.Name):
                                members[t.id] = item
                self.classes[node.name] = members
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                self.variables.add(node.target.id)
            elif isinstance(node, ast.Assign):
                self.variables.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imported.update((a.asname or a.name).split(".")[0] for a in node.names)

    @property
    def names(self):
        return set(self.functions) | set(self.classes) | self.variables


def _stub_params(fn, is_method):
    """(name, kind, has default) per parameter of a stub function, as inspect names kinds."""
    a = fn.args
    out = []
    positional = [(p, inspect.Parameter.POSITIONAL_ONLY) for p in a.posonlyargs]
    positional += [(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in a.args]
    first_default = len(positional) - len(a.defaults)
    for i, (p, kind) in enumerate(positional):
        out.append((p.arg, kind, i >= first_default))
    if a.vararg:
        out.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL, False))
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append((p.arg, inspect.Parameter.KEYWORD_ONLY, d is not None))
    if a.kwarg:
        out.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD, False))
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if is_method and not static and out:
        out = out[1:]  # self / cls: the runtime signature of a bound or class method omits it
    return out


def _runtime_params(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None  # a builtin without a text signature: only the name is checked
    return [
        (p.name, p.kind, p.default is not inspect.Parameter.empty) for p in sig.parameters.values()
    ]


def _same_signature(stub_fn, obj, is_method):
    want = _runtime_params(obj)
    if want is None:
        return True
    if is_method and isinstance(obj, (classmethod, staticmethod)):
        return True
    got = _stub_params(stub_fn, is_method)
    if is_method and want and want[0][0] in ("self", "cls"):
        want = want[1:]
    return got == want


def _own_public_names(module, source):
    """The public names ``module`` defines itself (not imported, not Cython's)."""
    imported = _python_imports(source)
    out = set()
    for name, value in vars(module).items():
        if name.startswith("_") or name in imported or inspect.ismodule(value):
            continue
        if (inspect.isclass(value) or callable(value)) and getattr(
            value, "__module__", module.__name__
        ) != module.__name__:
            continue
        out.add(name)
    return out


@pytest.fixture(params=STUBS, ids=lambda p: str(p.relative_to(STRIDED)))
def pair(request):
    stub_path = request.param
    module = importlib.import_module(_module_name(stub_path))
    return stub_path, Stub(stub_path), module


def test_every_stub_is_beside_a_module():
    assert STUBS, "no .pyi found"
    for stub in STUBS:
        assert stub.with_suffix(".pyx").exists() or stub.with_suffix(".pyx.tp").exists(), stub


def test_the_stub_names_only_what_the_module_has(pair):
    _, stub, module = pair
    missing = sorted(n for n in stub.names if not hasattr(module, n))
    assert missing == [], f"{module.__name__} lacks what its stub declares"
    for cls_name, members in stub.classes.items():
        cls = getattr(module, cls_name)
        # a bare annotation in a class whose instances have a __dict__ is an instance attribute
        # (set in __init__), not on the class; an extension type's are descriptors, on the class
        instance = cls.__dictoffset__ != 0
        gone = sorted(
            m
            for m, node in members.items()
            if not hasattr(cls, m)
            and not (instance and isinstance(node, ast.AnnAssign) and node.value is None)
        )
        assert gone == [], f"{module.__name__}.{cls_name} lacks what its stub declares"


def test_the_stub_names_everything_public_the_module_has(pair):
    path, stub, module = pair
    own = _own_public_names(module, _source(path)) - CYTHON_NAMES
    unlisted = sorted(own - stub.names - stub.imported)
    assert unlisted == [], f"{module.__name__} has public names its stub does not declare"
    for cls_name, members in stub.classes.items():
        cls = getattr(module, cls_name)
        public = {n for n in vars(cls) if not n.startswith("_")}
        unlisted = sorted(public - set(members))
        assert unlisted == [], f"{module.__name__}.{cls_name}: members missing from the stub"


def test_the_stub_signatures_are_the_modules(pair):
    _, stub, module = pair
    wrong = []
    for name, fn in stub.functions.items():
        obj = getattr(module, name, None)
        if obj is not None and not _same_signature(fn, obj, is_method=False):
            wrong.append(f"{name}{inspect.signature(obj)}")
    for cls_name, members in stub.classes.items():
        cls = getattr(module, cls_name, None)
        for name, node in members.items():
            if not isinstance(node, ast.FunctionDef) or name.startswith("__"):
                continue
            raw = inspect.getattr_static(cls, name, None)
            if raw is None or not callable(raw) or isinstance(raw, property):
                continue
            obj = getattr(cls, name)
            if not _same_signature(node, obj, is_method=True):
                wrong.append(f"{cls_name}.{name}{inspect.signature(obj)}")
    assert wrong == [], f"{module.__name__}: the stub's parameters differ from these"
