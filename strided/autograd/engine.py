"""The engine: walk the backward graph from the outputs to the leaves.

Note [How the engine runs a graph]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A node may feed several others (``a`` in ``a*b + a``), so it must not run until *every*
gradient bound for it has arrived; those are summed in its buffer first. The engine therefore:

1. **Counts dependencies.** A walk from the root nodes over ``next_functions`` counts, for each
   node, how many edges point at it. With ``inputs`` (``grad()``, ``backward(inputs=)``), the
   walk first marks the nodes that lead to one of them, and only those count and run.
2. **Runs ready nodes.** A node is ready when its count reaches zero. Among ready nodes, the one
   made last in the forward pass runs first (highest ``sequence_nr``, a heap), as PyTorch does:
   it keeps the order of hooks and of accumulation reproducible.
3. **Runs a node**: tensor hooks and ``retain_grad`` on its gradients, its pre-hooks, then
   ``apply`` (with grad mode on only when ``create_graph``), then its hooks. Each input gradient
   goes through Note [Gradients take their input's shape] and is added into the buffer of the
   node its edge leads to; that node's count drops by one.
4. **Accumulates**: ``AccumulateGrad`` nodes add what reaches them into the leaf's ``.grad``.

Without ``retain_graph`` each node frees its saved tensors once it has run (``Node.release``),
so a second backward through it raises a clear error instead of reading freed memory.

All of a backward's state lives in this call's local variables, and grad mode is per thread:
two threads can run backward on independent graphs at the same time.

Note [Gradients take their input's shape]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``x + y`` with ``x`` of shape (3, 1) and ``y`` of shape (4,) has a (3, 4) result, and the
formula of ``add`` returns that (3, 4) gradient for both. Summing it back to each input's shape
(over the dims that broadcasting added or stretched) is the engine's job, done once here for
every op, as PyTorch's engine does in ``validate_outputs``: the formulas stay one line. The same
place casts a gradient to its input's dtype (``float32 + float64`` is float64; the float32
input's gradient must be float32).
"""

from __future__ import annotations

import heapq

from strided import _core
from strided._ops import creation as _cr
from strided._ops import elementwise as E
from strided._ops import reduction as R
from strided.autograd.formulas import sum_to
from strided.autograd.grad_mode import state
from strided.autograd.graph import AccumulateGrad, gradient_edge

__all__ = ["backward", "grad"]

_TensorBase = _core.TensorBase


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, _TensorBase):
        return (x,)
    return tuple(x)


def _root_grads(outputs, grads, what):
    """The starting gradients: given, or 1 for a one-element output."""
    grads = _as_tuple(grads) if grads is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise ValueError(f"{what}: got {len(outputs)} tensors but {len(grads)} gradients")
    out = []
    for i, (t, g) in enumerate(zip(outputs, grads, strict=True)):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError(
                    f"{what}: a gradient can be created implicitly only for a one-element "
                    f"output, and output {i} has shape {t.shape}; pass gradient= (a tensor of "
                    "that shape) or reduce the output first (e.g. .sum())"
                )
            g = _cr.ones(t.shape, dtype=t.dtype, device=t.device)
        elif not isinstance(g, _TensorBase):
            g = _cr.full(t.shape, g, dtype=t.dtype, device=t.device)
        elif g.shape != t.shape:
            raise RuntimeError(
                f"{what}: gradient {i} has shape {g.shape} but the output has shape {t.shape}"
            )
        out.append(g)
    return out


def _root_edges(outputs, what):
    edges = []
    for i, t in enumerate(outputs):
        if not isinstance(t, _TensorBase):
            raise TypeError(f"{what}: expected tensors, got {type(t).__name__} at position {i}")
        e = gradient_edge(t)
        if e is None:
            raise RuntimeError(
                f"{what}: element {i} of the outputs does not require grad and has no grad_fn "
                f"({t.dtype.name}{list(t.shape)}); was it computed under no_grad(), or from "
                "tensors none of which requires grad?"
            )
        edges.append(e)
    return edges


