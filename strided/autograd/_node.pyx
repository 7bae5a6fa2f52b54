"""Nodes made from compiled code (Note [A compiled Node base] in _record.pyx).

graph.py is where a student learns what a node is: ``Node``, ``FormulaNode``,
``AccumulateGrad`` and ``SavedTensor`` there are plain Python classes with ``__slots__``, and
their ``__init__`` says what each field holds. The compiled recorder (_record.pyx) makes one
FormulaNode per recorded op, often an AccumulateGrad, and a SavedTensor per saved tensor; a
Python ``__init__`` costs a frame and a store per field, ~0.5 us each on the 2-core Zen 3, a
quarter of the recorded op's budget. The constructors here make the same objects, with the
same fields, without it: one allocation (the class's own ``tp_alloc``, as ``object.__new__``
does) and a pointer store per field.

A slot of a Python class is a fixed place in the object: its member descriptor
(``FormulaNode.op``, a ``member_descriptor``) holds the byte offset, which is all CPython
itself uses to read and write it. ``setup`` (called once by graph.py) reads every field's
offset from the classes; the constructors store at those offsets. So the classes stay what a
student reads, with nothing compiled in them, Python reads the fields at slot speed, and a
field added to graph.py's ``__init__`` without a store here shows as an AttributeError in the
recorder's tests (a slot never stored is unset, not None).

``sequence`` is the one counter of sequence numbers (the engine runs nodes in reverse order of
them) for both roads: graph.py's ``__init__``s and the constructors here.
"""

import itertools
import types

from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_DECREF, Py_INCREF, PyObject
from cpython.weakref cimport PyWeakref_NewRef

from strided._core cimport TensorBase, make_tensor

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    ctypedef PyObject* (*allocfunc)(PyTypeObject* tp, Py_ssize_t nitems)
    allocfunc type_alloc "strided_type_alloc"(PyTypeObject* tp)
    int T_OBJECT_EX
    int READONLY

cdef extern from *:
    """
    #include <structmember.h>
    #define strided_type_alloc(tp) ((tp)->tp_alloc)
    """

sequence = itertools.count()  # next() is atomic under the GIL: safe from several threads

# the fields each constructor stores, in this order (graph.py's __init__s: every slot but
# __weakref__, which a new object has unset)
NODE_FIELDS = ("next_functions", "input_meta", "sequence_nr", "_site", "_metadata", "_hooks",
               "_pre_hooks", "_tensor_pre_hooks", "_retain_hooks", "_anomaly_trace")
FORMULA_FIELDS = NODE_FIELDS + ("op", "formula", "args", "kwargs", "saved", "needs", "out_meta",
                                "_released")
ACCUMULATE_FIELDS = NODE_FIELDS + ("variable",)
SAVED_FIELDS = ("_tensor", "_ref", "_alias", "version", "is_output", "output_nr", "what")

cdef enum:
    MAX_FIELDS = 24

cdef class _Layout:
    """A class and the byte offset of each of its fields (in a constructor's order)."""
    cdef PyTypeObject* cls
    cdef object keep  # the class, kept alive
    cdef Py_ssize_t n
    cdef Py_ssize_t offsets[MAX_FIELDS]

    def __init__(self, cls, tuple fields):
        cdef PyMemberDescrObject* d
        if len(fields) > MAX_FIELDS:
            raise ValueError(f"{cls.__name__}: {len(fields)} fields, at most {MAX_FIELDS}")
        # all of cls's slots must be known here (one missed would stay unset)
        slots = {s for k in cls.__mro__ for s in k.__dict__.get("__slots__", ())}
        if "__dict__" in slots or set(fields) != slots - {"__weakref__"}:
            raise TypeError(f"{cls.__name__}'s slots {sorted(slots)} are not the fields "
                            f"{sorted(fields)} that _node.pyx stores")
        self.keep = cls
        self.cls = <PyTypeObject*>cls
        self.n = len(fields)
        for i, name in enumerate(fields):
            descr = getattr(cls, name)
            if type(descr) is not types.MemberDescriptorType:
                raise TypeError(f"{cls.__name__}.{name} is not a slot")
            d = <PyMemberDescrObject*>descr
            if d.d_member.type != T_OBJECT_EX or d.d_member.flags & READONLY:
                raise TypeError(f"{cls.__name__}.{name} is not a writable object slot")
            self.offsets[i] = d.d_member.offset


cdef _Layout _formula = None, _accumulate = None, _saved = None


def setup(FormulaNode, AccumulateGrad, SavedTensor):
    """Called once by graph.py: its classes, whose fields' offsets the constructors use."""
    global _formula, _accumulate, _saved
    _formula = _Layout(FormulaNode, FORMULA_FIELDS)
    _accumulate = _Layout(AccumulateGrad, ACCUMULATE_FIELDS)
    _saved = _Layout(SavedTensor, SAVED_FIELDS)


