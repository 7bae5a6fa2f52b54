# Nodes made from compiled code without their Python __init__ (Note [A compiled Node base] in
# _record.pyx).

from strided._core cimport TensorBase

cdef object new_formula_node(str op, object formula, tuple args, object kwargs,
                             tuple next_functions, tuple input_meta, tuple needs,
                             dict saved, tuple out_meta, object site)
cdef object new_accumulate_grad(object variable, tuple input_meta)
cdef object new_saved_input(object tensor, object version, object what)
cdef object new_saved_output(TensorBase tensor, object what)
