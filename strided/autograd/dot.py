"""``to_dot``: draw the backward graph of a tensor with Graphviz.

Each node shows its name, sequence number and the user's source line of its forward op; each
saved tensor its shape, dtype and version (saved / now: a difference is the in-place write that
would make backward fail); leaves (AccumulateGrad) their shape. Edges point the way gradients
flow, from a node to the nodes of its inputs.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from strided.autograd.graph import AccumulateGrad

__all__ = ["to_dot"]


def _quote(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _saved_lines(node):
    lines = []
    for key, s in getattr(node, "saved", {}).items():
        t = s._tensor
        if t is None and s._ref is not None:
            t = s._ref()
        if t is None:
            t = s._alias
        if t is None:
            lines.append(f"saved {key}: freed")
            continue
        now = t._version
        mark = "" if now == s.version else "  MODIFIED"
        lines.append(f"saved {key}: {t.dtype.name}{list(t.shape)} v{s.version}/now v{now}{mark}")
    return lines


def to_dot(tensor, path=None, format=None):
    """The graph behind ``tensor`` as Graphviz DOT text. With ``path``, also write it there;
    with ``format`` ("svg", "png") and the ``dot`` program installed, render it to
    ``path + "." + format`` as well.

    Examples
    --------
    >>> import strided
    >>> x = strided.ones(3).requires_grad_()
    >>> print(strided.autograd.to_dot((x * 2).sum()).splitlines()[0])
    digraph autograd {
    """
    lines = ["digraph autograd {", '  node [shape=box, fontname="monospace", fontsize=10];']
    root = tensor.grad_fn
    ids = {}

    def ident(node):
        if node not in ids:
            ids[node] = f"n{len(ids)}"
        return ids[node]

    lines.append(f"  out [label={_quote(f'{tensor.dtype.name}{list(tensor.shape)}')}, shape=oval];")
    if root is None:
        lines.append("}")
        return "\n".join(lines) + "\n"
    lines.append(f"  out -> {ident(root)};")
    seen, stack = {root}, [root]
    while stack:
        node = stack.pop()
        if isinstance(node, AccumulateGrad):
            v = node.variable
            label = ["AccumulateGrad", f"leaf {v.dtype.name}{list(v.shape)}"]
            style = ", style=filled, fillcolor=lightblue"
        else:
            label = [f"{node.name()} #{node.sequence_nr}"]
            if node.source:
                label.append(os.path.basename(node.source))
            label += _saved_lines(node)
            style = ""
        lines.append(f"  {ident(node)} [label={_quote(chr(10).join(label))}{style}];")
        for i, e in enumerate(node.next_functions):
            if e is None:
                continue
            nxt, nr = e
            lines.append(f'  {ident(node)} -> {ident(nxt)} [label="{i}->{nr}"];')
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if path is not None:
        with open(path, "w") as f:
            f.write(text)
        if format is not None and shutil.which("dot"):
            subprocess.run(["dot", f"-T{format}", path, "-o", f"{path}.{format}"], check=True)
    return text
