"""What a loop walks: a sequence that lines up with a ModuleList by position is a list (one item per block), not
the rows of a tensor, whatever its annotation says (`for i, feat in enumerate(feats): self.proj[i](feat)`)."""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.nodes import child_nodes
from compilelint.analysis.tensors import Kind


def _enumerate_index(loop: cst.For | cst.CompFor) -> str | None:
    """`i` of `for i, x in enumerate(...)`."""
    it, target = loop.iter, loop.target
    if (type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "enumerate"
            and type(target) is cst.Tuple and len(target.elements) == 2
            and type(target.elements[0].value) is cst.Name):
        return target.elements[0].value.value
    return None


def walks_blocks_by_position(loop: cst.For | cst.CompFor, body: cst.CSTNode | None, class_facts) -> bool:  # noqa: ANN001
    """`for i, x in enumerate(xs)` whose body (for a comprehension: its element) indexes a ModuleList /
    ModuleDict / Sequential of the module with `i`: `xs` holds one item per block."""
    index = _enumerate_index(loop)
    if index is None or body is None or class_facts is None:
        return False
    stack = [body]
    while stack:
        node = stack.pop()
        if (type(node) is cst.Subscript and type(node.value) is cst.Attribute and type(node.value.value) is cst.Name
                and node.value.value.value == "self" and class_facts.attrs.get(node.value.attr.value) is Kind.MODULES
                and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index
                and type(node.slice[0].slice.value) is cst.Name and node.slice[0].slice.value.value == index):
            return True
        stack.extend(child_nodes(node))
    return False


def loop_body(loop: cst.For | cst.CompFor, ancestors: list[cst.CSTNode]) -> cst.CSTNode | None:
    """A `for` statement's body, or the element of the comprehension a `for` clause belongs to."""
    if type(loop) is cst.For:
        return loop.body
    for anc in reversed(ancestors):
        if type(anc) in (cst.ListComp, cst.SetComp, cst.GeneratorExp):
            return anc.elt
        if type(anc) is cst.DictComp:
            return anc.value
    return None


def _fixed_length(expr: cst.BaseExpression) -> bool:
    """An iterable whose length no input decides: a literal collection, `range` of literals, an attribute of `self`
    (a module container or a list set up once), or `enumerate`/`zip`/`reversed` of those."""
    if type(expr) in (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.SimpleString):
        return True
    if type(expr) is cst.Attribute:
        head = expr
        while type(head) is cst.Attribute:
            head = head.value
        return type(head) is cst.Name and head.value == "self"
    if type(expr) is cst.Call and type(expr.func) is cst.Name:
        args = [a.value for a in expr.args]
        if expr.func.value == "range":
            return all(type(a) is cst.Integer or (type(a) is cst.UnaryOperation and type(a.expression) is cst.Integer)
                       for a in args)
        if expr.func.value in ("enumerate", "zip", "reversed") and args:
            return all(_fixed_length(a) for a in args if type(a) is not cst.Integer)
    return False


_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)  # code of its own: not run by the comprehension


def comprehension_breaks(comp: cst.ListComp, ctx) -> tuple[bool, list[tuple[str, str]]] | None:  # noqa: ANN001
    """A list comprehension Dynamo hands to a resume frame: (its element breaks the graph itself, the tree functions
    its calls may run, to be looked up tree-wide), or None where its length is fixed (`range(3)`, `self.blocks`).

    On Python 3.11 a comprehension is a function of its own that Dynamo inlines: a graph break in its element
    breaks the caller at the comprehension, which then runs as a frame of its own, and the code after it is a
    resume frame that receives the list as `___stack0` and guards its length (`len(___stack0) == 2`), so each
    length recompiles it (verified on 2.13, Python 3.11). Only the first `for`'s iterable runs in the caller."""
    from compilelint.semantic.breaks import first_break
    from compilelint.semantic.calls import tree_callee

    if _fixed_length(comp.for_in.iter):
        return None
    own = False
    callees: list[tuple[str, str]] = []
    roots: list[cst.CSTNode] = [comp.elt, *comp.for_in.ifs]
    inner = comp.for_in.inner_for_in
    while inner is not None:
        roots += [inner.iter, *inner.ifs]
        inner = inner.inner_for_in
    work = list(reversed(roots))
    while work:
        node = work.pop()
        if type(node) in _NESTED:
            continue
        if type(node) in (cst.Call, cst.Subscript, cst.IfExp) and not own and first_break(node, ctx) is not None:
            own = True
        if type(node) is cst.Call:
            callee = tree_callee(node, ctx)
            if callee is not None and callee not in callees:
                callees.append(callee)
        work.extend(reversed(list(child_nodes(node))))
    return own, callees
