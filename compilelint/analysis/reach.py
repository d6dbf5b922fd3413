"""What a name, an attribute or a call may stand for, as far as scope needs it: which code a compiled call runs.

Compilers run what a compiled function calls, wherever it is: a method of the object `__init__` stored on
`self.<attr>`, a method of a plain object built in the function, a function chosen from a registry by a config
value, a function handed over as an argument. Each file records, syntactically, a *value* per such name: a pair
(how, qualified name), with how one of

    "new"       an instance of the class named (`Decoder(cfg)`, or an annotation `decoder: Decoder`)
    "ref"       the function or class named itself (`self.act = gelu`, `fn=helper`)
    "item"      one of the members of the registry named (`ACTS[name]`, `ACTS.get(name)`)
    "new-item"  an instance of one of the registry's classes (`BLOCKS[kind](dim)`)
    "self-made" what a method of the instance returns (`self.convs.append(self.init_conv(d))`): the method of the
                class the instance is, a subclass's override included (`RepoIndex.instances`)

and scope (compilelint/analysis/scope.py) resolves them against the whole tree once every file is indexed.
A call on a value is recorded as ("value", "how|qualified|method"), method "" for calling the value itself.
"""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.index import ClassBuild
from compilelint.analysis.names import dotted, qualify

Value = tuple[str, str]
# Module containers whose elements are what a loop over them gives (`for block in self.blocks`)
_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.modules.container.ModuleList",
                         "torch.nn.modules.container.Sequential"})
MODULE_CONTAINERS = _CONTAINERS


def value_call(value: Value, method: str) -> tuple[str, str]:
    return ("value", f"{value[0]}|{value[1]}|{method}")


def split_value_call(name: str) -> tuple[str, str, str]:
    how, qualified, method = name.split("|", 2)
    return how, qualified, method


def _qualified(expr: cst.BaseExpression, aliases: dict[str, str], local: set[str], module: str) -> str | None:
    """A name of the file: an import's target, else `module.name` for a top-level definition of the file."""
    written = dotted(expr)
    if written is None:
        return None
    head = written.partition(".")[0]
    if head in aliases:
        return qualify(expr, aliases)
    if head in local:
        return f"{module}.{written}"
    return None


def values_of(expr: cst.BaseExpression, aliases: dict[str, str], local: set[str], module: str,
              known: dict[str, list[Value]] | None = None) -> list[Value]:
    """What an expression assigned to a name or an attribute may hold, as values (empty: nothing scope follows).
    `local`: the file's top-level definitions; `known`: the function's locals already classified."""
    kind = type(expr)
    if kind is cst.IfExp:
        return values_of(expr.body, aliases, local, module, known) + values_of(expr.orelse, aliases, local, module,
                                                                                known)
    if kind is cst.BooleanOperation:
        return values_of(expr.left, aliases, local, module, known) + values_of(expr.right, aliases, local, module,
                                                                                known)
    if kind is cst.Call:
        func = expr.func
        if type(func) is cst.Subscript:  # BLOCKS[kind](dim)
            return [("new-item", q) for how, q in values_of(func, aliases, local, module, known) if how == "item"]
        if type(func) is cst.Attribute and func.attr.value == "get" and expr.args:  # ACTS.get(name, default)
            owner = _qualified(func.value, aliases, local, module)
            return [("item", owner)] if owner is not None else []
        if type(func) is cst.Name and known is not None and func.value in known:
            return [("new-item", q) for how, q in known[func.value] if how == "item"] + \
                [("new", q) for how, q in known[func.value] if how == "ref"]
        target = _qualified(func, aliases, local, module)
        if target in _CONTAINERS:  # nn.ModuleList([Block(d) for _ in range(n)]): what its elements are
            return [v for arg in expr.args for v in _elements(arg.value, aliases, local, module, known)]
        return [("new", target)] if target is not None and not target.startswith("torch.") else []
    if kind in (cst.List, cst.Tuple, cst.ListComp):
        return _elements(expr, aliases, local, module, known)
    if kind is cst.Subscript:
        owner = _qualified(expr.value, aliases, local, module)
        return [("item", owner)] if owner is not None else []
    if kind in (cst.Name, cst.Attribute):
        if kind is cst.Name and known is not None and expr.value in known:
            return list(known[expr.value])
        target = _qualified(expr, aliases, local, module)
        return [("ref", target)] if target is not None and not target.startswith("torch.") else []
    return []


