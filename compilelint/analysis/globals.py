"""Module-level globals: which names a file binds at module level to a literal, and which names its
functions rebind with a `global` statement. Computed lazily, once per file, from statements only
(no expression walk), for the recompile rules: Dynamo guards on the value of a global int/str that
compiled code reads, so a global that changes between calls recompiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.analysis.tensors import _literal_type


@dataclass
class ModuleGlobals:
    literal_types: dict[str, str] = field(default_factory=dict)  # NAME = 3 -> {"NAME": "int"}
    rebound: dict[str, list[str]] = field(default_factory=dict)  # name -> functions with `global name`


def module_globals(module: cst.Module) -> ModuleGlobals:
    out = ModuleGlobals()
    for stmt in module.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign:
                    for t in small.targets:
                        if type(t.target) is cst.Name:
                            out.literal_types[t.target.value] = _literal_type(small.value)
                elif type(small) is cst.AnnAssign and small.value is not None and type(small.target) is cst.Name:
                    out.literal_types[small.target.value] = _literal_type(small.value)
    stack: list[tuple[cst.CSTNode, str]] = [(s, "") for s in module.body]
    while stack:
        node, fn = stack.pop()
        if type(node) is cst.FunctionDef:
            fn = node.name.value
        if type(node) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            for small in node.body:
                if type(small) is cst.Global and fn:
                    for item in small.names:
                        out.rebound.setdefault(item.name.value, []).append(fn)
            continue
        for attr in ("body", "orelse", "handlers", "finalbody"):
            sub = getattr(node, attr, None)
            if sub is None:
                continue
            items = sub if isinstance(sub, (list, tuple)) else [sub]
            for item in items:
                if isinstance(item, cst.BaseSuite) and hasattr(item, "body"):
                    inner = item.body
                    stack.extend((c, fn) for c in (inner if isinstance(inner, (list, tuple)) else [inner]))
                elif isinstance(item, cst.CSTNode):
                    stack.append((item, fn))
    return out