def _fit(g, meta_, node, i):
    """Note [Gradients take their input's shape]."""
    shape, dtype = meta_[0], meta_[1]
    if g.shape != shape:
        try:
            g = sum_to(g, shape)
        except Exception as e:
            raise RuntimeError(
                f"{node.name()} returned a gradient of shape {g.shape} for its input {i}, which "
                f"has shape {shape}: the shapes do not broadcast ({e})"
            ) from None
    if g.dtype is not dtype:
        g = g.astype(dtype)
    return g


def _reachable(roots, targets):
    """The nodes that lead to a target (all reachable nodes when targets is None)."""
    order, seen, stack = [], set(), [n for n in roots]
    seen.update(roots)
    while stack:  # an iterative walk: graphs can be far deeper than Python's recursion limit
        node = stack.pop()
        order.append(node)
        for e in node.next_functions:
            if e is not None and e[0] not in seen:
                seen.add(e[0])
                stack.append(e[0])
    if targets is None:
        return seen
    useful = set(targets)
    # children before parents: the reverse of a DFS preorder is not enough for a DAG, so repeat
    # until nothing changes (a couple of passes in practice)
    changed = True
    while changed:
        changed = False
        for node in reversed(order):
            if node in useful:
                continue
            if any(e is not None and e[0] in useful for e in node.next_functions):
                useful.add(node)
                changed = True
    return useful


def _add(a, b):
    if a is None:
        return b
    return E.add(a, b)


def _run_hooks(hooks, g):
    for h in list(hooks):
        r = h(g)
        if r is not None:
            g = r
    return g


def _check_anomaly(node, grads):
    from strided.autograd.anomaly_mode import anomaly_error

    for i, g in enumerate(grads):
        if isinstance(g, _TensorBase) and g.dtype.kind in "fc" and g.numel():
            if not bool(R.all(E.isfinite(g))):
                raise anomaly_error(node, i, g)


def count_dependencies(nodes):
    """Step 1 of Note [How the engine runs a graph]: for each node of ``nodes``, how many edges
    from nodes of ``nodes`` point at it (how many gradients it must wait for)."""
    deps = dict.fromkeys(nodes, 0)
    for node in nodes:
        for e in node.next_functions:
            if e is not None and e[0] in deps:
                deps[e[0]] += 1
    return deps


# Note [The engine's loop, per node]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The loop below runs once per node of every backward, so its own work is part of each op's
# cost: on a GPU, where a small op's kernel takes a few microseconds, the eager MLP step's
# backward is host-bound, and the engine's share of it is this loop. The common node has one
# output whose gradient has arrived: its gradients list is that gradient alone, and it runs
# without _apply's scan for missing gradients (which fills them with zeros). A next node's
# buffer is made when its first gradient arrives (no empty dict made and dropped per edge),
# and an edge to a node outside the graph's useful part costs one dict lookup. Hooks, captured
# targets and anomaly checks keep their places (Note [How the engine runs a graph], step 3).


