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
