"""The shape of a class as TorchScript sees it: which attributes exist once `__init__` has run, what they were
assigned, and which are declared at class level.

TorchScript builds a module's type from the instance after `__init__`: attributes assigned only in
`forward` do not exist, an attribute holding `None` is typed NoneType, a set or an empty list cannot be
typed at all. `__init__` often delegates (`self._build_layers()`), so the methods it calls on `self` are
followed (transitively) as init-time code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.nodes import string_value
from compilelint.analysis.pytypes import walk


def _self_attr(expr: cst.BaseExpression) -> str | None:
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        return expr.attr.value
    return None


@dataclass
class ClassShape:
    node: cst.ClassDef
    # attr -> every value assigned to it in init-time code (None for a declaration without value)
    init_values: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # attrs changed in place at init time (`self.x.append(...)`, `self.x += ...`, `self.x[k] = ...`)
    init_mutated: set[str] = field(default_factory=set)
    # names assigned or annotated in the class body, with their annotation if any
    class_level: dict[str, cst.BaseExpression | None] = field(default_factory=dict)
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    base_names: list[str] = field(default_factory=list)  # qualified bases
    # attrs set through setattr/register_* with a non-literal name, or __dict__: shape not fully known
    dynamic: bool = False

    def known(self, attr: str) -> bool:
        return attr in _MODULE_ATTRS or attr in self.init_values or attr in self.class_level or attr in self.methods

    def only_torch_bases(self) -> bool:
        """True when the only base is `nn.Module` itself (no base class may define more attributes)."""
        return all(b in ("torch.nn.Module", "torch.nn.modules.module.Module") for b in self.base_names)


_MODULE_ATTRS = {"training", "_parameters", "_buffers", "_modules", "dump_patches", "call_super_init"}
_CACHE: dict[int, ClassShape] = {}


def class_shape(node: cst.ClassDef, aliases: dict[str, str]) -> ClassShape:
    cached = _CACHE.get(id(node))
    if cached is not None and cached.node is node:
        return cached
    if len(_CACHE) > 256:
        _CACHE.clear()
    shape = ClassShape(node=node)
    shape.base_names = [qualify(a.value, aliases) or "?" for a in node.bases if a.keyword is None]
    for stmt in node.body.body:
        if type(stmt) is cst.FunctionDef:
            shape.methods[stmt.name.value] = stmt
        elif type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                    shape.class_level[small.target.value] = small.annotation.annotation
                elif type(small) is cst.Assign:
                    for t in small.targets:
                        if type(t.target) is cst.Name:
                            shape.class_level.setdefault(t.target.value, None)
    seen: set[str] = set()
    todo = ["__init__"]
    while todo:
        name = todo.pop()
        if name in seen or name not in shape.methods:
            continue
        seen.add(name)
        for sub, above in walk(shape.methods[name].body, (shape.methods[name],)):
            if type(sub) is cst.Assign:
                for t in sub.targets:
                    attr = _self_attr(t.target)
                    if attr is not None:
                        shape.init_values.setdefault(attr, []).append(sub.value)
                    elif type(t.target) is cst.Subscript and _self_attr(t.target.value):
                        shape.init_mutated.add(_self_attr(t.target.value))
                    elif type(t.target) is cst.Tuple:
                        for el in t.target.elements:
                            attr = _self_attr(el.value)
                            if attr is not None:
                                shape.init_values.setdefault(attr, []).append(cst.Name("__unknown__"))
            elif type(sub) is cst.AnnAssign:
                attr = _self_attr(sub.target)
                if attr is not None:
                    shape.init_values.setdefault(attr, []).append(sub.value or cst.Name("__unknown__"))
            elif type(sub) is cst.AugAssign:
                attr = _self_attr(sub.target)
                if attr is not None:
                    shape.init_mutated.add(attr)
            elif type(sub) is cst.Call:
                func = sub.func
                if type(func) is cst.Attribute:
                    owner = _self_attr(func.value)
                    if owner is not None:
                        shape.init_mutated.add(owner)
                    if type(func.value) is cst.Name and func.value.value == "self":
                        method = func.attr.value
                        if method in ("register_buffer", "register_parameter", "add_module", "register_module"):
                            if sub.args and string_value(sub.args[0].value) is not None:
                                shape.init_values.setdefault(string_value(sub.args[0].value), []).append(
                                    cst.Name("__registered__"))
                            else:
                                shape.dynamic = True
                        else:
                            todo.append(method)
                elif type(func) is cst.Name and func.value == "setattr":
                    if len(sub.args) >= 2 and string_value(sub.args[1].value) is not None:
                        shape.init_values.setdefault(string_value(sub.args[1].value), []).append(cst.Name("__unknown__"))
                    else:
                        shape.dynamic = True
            elif type(sub) is cst.Attribute and sub.attr.value == "__dict__":
                shape.dynamic = True
            elif type(sub) is cst.Name and sub.value == "super" and type(above[-1]) is cst.Call:
                pass
    _CACHE[id(node)] = shape
    return shape