def _execute(root_edges, root_grads, keep_graph, create_graph, targets=None, accumulate=True):
    """Run the graph (Note [How the engine runs a graph]). ``targets``: edges whose gradient is
    captured and returned (then leaves accumulate only if ``accumulate``)."""
    roots = [e[0] for e in root_edges]
    target_nodes = None if targets is None else [e[0] for e in targets]
    useful = _reachable(roots, target_nodes)

    # 1. dependencies, over the useful part of the graph
    deps = count_dependencies(useful)

    buffers = {}
    for (node, nr), g in zip(root_edges, root_grads, strict=True):
        buf = buffers.setdefault(node, {})
        buf[nr] = _add(buf.get(nr), g)
    captured = {}
    want = {} if targets is None else {e: i for i, e in enumerate(targets)}
    # storages handed to some .grad in this run (see _accumulate), and the root gradients':
    # those may be the caller's tensors (``x.backward(g)`` of a leaf x would otherwise make
    # x.grad the caller's g itself, so that writing into one changes the other)
    stored = {id(g.untyped_storage()) for g in root_grads}

    ready = []
    for node in dict.fromkeys(roots):
        if node in deps and deps[node] == 0:
            heapq.heappush(ready, (-node.sequence_nr, node))

    prev_mode = state.enabled
    state.enabled = create_graph
    heappop, heappush = heapq.heappop, heapq.heappush
    try:  # Note [The engine's loop, per node]
        while ready:
            node = heappop(ready)[1]
            buf = buffers.pop(node, None) or {}
            # tensor hooks, then retain_grad, on each output's gradient
            if node._tensor_pre_hooks:
                for nr, hooks in node._tensor_pre_hooks.items():
                    if buf.get(nr) is not None:
                        buf[nr] = _run_hooks(hooks, buf[nr])
            if node._retain_hooks:
                for nr, hooks in node._retain_hooks.items():
                    if buf.get(nr) is not None:
                        _run_hooks(hooks, buf[nr])
            if want:
                for nr, g in buf.items():
                    i = want.get((node, nr))
                    if i is not None:
                        captured[i] = g
            if isinstance(node, AccumulateGrad):
                if accumulate and (targets is None or node in target_nodes):
                    if buf.get(0) is not None:
                        _accumulate(node.variable, buf[0], create_graph, stored)
                continue
            if targets is not None and not any(
                e is not None and e[0] in useful for e in node.next_functions
            ):
                continue  # a target node with nothing useful below it: captured, not run
            out_meta = getattr(node, "out_meta", None)
            n_out = len(out_meta) if out_meta else 0
            g0 = buf.get(0)
            if n_out <= 1 and len(buf) == 1 and g0 is not None:
                grads = [g0]  # one output, its gradient here: most nodes
            else:
                n_out = max(n_out, max(buf, default=0) + 1)
                grads = [buf.get(nr) for nr in range(n_out)]
            if node._pre_hooks:
                for h in list(node._pre_hooks):
                    r = h(tuple(grads))
                    if r is not None:
                        grads = list(r)
            if len(grads) == 1 and grads[0] is not None:
                results = node.apply(grads)  # _apply's work when no gradient is missing
            else:
                results = _apply(node, grads)
            if state.anomaly or node._anomaly_trace is not None:
                _check_anomaly(node, results)
            if node._hooks:
                for h in list(node._hooks):
                    r = h(tuple(results), tuple(grads))
                    if r is not None:
                        results = list(r)
            if not keep_graph:
                node.release()
            input_meta = node.input_meta
            n_results = len(results)
            for i, e in enumerate(node.next_functions):
                if e is None:
                    continue
                nxt = e[0]
                left = deps.get(nxt)
                if left is None:
                    continue
                g = results[i] if i < n_results else None
                if g is not None:
                    meta_ = input_meta[i]
                    if g.shape != meta_[0] or g.dtype is not meta_[1]:
                        g = _fit(g, meta_, node, i)
                    b = buffers.get(nxt)
                    if b is None:
                        buffers[nxt] = {e[1]: g}
                    else:
                        b[e[1]] = _add(b.get(e[1]), g)
                left -= 1
                deps[nxt] = left
                if left == 0:
                    heappush(ready, (-nxt.sequence_nr, nxt))
    finally:
        state.enabled = prev_mode
    return captured


def _apply(node, grads):
    """Run one node: fill the gradients of unused outputs with zeros if others arrived."""
    missing = 0
    for g in grads:  # a loop, not all()/any() over generators: this runs once per node
        if g is None:
            missing += 1
    if missing == len(grads):
        return [None] * len(node.next_functions)
    if missing:
        out_meta = getattr(node, "out_meta", ())
        grads = [
            g
            if g is not None or i >= len(out_meta) or out_meta[i] is None
            else _cr.zeros(out_meta[i][0], dtype=out_meta[i][1], device=out_meta[i][2])
            for i, g in enumerate(grads)
        ]
    results = node.apply(grads)
    return results if type(results) is list else list(results)