def _elements(expr: cst.BaseExpression, aliases: dict[str, str], local: set[str], module: str,
              known: dict[str, list[Value]] | None) -> list[Value]:
    """What the elements of a list, tuple or comprehension are (`[Block(d) for d in dims]`)."""
    if type(expr) is cst.ListComp:
        return values_of(expr.elt, aliases, local, module, known)
    if type(expr) in (cst.List, cst.Tuple):
        out: list[Value] = []
        for element in expr.elements:
            out += [v for v in values_of(element.value, aliases, local, module, known) if v not in out]
        return out
    return []


def annotation_values(annotation: cst.BaseExpression, aliases: dict[str, str], local: set[str],
                      module: str) -> list[Value]:
    """`decoder: Decoder` (or `Optional[Decoder]`): an instance of the class named."""
    if type(annotation) is cst.Subscript:
        out: list[Value] = []
        for element in annotation.slice:
            if type(element.slice) is cst.Index:
                out += annotation_values(element.slice.value, aliases, local, module)
        return out
    target = _qualified(annotation, aliases, local, module) if type(annotation) in (cst.Name, cst.Attribute) else None
    if target is None or target.startswith(("torch.", "typing.")):
        return []
    return [("new", target)]


def registry_members(value: cst.BaseExpression, aliases: dict[str, str], local: set[str],
                     module: str) -> list[str]:
    """The functions or classes a module-level dict, list or tuple holds (`{"gelu": gelu, "relu": relu}`)."""
    if type(value) is cst.Dict:
        items = [e.value for e in value.elements if type(e) is cst.DictElement]
    elif type(value) in (cst.List, cst.Tuple, cst.Set):
        items = [e.value for e in value.elements if type(e) is cst.Element]
    else:
        return []
    out = []
    for item in items:
        if type(item) in (cst.Name, cst.Attribute):
            target = _qualified(item, aliases, local, module)
            if target is not None and not target.startswith("torch."):
                out.append(target)
    return out


def argument_literal(expr: cst.BaseExpression) -> str:
    """A literal argument's `repr` (`True`, `None`, `3`, `'conv'`), "?" for anything else."""
    kind = type(expr)
    if kind is cst.Name and expr.value in ("True", "False", "None"):
        return expr.value
    if kind in (cst.Integer, cst.Float, cst.SimpleString):
        try:
            return repr(expr.evaluated_value)
        except Exception:  # noqa: BLE001 - a literal Python would reject: no value
            return "?"
    if kind is cst.UnaryOperation and type(expr.operator) is cst.Minus and type(expr.expression) in (
            cst.Integer, cst.Float):
        return repr(-expr.expression.evaluated_value)
    return "?"


def class_build(call: cst.Call, aliases: dict[str, str], local: set[str], module: str) -> ClassBuild | None:
    """The call as a possible build of a class of the tree (a capitalised callee named through an import or
    defined in the file), with its arguments as literals: what `RepoIndex.builds_of` gathers."""
    func = call.func
    last = func.attr if type(func) is cst.Attribute else func
    if type(last) is not cst.Name or not last.value[:1].isupper():
        return None
    name = _qualified(func, aliases, local, module)
    if name is None or name.startswith("torch."):
        return None
    args: list[str] = []
    keywords: list[tuple[str, str]] = []
    star_args = star_kwargs = False
    for arg in call.args:
        if arg.star == "*":
            star_args = True
        elif arg.star == "**":
            star_kwargs = True
        elif arg.keyword is not None:
            keywords.append((arg.keyword.value, argument_literal(arg.value)))
        else:
            args.append(argument_literal(arg.value))
    return ClassBuild(name, tuple(args), tuple(keywords), star_args, star_kwargs)
