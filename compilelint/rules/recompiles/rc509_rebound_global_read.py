from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class ReboundGlobalRead(Rule):
    code = "RC509"
    file_gate = (b"global",)  # rebound only by a `global` statement
    name = "changing-global-read"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'global `{name}` ({type}) is rebound by `{writer}()`: values recompile'
    doc = RuleDoc(
        what=("Flags reads, in compiled code, of a module-level int or str global that some function of the same file "
              "rebinds with a `global` statement (a setter, a config hook, a counter)."),
        why=("Globals are closed over by value: each read becomes a guard (`G['MODE'] == 'fast'`). Verified on 2.13 "
             "(backend=\"eager\"): a compiled function branching on a str global set to 4 values between calls gave "
             "three recompiles (guard failure on the `if MODE == ...` line); an int global read in math and changed "
             "5 times gave four. A float global recompiles once and then becomes dynamic, and a bool has two values, "
             "so neither is flagged; globals no function rebinds are constants and are not flagged either."),
        example="MODE = \"fast\"\ndef set_mode(m):\n    global MODE\n    MODE = m\n@torch.compile\ndef head(x):\n    if MODE == \"fast\": ...",
        use_instead="@torch.compile\ndef head(x, fast: torch.Tensor):\n    return torch.where(fast, x * 2, x + 1)",
    )
    bad = (
        Example('''
import torch
MODE = "fast"
def set_mode(m):
    global MODE
    MODE = m
def head(x):
    if MODE == "fast":  # <-
        return x * 2
    return x + 1
compiled_head = torch.compile(head, backend="eager")
def run(x):
    for m in ("fast", "slow", "exact", "approx"):
        set_mode(m)
        compiled_head(x)
''', inputs="[(torch.randn(3),)]", entry="run", check="recompile-eager"),
    )
    good = (
        Example('''
import torch
EPS = 1e-6
MODE = "fast"
def set_mode(m):
    global MODE
    MODE = m
def head(x, fast):
    return torch.where(fast, x * 2, x + 1) / (1 + EPS)
compiled_head = torch.compile(head, backend="eager")
def run(x):
    for m in ("fast", "slow", "exact", "approx"):
        set_mode(m)
        compiled_head(x, torch.tensor(MODE == "fast"))
''', inputs="[(torch.randn(3),)]", entry="run", check="recompile-eager"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._declared: set[str] = set()
        self._reported: set[str] = set()

    def visit_Global(self, node: cst.Global, ctx) -> None:  # noqa: ANN001
        self.__dict__.setdefault("_declared", set()).update(n.name.value for n in node.names)

    def visit_Name(self, node: cst.Name, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = node.value
        g = ctx.module_globals
        writers = g.rebound.get(name)
        if not writers or g.literal_types.get(name) not in ("int", "str"):
            return
        if name in self.__dict__.get("_declared", ()) or name in self.__dict__.get("_reported", ()):
            return  # the function that rebinds it is RC508's business
        if name in ctx.facts.env or not _is_load(node, ctx.parent):
            return
        self._reported.add(name)
        ctx.report(node, self.message.format(name=name, type=g.literal_types[name], writer=writers[0]))


def _is_load(node: cst.Name, parent: cst.CSTNode | None) -> bool:
    if type(parent) is cst.Attribute and parent.attr is node:
        return False
    if type(parent) is cst.Arg and parent.keyword is node:
        return False
    if type(parent) in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor):
        targets = [t.target for t in parent.targets] if type(parent) is cst.Assign else [parent.target]
        if any(t is node for t in targets):
            return False
    if type(parent) in (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.AsName, cst.Global,
                           cst.Nonlocal):
        return False
    return True