def _accumulate(variable, g, create_graph, stored):
    """AccumulateGrad: run the leaf's tensor hooks, add ``g`` into ``variable.grad``, then run its
    post-accumulate hooks. The engine never writes into a ``.grad`` in place: ``a + a`` sends
    one tensor to two edges, and in-place accumulation would change both."""
    m = variable._autograd_meta
    if m is not None and m.hooks:
        g = _run_hooks(m.hooks, g)
    if not create_graph and (g._requires_grad or g.grad_fn is not None):
        g = _copy_plain(g)
    if variable.grad is None:
        key = id(g.untyped_storage())
        if (
            key in stored
            or g._base is not None
            or not (g.is_contiguous() or _laid_out_as(g, variable))
        ):
            g = _copy_plain(g)  # a fresh, dense tensor that belongs to this .grad alone
            key = id(g.untyped_storage())
        stored.add(key)
        variable.grad = g
    else:
        variable.grad = E.add(variable.grad, g)
    if m is not None and m.post_hooks:
        for h in list(m.post_hooks):
            h(variable)


def _laid_out_as(g, variable):
    """Whether ``g`` is dense, without overlaps, in the strides of ``variable``: kept as its .grad
    without a copy, as PyTorch's layout contract keeps a channels-last parameter's channels-last
    gradient (a copy would be C-contiguous)."""
    if g.stride() != variable.stride():
        return False
    expected = 1
    for stride, size in sorted(zip(g.stride(), g.shape, strict=True)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def _copy_plain(g):
    """A copy of ``g`` that is never recorded (the dispatcher below the Autograd key)."""
    from strided.autograd.recording import unrecorded

    return unrecorded("contiguous_copy", g)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradients of ``tensors`` with respect to the leaves, adding them into each
    leaf's ``.grad`` (``inputs``: only into these tensors' ``.grad``).

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([1.0, 2.0]).requires_grad_()
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    outputs = _as_tuple(tensors)
    edges = _root_edges(outputs, "backward")
    grads = _root_grads(outputs, grad_tensors, "backward")
    keep = create_graph if retain_graph is None else retain_graph
    if inputs is None:
        _execute(edges, grads, keep, create_graph)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("backward: inputs= was given but is empty")
    targets = _input_edges(inputs, "backward")
    captured = _execute(edges, grads, keep, create_graph, targets, accumulate=False)
    for i, t in enumerate(inputs):
        g = captured.get(i)
        if g is not None:
            _accumulate(t, g, create_graph, set())


def _input_edges(inputs, what):
    edges = []
    for i, t in enumerate(inputs):
        if not isinstance(t, _TensorBase):
            raise TypeError(f"{what}: inputs must be tensors, got {type(t).__name__} at {i}")
        if not t._requires_grad:
            raise RuntimeError(
                f"{what}: input {i} ({t.dtype.name}{list(t.shape)}) does not require grad; "
                "call .requires_grad_() on it before the forward pass"
            )
        edges.append(gradient_edge(t))
    return edges


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=False,
    materialize_grads=False,
):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is not
    touched). ``allow_unused``: an input the outputs do not depend on gets None instead of an
    error (zeros with ``materialize_grads``).

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray(3.0).requires_grad_()
    >>> (dx,) = strided.autograd.grad(x ** 3, x, create_graph=True)
    >>> (d2x,) = strided.autograd.grad(dx, x)
    >>> float(dx), float(d2x)
    (27.0, 18.0)
    """
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    edges = _root_edges(outs, "grad")
    grads = _root_grads(outs, grad_outputs, "grad")
    keep = create_graph if retain_graph is None else retain_graph
    targets = _input_edges(ins, "grad")
    captured = _execute(edges, grads, keep, create_graph, targets, accumulate=False)
    result = []
    for i, t in enumerate(ins):
        g = captured.get(i)
        if g is None:
            if materialize_grads:
                g = _cr.zeros(t.shape, dtype=t.dtype, device=t.device)
            elif not allow_unused:
                raise RuntimeError(
                    f"grad: input {i} ({t.dtype.name}{list(t.shape)}) was not used to compute "
                    "the outputs (no path leads from them to it); pass allow_unused=True to "
                    "get None for it"
                )
        elif g.shape != t.shape or g.dtype is not t.dtype:
            g = _fit(g, (t.shape, t.dtype, t.device), edges[0][0], i)
        result.append(g)
    return tuple(result)