cdef inline object _alloc(_Layout layout):
    """A new, empty instance of the layout's class (every slot unset), as object.__new__."""
    cdef PyObject* p = type_alloc(layout.cls)(layout.cls, 0)
    if p == NULL:
        raise MemoryError()
    cdef object obj = <object>p  # the cast takes a reference of its own:
    Py_DECREF(obj)  # give back tp_alloc's
    return obj


cdef inline void _put(object obj, Py_ssize_t offset, object value) noexcept:
    """Store ``value`` in the (unset) slot at ``offset``: what the slot's descriptor does."""
    Py_INCREF(value)
    (<PyObject**>((<char*><PyObject*>obj) + offset))[0] = <PyObject*>value


cdef inline void _put_node(object n, Py_ssize_t* off, tuple next_functions, tuple input_meta,
                           object site):
    """Node.__init__'s stores: the edges, the inputs' metadata, a sequence number, the call
    site, None."""
    _put(n, off[0], next_functions)
    _put(n, off[1], input_meta)
    _put(n, off[2], next(sequence))
    _put(n, off[3], site)
    cdef int i
    for i in range(4, 10):  # _metadata ... _anomaly_trace
        _put(n, off[i], None)


cdef object new_formula_node(str op, object formula, tuple args, object kwargs,
                             tuple next_functions, tuple input_meta, tuple needs,
                             dict saved, tuple out_meta, object site):
    """``FormulaNode(op, formula, args, kwargs, next_functions, input_meta, needs)`` without
    its Python ``__init__``: the same fields, stored directly; and the three its recorder
    sets next (``saved``, ``out_meta``, ``_site``), stored at once rather than through
    ``setattr``."""
    n = _alloc(_formula)
    cdef Py_ssize_t* off = _formula.offsets
    _put_node(n, off, next_functions, input_meta, site)
    _put(n, off[10], op)
    _put(n, off[11], formula)
    _put(n, off[12], args)
    _put(n, off[13], kwargs)
    _put(n, off[14], saved)
    _put(n, off[15], needs)
    _put(n, off[16], out_meta)
    _put(n, off[17], False)
    return n


cdef object new_accumulate_grad(object variable, tuple input_meta):
    """``AccumulateGrad(variable)`` without its Python ``__init__``; ``input_meta``:
    ``((variable.shape, variable.dtype),)``, which the caller has at hand."""
    n = _alloc(_accumulate)
    cdef Py_ssize_t* off = _accumulate.offsets
    _put_node(n, off, (), input_meta, None)
    _put(n, off[10], variable)
    return n


cdef object new_saved_input(object tensor, object version, object what):
    """``SavedTensor(tensor, False, 0, what)`` without its Python ``__init__``; ``version``:
    the tensor's ``_version`` now."""
    s = _alloc(_saved)
    cdef Py_ssize_t* off = _saved.offsets
    _put(s, off[0], tensor)
    _put(s, off[1], None)
    _put(s, off[2], None)
    _put(s, off[3], version)
    _put(s, off[4], False)
    _put(s, off[5], 0)
    _put(s, off[6], what)
    return s


cdef object new_saved_output(TensorBase tensor, object what):
    """``SavedTensor(tensor, True, 0, what)`` without its Python ``__init__``: the weak
    reference, and the alias (graph.py's ``_alias``: a new tensor over the same memory, no
    history) made from the tensor's C fields."""
    s = _alloc(_saved)
    cdef Py_ssize_t* off = _saved.offsets
    _put(s, off[0], None)
    _put(s, off[1], PyWeakref_NewRef(tensor, None))
    _put(s, off[2], make_tensor(tensor._storage, tensor._offset, tensor._ndim, tensor._sizes,
                                tensor._strides, tensor.dtype))
    _put(s, off[3], tensor._storage.version)
    _put(s, off[4], True)
    _put(s, off[5], 0)
    _put(s, off[6], what)
    return s


def _make_formula_node(op, formula, args, kwargs, next_functions, input_meta, needs):
    """new_formula_node, for tests."""
    return new_formula_node(op, formula, args, kwargs, next_functions, input_meta, needs, {}, (),
                            None)


def _make_accumulate_grad(variable):
    """new_accumulate_grad, for tests."""
    return new_accumulate_grad(variable, ((variable.shape, variable.dtype),))


def _make_saved_input(tensor, what):
    """new_saved_input, for tests."""
    return new_saved_input(tensor, tensor._version, what)


def _make_saved_output(tensor, what):
    """new_saved_output, for tests."""
    return new_saved_output(tensor, what)
