"""One file, one pass: LibCST nodes (built from Python's own parse, or LibCST's), index, tensor facts, every rule.

Rules run over every function speculatively; which functions a compile path actually reaches is
only known once all files are indexed, so each candidate finding carries the key of the function
(or class) it sits in and the engine keeps those in scope afterwards. That keeps the whole analysis
to a single walk over each tree: a second walk would cost as much as the parse.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
import warnings
from dataclasses import dataclass, field

import libcst as cst

from compilelint.analysis.ast_cst import Built, Unsupported, build_module
from compilelint.analysis.globals import ModuleGlobals, module_globals
from compilelint.semantic.breaks import skipped_whole
from compilelint.semantic.calls import call_name
from compilelint.semantic.module_facts import ModuleFacts
from compilelint.semantic.paths import behind_default_off_flag, dead_under_trace, off_flag_branch, on_training_path
from compilelint.analysis.index import ClassInfo, FileSummary, FunctionInfo
from compilelint.analysis.names import import_aliases, qualify
from compilelint.analysis.nodes import TEXT_TYPES as _TEXT_TYPES
from compilelint.analysis.positions import positions_of, statement_lines
from compilelint.analysis.reach import MODULE_CONTAINERS, annotation_values, class_build, registry_members, value_call, values_of
from compilelint.analysis.script_support import dead_when_scripting, in_decorator
from compilelint.analysis.tensors import (ClassFacts, FunctionFacts, Kind, annotation_kind, infer_returns_tensor,
                                         self_attr_assignments)
from compilelint.findings import Finding, Fix, Related
from compilelint.fix import replacement_in_place, span_text
from compilelint.rules.base import Rule, fit_message
from compilelint.semantic.params import ParamKinds
from compilelint.semantic.script_types import (default_attribute_states, folded_by_script, generated_methods,
                                               script_signature)
from compilelint.semantic.custom_ops import FileCustomOps, file_custom_ops
from compilelint.parse_guard import parse_cst, parse_python, reindent_tabs, restore_columns, too_complex
from compilelint.rules.registry import SYNTAX_ERROR, TOO_COMPLEX
from compilelint.suppress import Suppressions

COMPILE_CALLS = {
    "torch.compile": "dynamo",
    "torch.jit.script": "torchscript",
    "torch.jit.trace": "trace",
    "torch.jit.trace_module": "trace",
    "torch.export.export": "export",
}
_FIELDS: dict[type, tuple[str, ...]] = {}
_SCRIPT_FAMILIES = frozenset({"torchscript", "annotations"})
_BUILTIN_BASES = {"object", "Exception", "dict", "list", "tuple", "Generic", "NamedTuple", "Enum"}
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# How the walk treats a node type; cached per type (isinstance on LibCST's ABCs is slow).
_NOT_NODE, _STATEMENT, _SUITE, _EXPRESSION, _CALL, _COMPREHENSION, _LAMBDA = range(7)
_CATEGORY: dict[type, int] = {}


def _category(node_type: type) -> int:
    category = _CATEGORY.get(node_type)
    if category is None:
        if not issubclass(node_type, cst.CSTNode):
            category = _NOT_NODE
        elif issubclass(node_type, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            category = _STATEMENT
        elif issubclass(node_type, cst.BaseSuite):
            category = _SUITE
        elif node_type is cst.Call:
            category = _CALL
        elif issubclass(node_type, _COMPREHENSIONS):
            category = _COMPREHENSION
        elif node_type is cst.Lambda:
            category = _LAMBDA
        else:
            category = _EXPRESSION
        _CATEGORY[node_type] = category
    return category


def _child_fields(node_type: type) -> tuple[str, ...]:
    names = _FIELDS.get(node_type)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node_type)
                      if not f.name.startswith(("whitespace", "lpar", "rpar", "leading_lines", "comma",
                                                "semicolon", "trailing_whitespace", "header", "footer"))
                      and f.type not in _TEXT_TYPES)
        _FIELDS[node_type] = names
    return names


@dataclass
class Candidate:
    rule: str
    node: cst.CSTNode
    message: str
    severity: str
    targets: tuple[str, ...]
    gb_id: str | None
    scope_key: str
    context: str
    statement: int  # index of the top-level statement holding the node
    member: int  # index of the statement in that top-level class's body holding it (-1: not in one)
    fix: tuple[cst.CSTNode, cst.CSTNode, str, bool] | None = None
    related: tuple[tuple[cst.CSTNode, str], ...] = ()  # (node in the same function, what happens there)
    pending: str = ""  # a tree_facts rule's data for its settle (Finding.pending)


@dataclass
class FileResult:
    path: str
    summary: FileSummary | None
    # (finding, scope key, applies anywhere)
    findings: list[tuple[Finding, str, bool]] = field(default_factory=list)
    # The keys of the functions whose bodies LibCST was not handed (analyze_source's `blank`): their summaries hold
    # no calls, and the engine analyzes the file again whole if scope reaches one.
    blanked: tuple[str, ...] = ()


class RuleContext:
    """What a rule sees while the analyzer walks one function."""

    def __init__(self, analyzer: "FileAnalyzer") -> None:
        self._analyzer = analyzer
        self.path = analyzer.path
        self.module_name = analyzer.module_name
        self.aliases: dict[str, str] = analyzer.aliases
        self.function: cst.FunctionDef | None = None
        self.function_key = ""
        self.context = ""  # "Class.method" or "func"
        self.class_name: str | None = None
        self.class_node: cst.ClassDef | None = None
        self.class_facts: ClassFacts | None = None
        # Two views of the function's values: TorchScript's (an unannotated parameter is a Tensor) for the
        # TorchScript and annotation rules, and the run-time one (what callers pass: semantic/params.py) for
        # every other rule. One object when they agree (the common case); `views` holds each distinct one,
        # and the walk updates every view.
        self.script_facts = FunctionFacts(self.aliases, None)
        self.runtime_facts = self.script_facts
        self.views: tuple[FunctionFacts, ...] = (self.script_facts,)
        # `facts`: the current rule's view. The analyzer switches it with the rule only where the views differ
        # (`split`), which keeps the hot dispatch loops to one attribute test.
        self.facts = self.script_facts
        self.split = False
        self.ancestors: list[cst.CSTNode] = []
        self.loop_depth = 0
        self.rule: Rule | None = None
        self.decorators: list[str] = []

    def qualify(self, expr: cst.BaseExpression) -> str | None:
        return qualify(expr, self.script_facts.aliases)

    def kind(self, expr: cst.BaseExpression) -> Kind:
        return self.facts.kind(expr)

    @property
    def module_facts(self) -> "ModuleFacts":
        """Facts about the whole file (Dynamo config set at module level, disabled functions, loggers)."""
        analyzer = self._analyzer
        facts = getattr(analyzer, "_module_facts", None)
        if facts is None:
            facts = analyzer._module_facts = ModuleFacts.from_module(analyzer.module, self.aliases)
        return facts

    def passed_kind(self, param: str) -> Kind | None:
        """What the calls to the current function in this file pass for its unannotated, default-less `param`
        (semantic/params.py; None when no call says)."""
        kind = self._analyzer.param_kinds.of(self.context).get(param)
        return None if kind is None or kind is Kind.UNKNOWN else kind

    @property
    def custom_ops(self) -> FileCustomOps:
        """The torch.library ops this file defines and the fakes it registers (semantic/custom_ops.py)."""
        return self._analyzer.summary.custom_ops

    @property
    def parent(self) -> cst.CSTNode | None:
        return self.ancestors[-1] if self.ancestors else None

    @property
    def module(self) -> cst.Module:
        """The parsed file (for facts about module-level names)."""
        return self._analyzer.module

    @property
    def module_globals(self) -> "ModuleGlobals":
        """Module-level literal globals and the names functions rebind with `global` (lazy, once per file)."""
        if self._analyzer.globals_fact is None:
            self._analyzer.globals_fact = module_globals(self._analyzer.module)
        return self._analyzer.globals_fact

    def code_for(self, node: cst.CSTNode) -> str:
        return self._analyzer.code_for(node)

    def report(self, node: cst.CSTNode, message: str | None = None, *, severity: str | None = None,
               gb_id: str | None = None, in_class: bool = False,
               fix: tuple[cst.CSTNode, cst.CSTNode, str] | None = None, unsafe_fix: bool = False,
               related: tuple[tuple[cst.CSTNode, str], ...] = (), pending: str = "") -> None:
        """Record a finding of the current rule at `node`.

        `fix` is (node to replace, replacement node, description). `in_class` attributes the
        finding to the class (for findings in `__init__` or the class body, which no compile path
        runs but which decide whether the module compiles). `pending` is a `tree_facts` rule's data for its
        `settle` (JSON text), carried beside the message, never in it: the message is fitted like any other.
        """
        rule = self.rule
        assert rule is not None
        scope_key = self.function_key
        if in_class and self.class_name is not None:
            scope_key = f"{self.module_name}:{self.class_name}"
        elif self.context.endswith(".__init__") and rule.applies_to != "anywhere":
            # No compile path runs a module's __init__ (scope never reaches it), so a finding there
            # could only be dropped later; dropping it now saves computing its position.
            return
        if rule.targets == ("trace",) and (dead_under_trace(self, node) or behind_default_off_flag(
                self.ancestors, node, self.function, getattr(self.class_facts, "default_off", set()))):
            return  # the tracer never runs that branch (the trace rules' one dead-branch check)
        if rule.family == "recompile" and rule.applies_to != "anywhere" and skipped_whole(self):
            return  # a break in one of the function's loops: Dynamo runs it eagerly, with no guards to fail
        if "torchscript" in rule.targets and self.class_node is not None and self.ancestors and folded_by_script(
                list(self.ancestors), node, default_attribute_states(self)):
            return  # TorchScript drops that branch when compiling: `if self.b is not None:` where `__init__` sets None
        severity = severity or rule.severity
        if "torchscript" not in rule.targets and on_training_path(self.ancestors, node):
            # users compile and export for inference first, in eval(): a claim only a training step can meet is
            # one level lower, and says so (TorchScript compiles both sides, so its claims stand)
            severity = _LOWER.get(severity, severity)
            message = (message or rule.message).rstrip(". ") + TRAINING_ONLY
        message = fit_message(message or rule.message)
        self._analyzer.candidates.append(Candidate(
            rule=rule.code, node=node, message=message, severity=severity,
            targets=tuple(rule.targets), gb_id=gb_id or rule.gb_id, scope_key=scope_key,
            context=self.context, statement=self._analyzer.statement_index, member=self._analyzer.member_index, fix=(fix[0], fix[1], fix[2], not unsafe_fix) if fix else None,
            related=related, pending=pending))


_LOWER = {"error": "warning", "warning": "note"}
TRAINING_ONLY = " (training only)"  # said of a claim only a training step meets (severity one level lower)

_DISPATCH_CACHE: dict[tuple[int, ...], tuple[dict[str, list], dict[type, list], list[Rule], list[Rule]]] = {}


def _dispatch_tables(rules: list[Rule]) -> tuple[dict[str, list], dict[type, list], list[Rule], list[Rule]]:
    """visit_<Node> handlers by node name (and a per-type cache), and the rules that define begin_function and
    end_function (a few of them: calling every rule's empty hooks cost more per function than the walk),
    built once per list of rule objects."""
    key = tuple(id(r) for r in rules)
    tables = _DISPATCH_CACHE.get(key)
    if tables is None or len(_DISPATCH_CACHE) > 64:
        by_name: dict[str, list] = {}
        for rule in rules:
            for attr in dir(rule):
                if attr.startswith("visit_"):
                    by_name.setdefault(attr[len("visit_"):], []).append((rule, getattr(rule, attr)))
        if "Call" in by_name:
            by_name["Call"] = _gate_calls(by_name["Call"])
        begins = [r for r in rules if type(r).begin_function is not Rule.begin_function]
        ends = [r for r in rules if type(r).end_function is not Rule.end_function]
        if len(_DISPATCH_CACHE) > 64:
            _DISPATCH_CACHE.clear()
        # The rule objects are kept alive by the table itself, so their ids in the key stay theirs.
        tables = _DISPATCH_CACHE[key] = (by_name, {}, begins, ends)
    return tables


def _gate_calls(handlers: list) -> list:
    """Call handlers, with those of rules that declare a `call_gate` folded into one _GatedCalls handler
    at the place of the first: one lookup per call instead of one Python call per rule."""
    gated = [(rule, method) for rule, method in handlers if rule.call_gate is not None]
    if len(gated) < 2:
        return handlers
    out, folded = [], False
    for rule, method in handlers:
        if rule.call_gate is None:
            out.append((rule, method))
        elif not folded:
            out.append((rule, _GatedCalls(gated)))
            folded = True
    return out


class _GatedCalls:
    """Runs each gated rule's visit_Call on the calls its gate admits, in rule order."""

    def __init__(self, entries: list) -> None:
        self.entries = entries
        self.by_name: dict[str, list[int]] = {}
        self.by_head: dict[str, list[int]] = {}
        self.by_method: dict[str, list[int]] = {}
        self.by_bare: dict[str, list[int]] = {}
        for i, (rule, _) in enumerate(entries):
            gate = rule.call_gate
            for table, keys in ((self.by_name, gate.names), (self.by_head, gate.heads),
                                (self.by_method, gate.methods), (self.by_bare, gate.bare)):
                for key in keys:
                    table.setdefault(key, []).append(i)

    def __call__(self, node: cst.Call, ctx: RuleContext) -> None:
        func = node.func
        func_type = type(func)
        picked: list[int] = []
        if func_type is cst.Attribute:
            picked += self.by_method.get(func.attr.value, ())
        elif func_type is cst.Name:
            picked += self.by_bare.get(func.value, ())
        name = call_name(node, ctx)
        if name:
            picked += self.by_name.get(name, ())
            picked += self.by_head.get(name.partition(".")[0], ())
        if not picked:
            return
        if len(picked) > 1:
            picked = sorted(set(picked))
        entries = self.entries
        for i in picked:
            rule, method = entries[i]
            ctx.rule = rule
            if ctx.split:
                ctx.facts = ctx.script_facts if rule.family in _SCRIPT_FAMILIES else ctx.runtime_facts
            method(node, ctx)


class FileAnalyzer:
    def __init__(self, path: str, module_name: str, is_package: bool, rules: list[Rule]) -> None:
        self.path = path
        self.module_name = module_name
        self.is_package = is_package
        self.rules = rules
        self.aliases: dict[str, str] = {}
        self.candidates: list[Candidate] = []
        self.summary = FileSummary(path=path, module=module_name, aliases=self.aliases)
        self.dispatch, self._by_type, self._begins, self._ends = _dispatch_tables(rules)
        self._class_facts: dict[str, ClassFacts] = {}
        self._attr_assignments: dict[str, int] | None = None
        self.statement_index = 0
        self.member_index = -1
        self.ctx = RuleContext(self)
        self.globals_fact: ModuleGlobals | None = None
        self._current_calls: list[tuple[str, str]] | None = None
        # What the current function's locals may hold, for scope (`dec = Decoder(cfg)`; reach.values_of)
        self._current_locals: dict[str, list[tuple[str, str]]] = {}
        self._local_defs: set[str] = set()
        self.module: cst.Module
        # Where each node is, for a module built from Python's tree (analysis/ast_cst.py); None for LibCST's own
        self.built: Built | None = None
        self.source = b""

    def code_for(self, node: cst.CSTNode) -> str:
        """The source of `node` as written (with its parentheses)."""
        text = self.built.code_for(self.source, node) if self.built is not None else None
        return self.module.code_for_node(node) if text is None else text

    # -- entry --------------------------------------------------------------------------------
    def run(self, module: cst.Module, source: bytes | None = None, tree: "ast.Module | None" = None) -> None:
        self.module = module
        self.source = source if source is not None else b""
        text = source if source is not None else module.code
        self.param_kinds = ParamKinds.from_tree(tree, text) if tree is not None else ParamKinds.from_source(text)
        self._def_lines = _def_lines(tree) if tree is not None else {}
        self._collect_module_imports(module.body)
        self.summary.custom_ops = file_custom_ops(source if source is not None else module.code.encode(), tree,
                                                  self.aliases, self.module_name)
        self._returns_tensor = self._tensor_returning(module.body)
        self._collect_registries(module.body)
        module_key = f"{self.module_name}:<module>"
        for index, stmt in enumerate(module.body):
            self.statement_index = index
            self._top_level(stmt, module_key)
        for call in self.built.left_out_calls if self.built is not None else ():
            build = class_build(call, self.aliases, self._local_defs, self.module_name)
            if build is not None:
                self.summary.class_builds.append(build)

    def _collect_module_imports(self, body) -> None:  # noqa: ANN001
        for stmt in body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) in (cst.Import, cst.ImportFrom):
                        self.aliases.update(import_aliases(small, self.module_name, self.is_package))
            elif type(stmt) in (cst.If, cst.Try):
                self._collect_module_imports(stmt.body.body)
                if type(stmt) is cst.Try:
                    for handler in stmt.handlers:
                        self._collect_module_imports(handler.body.body)

    def _collect_registries(self, body) -> None:  # noqa: ANN001
        """The file's top-level definitions, and its module-level dicts/lists of them (registries)."""
        stack = list(body)
        lines = []
        while stack:
            stmt = stack.pop()
            kind = type(stmt)
            if kind in (cst.FunctionDef, cst.ClassDef):
                self._local_defs.add(stmt.name.value)
            elif kind is cst.SimpleStatementLine:
                lines.append(stmt)
            elif kind in (cst.If, cst.Try) and self._holds_definitions(stmt):
                stack.extend(self._branches(stmt))
        for stmt in lines:
            for small in stmt.body:
                if type(small) is cst.Assign and len(small.targets) == 1:
                    target, value = small.targets[0].target, small.value
                elif type(small) is cst.AnnAssign and small.value is not None:
                    target, value = small.target, small.value
                else:
                    continue
                if type(target) is cst.Name and type(value) in (cst.Dict, cst.List, cst.Tuple, cst.Set):
                    members = registry_members(value, self.aliases, self._local_defs, self.module_name)
                    if members:
                        self.summary.registries[target.value] = members
                        self._local_defs.add(target.value)

    def _values(self, expr: cst.BaseExpression) -> list[tuple[str, str]]:
        return values_of(expr, self.aliases, self._local_defs, self.module_name, self._current_locals)

    def _note_values(self, target: cst.BaseExpression, value: cst.BaseExpression | None,
                     annotation: cst.BaseExpression | None = None) -> None:
        """What an assignment stores where scope looks: a local of the function, or `self.<attr>` in a method."""
        if type(target) is cst.Name:
            if self._current_calls is None:
                return
            values = self._values(value) if value is not None else []
            if values:
                self._current_locals[target.value] = values
            else:
                self._current_locals.pop(target.value, None)
        elif (type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self"
              and self.ctx.class_name is not None and self._current_calls is not None):
            values = self._values(value) if value is not None else []
            if annotation is not None:
                values += annotation_values(annotation, self.aliases, self._local_defs, self.module_name)
            info = self.summary.classes.get(self.ctx.class_name)
            if values and info is not None:
                known = info.attrs.setdefault(target.attr.value, [])
                known.extend(v for v in values if v not in known)
                if type(value) is cst.Call and qualify(value.func, self.aliases) in MODULE_CONTAINERS:
                    held = info.elements.setdefault(target.attr.value, [])
                    held.extend(v for v in values if v not in held)

    def _note_element(self, name: str, iterable: cst.BaseExpression) -> None:
        """`for block in self.blocks:` binds `block` to an element of what `self.blocks` holds (reach.py)."""
        if type(iterable) is cst.Attribute and type(iterable.value) is cst.Name and iterable.value.value == "self":
            self._current_locals[name] = [("attr", iterable.attr.value)]
        else:
            self._current_locals.pop(name, None)

    def _note_elements(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """`for i, (conv, norm) in enumerate(zip(self.convs, self.norms)):` binds each name to an element of the
        container it walks (`_note_element`)."""
        if type(target) is cst.Name:
            self._note_element(target.value, iterable)
            return
        if type(target) not in (cst.Tuple, cst.List):
            return
        names = [e.value for e in target.elements]
        parts: list[cst.BaseExpression | None] = [None] * len(names)
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name and iterable.args:
            if iterable.func.value == "enumerate" and len(names) == 2:
                parts[1] = iterable.args[0].value
            elif iterable.func.value == "zip" and len(iterable.args) == len(names):
                parts = [a.value for a in iterable.args]
        for name, part in zip(names, parts):
            if part is not None:
                self._note_elements(name, part)
            elif type(name) is cst.Name:
                self._current_locals.pop(name.value, None)

    def _tensor_returning(self, body) -> set[str]:  # noqa: ANN001
        names = set()
        for stmt in body:
            if type(stmt) is cst.FunctionDef and stmt.returns is not None:
                if annotation_kind(stmt.returns.annotation, self.aliases) is Kind.TENSOR:
                    names.add(stmt.name.value)
            elif type(stmt) is cst.FunctionDef and infer_returns_tensor(stmt, self.aliases):
                names.add(stmt.name.value)  # unannotated helper whose every return is a torch result
        return names

    def _top_level(self, stmt: cst.CSTNode, module_key: str) -> None:
        if type(stmt) is cst.ClassDef:
            self._class(stmt)
        elif type(stmt) is cst.FunctionDef:
            info = self._function(stmt, None, None)
            self.summary.functions[info.name] = info
        elif type(stmt) in (cst.If, cst.Try) and self._holds_definitions(stmt):
            # `if TYPE_CHECKING:` / `try: import x` blocks that define classes or functions.
            for inner in self._branches(stmt):
                self._top_level(inner, module_key)
        else:
            self._begin_scope(module_key, "<module>", None, None, None)
            self._walk_stmt(stmt)
            self._end_scope()

    @staticmethod
    def _branches(stmt: cst.CSTNode) -> list[cst.CSTNode]:
        out = list(stmt.body.body)
        for handler in getattr(stmt, "handlers", ()):
            out.extend(handler.body.body)
        orelse = getattr(stmt, "orelse", None)
        if type(orelse) is cst.If:
            out.append(orelse)
        elif orelse is not None:
            out.extend(orelse.body.body)
        return out

    @staticmethod
    def _holds_definitions(stmt: cst.CSTNode) -> bool:
        return any(type(s) in (cst.ClassDef, cst.FunctionDef) for s in stmt.body.body)

    # -- classes and functions ------------------------------------------------------------------
    def _class(self, node: cst.ClassDef) -> None:
        name = node.name.value
        key = f"{self.module_name}:{name}"
        # (a generic base, `ModelBase[Config]`, is the class subscripted)
        bases = [q for q in (qualify(a.value.value if type(a.value) is cst.Subscript else a.value, self.aliases)
                             for a in node.bases if a.keyword is None) if q]
        # A bare base name that no import bound is a class of this file: qualify it with the module, so that
        # the index resolves `class Head(BaseHead)` to this file's BaseHead.
        bases = [f"{self.module_name}.{b}" if "." not in b and b not in self.aliases and b not in _BUILTIN_BASES
                 else b for b in bases]
        info = ClassInfo(key=key, name=name, bases=bases, dataclass=generated_methods(node, self.aliases))
        self.summary.classes[name] = info
        facts = ClassFacts.from_class(node, self.aliases)
        # Attributes set up by a base class defined earlier in the same file (`class Head(_Base)`).
        for base in node.bases:
            inherited = self._class_facts.get(base.value.value) if type(base.value) is cst.Name else None
            if inherited is not None:
                facts.inherit(inherited)
        if facts.off_flags:
            if self._attr_assignments is None:  # once per file, only for files with a candidate flag
                self._attr_assignments = self_attr_assignments(self.module)
            facts.settle_off_flags(self._attr_assignments)
        self._class_facts[name] = facts
        returns = {s.name.value for s in node.body.body if type(s) is cst.FunctionDef and s.returns is not None
                   and annotation_kind(s.returns.annotation, self.aliases) is Kind.TENSOR}
        # The class itself (its body and decorators): rules about module shape report here.
        self._begin_scope(key, name, name, node, facts)
        self._dispatch(node)
        self._end_scope()
        for member, stmt in enumerate(node.body.body):
            self.member_index = member
            if type(stmt) is cst.FunctionDef:
                method = self._function(stmt, node, facts, returns)
                info.methods[method.name] = method
            else:
                if type(stmt) is cst.SimpleStatementLine:  # `decoder: Decoder` in the class body
                    for small in stmt.body:
                        if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                            values = annotation_values(small.annotation.annotation, self.aliases, self._local_defs,
                                                       self.module_name)
                            if values:
                                info.attrs.setdefault(small.target.value, []).extend(values)
                self._begin_scope(key, name, name, node, facts)
                self._walk_stmt(stmt)
                self._end_scope()
        self.member_index = -1

    def _function(self, node: cst.FunctionDef, cls: cst.ClassDef | None, class_facts: ClassFacts | None,
                  class_returns: set[str] | None = None) -> FunctionInfo:
        local = f"{cls.name.value}.{node.name.value}" if cls is not None else node.name.value
        key = f"{self.module_name}:{local}"
        decorators = [q for q in (qualify(d.decorator.func if type(d.decorator) is cst.Call else d.decorator,
                                          self.aliases) for d in node.decorators) if q]
        info = FunctionInfo(key=key, name=node.name.value, decorators=decorators, line=self._def_lines.get(local, 0),
                            wrapped_by=[q for q in (qualify(d.decorator, self.aliases) for d in node.decorators
                                                    if type(d.decorator) is not cst.Call) if q],
                            script_params=script_signature(node, self.aliases))
        self._begin_scope(key, local, cls.name.value if cls else None, cls, class_facts)
        ctx = self.ctx
        ctx.function = node
        ctx.decorators = decorators
        returns_tensor = set(self._returns_tensor) | (class_returns or set())
        ctx.script_facts.returns_tensor = returns_tensor
        ctx.script_facts.bind_params(node, assume_tensor=True)
        runtime = self.param_kinds.of(local)
        if any(kind is not Kind.TENSOR for kind in runtime.values()):
            ctx.runtime_facts = FunctionFacts(dict(self.aliases), class_facts)
            ctx.runtime_facts.returns_tensor = returns_tensor
            ctx.runtime_facts.bind_params(node, assume_tensor=True, runtime=runtime)
            ctx.views = (ctx.script_facts, ctx.runtime_facts)
            ctx.split = True
        self._current_calls = info.calls
        self._current_locals = {}
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            if param.annotation is not None:  # `decoder: Decoder`: what `decoder.decode(x)` runs
                values = annotation_values(param.annotation.annotation, self.aliases, self._local_defs,
                                           self.module_name)
                if values:
                    self._current_locals[param.name.value] = values
        self._current_info = info
        for rule in self._begins:
            ctx.rule = rule
            if ctx.split:
                ctx.facts = ctx.script_facts if rule.family in _SCRIPT_FAMILIES else ctx.runtime_facts
            rule.begin_function(ctx)
        self._dispatch(node)
        self.ctx.ancestors.append(node)
        for d in node.decorators:
            self._walk_expr(d.decorator)
        self._walk_block(node.body)
        self.ctx.ancestors.pop()
        for rule in self._ends:
            ctx.rule = rule
            if ctx.split:
                ctx.facts = ctx.script_facts if rule.family in _SCRIPT_FAMILIES else ctx.runtime_facts
            rule.end_function(ctx)
        self._current_calls = None
        self._end_scope()
        return info

    def _begin_scope(self, key: str, context: str, class_name: str | None, class_node: cst.ClassDef | None,
                     class_facts: ClassFacts | None) -> None:
        ctx = self.ctx
        ctx.function_key = key
        ctx.context = context
        ctx.class_name = class_name
        ctx.class_node = class_node
        ctx.class_facts = class_facts
        ctx.function = None
        ctx.decorators = []
        ctx.script_facts = ctx.runtime_facts = ctx.facts = FunctionFacts(dict(self.aliases), class_facts)
        ctx.views = (ctx.script_facts,)
        ctx.split = False
        ctx.ancestors = []
        ctx.loop_depth = 0

    def _end_scope(self) -> None:
        self.ctx.function = None

    # -- the walk -----------------------------------------------------------------------------
    def _dispatch(self, node: cst.CSTNode) -> None:
        handlers = self._handlers_for(type(node))
        if handlers:
            ctx = self.ctx
            for rule, method in handlers:
                ctx.rule = rule
                if ctx.split:
                    ctx.facts = ctx.script_facts if rule.family in _SCRIPT_FAMILIES else ctx.runtime_facts
                method(node, ctx)

    def _walk_block(self, block: cst.BaseSuite) -> None:
        if type(block) is cst.IndentedBlock:
            for stmt in block.body:
                self._walk_stmt(stmt)
        elif type(block) is cst.SimpleStatementSuite:
            self._walk_line(block)

    def _walk_line(self, line: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> None:
        for small in line.body:
            self._walk_small(small)

    def _walk_stmt(self, stmt: cst.CSTNode) -> None:
        ctx = self.ctx
        if type(stmt) is cst.SimpleStatementLine:
            self._dispatch(stmt)
            ctx.ancestors.append(stmt)
            self._walk_line(stmt)
            ctx.ancestors.pop()
            return
        self._dispatch(stmt)
        ctx.ancestors.append(stmt)
        try:
            if type(stmt) is cst.If:
                self._walk_expr(stmt.test)
                self._walk_block(stmt.body)
                if stmt.orelse is not None:
                    self._walk_stmt(stmt.orelse)
            elif type(stmt) is cst.Else:
                self._walk_block(stmt.body)
            elif type(stmt) is cst.For:
                self._walk_expr(stmt.iter)
                for facts in ctx.views:
                    facts.bind_iteration(stmt.target, stmt.iter)
                if self._current_calls is not None:
                    self._note_elements(stmt.target, stmt.iter)
                self._walk_expr(stmt.target)
                ctx.loop_depth += 1
                self._walk_block(stmt.body)
                ctx.loop_depth -= 1
                if stmt.orelse is not None:
                    self._walk_stmt(stmt.orelse)
            elif type(stmt) is cst.While:
                ctx.loop_depth += 1
                self._walk_expr(stmt.test)
                self._walk_block(stmt.body)
                ctx.loop_depth -= 1
                if stmt.orelse is not None:
                    self._walk_stmt(stmt.orelse)
            elif type(stmt) is cst.With:
                for item in stmt.items:
                    self._walk_expr(item.item)
                    if item.asname is not None:
                        for facts in ctx.views:
                            facts.bind(item.asname.name, Kind.UNKNOWN)
                self._walk_block(stmt.body)
            elif type(stmt) in (cst.Try, cst.TryStar):
                self._walk_block(stmt.body)
                for handler in stmt.handlers:
                    self._dispatch(handler)
                    ctx.ancestors.append(handler)
                    if handler.type is not None:
                        self._walk_expr(handler.type)
                    if handler.name is not None:
                        for facts in ctx.views:
                            facts.bind(handler.name.name, Kind.PY)
                    self._walk_block(handler.body)
                    ctx.ancestors.pop()
                if stmt.orelse is not None:
                    self._walk_stmt(stmt.orelse)
                if stmt.finalbody is not None:
                    self._dispatch(stmt.finalbody)
                    self._walk_block(stmt.finalbody.body)
            elif type(stmt) is cst.FunctionDef:
                # A nested function: walked as part of its enclosing function, parameters unknown.
                saved = [dict(facts.env) for facts in ctx.views]
                for facts in ctx.views:
                    for p in [*stmt.params.posonly_params, *stmt.params.params, *stmt.params.kwonly_params]:
                        facts.env[p.name.value] = Kind.UNKNOWN
                for d in stmt.decorators:
                    self._walk_expr(d.decorator)
                self._walk_block(stmt.body)
                for facts, env in zip(ctx.views, saved):
                    facts.env = {**env, stmt.name.value: Kind.UNKNOWN}
            else:
                self._walk_children(stmt)
        finally:
            ctx.ancestors.pop()

    def _walk_small(self, small: cst.CSTNode) -> None:
        ctx = self.ctx
        views = ctx.views
        self._dispatch(small)
        ctx.ancestors.append(small)
        if type(small) is cst.Assign:
            self._walk_expr(small.value)
            kinds = [facts.kind(small.value) for facts in views]
            for target in small.targets:
                self._walk_expr(target.target)
                for facts, kind in zip(views, kinds):
                    facts.bind(target.target, kind)
                    facts.note_assign(target.target, small.value)
                self._note_values(target.target, small.value)
        elif type(small) is cst.AugAssign:
            self._walk_expr(small.value)
            self._walk_expr(small.target)
            for facts in views:
                facts.bind(small.target, facts._combine(facts.kind(small.target), facts.kind(small.value)))
        elif type(small) is cst.AnnAssign:
            if small.value is not None:
                self._walk_expr(small.value)
            self._walk_expr(small.target)
            for facts in views:
                kind = annotation_kind(small.annotation.annotation, facts.aliases)
                if kind is Kind.UNKNOWN and small.value is not None:
                    kind = facts.kind(small.value)
                facts.bind(small.target, kind)
            self._note_values(small.target, small.value, small.annotation.annotation)
        elif type(small) is cst.Return and small.value is not None and self._current_calls is not None:
            self._walk_children(small)
            returned = self._current_info.returns  # what a factory hands back (`return cls(dim)`), for scope
            returned.extend(v for v in self._values(small.value) if v not in returned)
        elif type(small) in (cst.Import, cst.ImportFrom):
            for facts in views:
                facts.aliases.update(import_aliases(small, self.module_name, self.is_package))
        else:
            self._walk_children(small)
            if type(small) is cst.Expr and type(small.value) is cst.Call:
                for facts in views:
                    facts.note_check(small.value)  # torch._check(cond): a fact for later branches
        ctx.ancestors.pop()

    def _walk_expr(self, node: cst.CSTNode) -> None:
        # The hottest function of a lint run: lookups are inlined (no _handlers_for/_category calls).
        node_type = type(node)
        ctx = self.ctx
        handlers = self._by_type.get(node_type)
        if handlers is None:
            handlers = self._handlers_for(node_type)
        if handlers:
            for rule, method in handlers:
                ctx.rule = rule
                if ctx.split:
                    ctx.facts = ctx.script_facts if rule.family in _SCRIPT_FAMILIES else ctx.runtime_facts
                method(node, ctx)
        category = _CATEGORY.get(node_type)
        if category is None:
            category = _category(node_type)
        if category == _CALL:
            self._record_call(node)
        ancestors = ctx.ancestors
        ancestors.append(node)
        if category == _COMPREHENSION:
            views = ctx.views
            saved = [dict(facts.env) for facts in views]
            self._walk_comp_for(node.for_in)
            if node_type is cst.DictComp:
                self._walk_expr(node.key)
                self._walk_expr(node.value)
            else:
                self._walk_expr(node.elt)
            for facts, env in zip(views, saved):
                facts.env = env
        elif category == _LAMBDA:
            views = ctx.views
            saved = [dict(facts.env) for facts in views]
            for facts in views:
                for p in node.params.params:
                    facts.env[p.name.value] = Kind.UNKNOWN
            self._walk_expr(node.body)
            for facts, env in zip(views, saved):
                facts.env = env
        else:
            self._walk_children(node)
        ancestors.pop()

    def _walk_comp_for(self, comp: cst.CompFor) -> None:
        self._dispatch(comp)
        self.ctx.ancestors.append(comp)
        self._walk_expr(comp.iter)
        for facts in self.ctx.views:
            facts.bind_iteration(comp.target, comp.iter)
        self._walk_expr(comp.target)
        for cond in comp.ifs:
            self._walk_expr(cond)
        if comp.inner_for_in is not None:
            self._walk_comp_for(comp.inner_for_in)
        self.ctx.ancestors.pop()

    def _walk_children(self, node: cst.CSTNode) -> None:
        categories = _CATEGORY
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            value_type = type(value)
            if value_type is list or value_type is tuple:
                for item in value:
                    item_type = type(item)
                    category = categories.get(item_type)
                    if category is None:
                        category = _category(item_type)
                    if category == _STATEMENT:
                        self._walk_stmt(item)
                    elif category == _SUITE:
                        self._walk_block(item)
                    elif category:
                        self._walk_expr(item)
                continue
            category = categories.get(value_type)
            if category is None:
                category = _category(value_type)
            if category == _STATEMENT:
                self._walk_stmt(value)
            elif category == _SUITE:
                self._walk_block(value)
            elif category:
                self._walk_expr(value)

    def _handlers_for(self, node_type: type) -> list:
        handlers = self._by_type.get(node_type)
        if handlers is None:
            handlers = self._by_type[node_type] = self.dispatch.get(node_type.__name__, [])
        return handlers

    def _record_call(self, call: cst.Call) -> None:
        func = call.func
        build = class_build(call, self.aliases, self._local_defs, self.module_name)
        if build is not None:
            self.summary.class_builds.append(build)
        qualified = qualify(func, self.ctx.script_facts.aliases)
        if self._current_calls is not None and not in_decorator([*self.ctx.ancestors, call], self.ctx.function):
            calls = self._current_calls
            unscripted = dead_when_scripting([*self.ctx.ancestors, call], self.ctx.function)
            untraced = bool(self.ctx.class_facts and self.ctx.class_facts.off_flags) and off_flag_branch(self.ctx, call)
            if unscripted and untraced:
                calls = None  # no compile path runs it
            elif unscripted:
                calls = self._current_info.unscripted_calls
            elif untraced:
                calls = self._current_info.untraced_calls
            if calls is not None:
                before = len(calls)
                self._record_callee(call, qualified, calls)
                if self.ctx.loop_depth > 0 and calls is not self._current_info.untraced_calls:
                    self._note_loop_call(call, calls[before:])
            self._note_appended(call)
        kind = COMPILE_CALLS.get(qualified or "")
        if kind is not None and call.args:
            target = call.args[0].value
            if type(target) is cst.Call:
                target = target.func
            name = qualify(target, self.ctx.script_facts.aliases)
            if name is not None and not name.startswith("self."):
                self.summary.compile_targets.append((kind, name))


    def _note_loop_call(self, call: cst.Call, recorded: list[tuple[str, str]]) -> None:
        """A call inside a loop: what it calls (where a break makes Dynamo skip the function), and the container
        `self.<attr>` whose element it calls (`for layer in self.layers: layer(x)`, `self.layers[i](x)`)."""
        info = self._current_info
        info.loop_calls.extend(c for c in recorded if c not in info.loop_calls)
        func = call.func
        self._note_element_call(call, recorded)
        attr = None
        if type(func) is cst.Subscript and type(func.value) is cst.Attribute and type(func.value.value) is cst.Name \
                and func.value.value.value == "self":
            attr = func.value.attr.value
        elif type(func) is cst.Name:
            attr = next((v[1] for v in self._current_locals.get(func.value, ()) if v[0] == "attr"), None)
        if attr is None:
            return
        if attr not in info.looped_elements:
            info.looped_elements.append(attr)
        statement = next((a for a in reversed(self.ctx.ancestors) if type(a) is cst.SimpleStatementLine), None)
        assign = statement.body[0] if statement is not None and statement.body else None
        if type(assign) is cst.Assign and attr not in info.chained_elements:  # `x = layer(x)`: fed what the last made
            bound = {n.value for t in assign.targets for n in (t.target.elements if type(t.target) is cst.Tuple
                                                                  else (t.target,)) if type(n) is cst.Name}
            bound |= {e.value.value for t in assign.targets if type(t.target) is cst.Tuple
                      for e in t.target.elements if type(e.value) is cst.Name}
            if bound & {a.value.value for a in call.args if type(a.value) is cst.Name}:
                info.chained_elements.append(attr)

    def _note_element_call(self, call: cst.Call, recorded: list[tuple[str, str]]) -> None:
        """A call in a `for` loop handing the loop's element to a function (`fn(param, shape, module)`), or a
        method of the element (`module.forward_parameters(shape)`): FunctionInfo.element_calls / element_methods."""
        loop = next((a for a in reversed(self.ctx.ancestors) if type(a) is cst.For), None)
        if loop is None:
            return
        targets = loop.target.elements if type(loop.target) is cst.Tuple else (loop.target,)
        names = {t.value.value if type(t) is cst.Element else t.value for t in targets
                 if type(t.value if type(t) is cst.Element else t) is cst.Name}
        info = self._current_info
        func = call.func
        inside = self.ctx.ancestors[:self.ctx.ancestors.index(loop)]
        if recorded and not any(type(a) in (cst.If, cst.Try, cst.While, cst.For, cst.With) for a in
                                inside[inside.index(self.ctx.function) + 1:] if self.ctx.function in inside):
            info.sure_loop_calls.extend(c for c in recorded if c not in info.sure_loop_calls)
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in names:
            if func.attr.value not in info.element_methods:
                info.element_methods.append(func.attr.value)
        elif recorded and any(type(a.value) is cst.Name and a.value.value in names for a in call.args):
            info.element_calls.extend(c for c in recorded if c not in info.element_calls)

    def _note_appended(self, call: cst.Call) -> None:
        """`self.convs.append(GCNConv(...))`, `self.convs.append(self.init_conv(...))`: what the module container
        holds (ClassInfo.elements); the result of a method of `self` is ("self-made", method)."""
        func = call.func
        if (type(func) is not cst.Attribute or func.attr.value not in ("append", "extend", "insert")
                or type(func.value) is not cst.Attribute or type(func.value.value) is not cst.Name
                or func.value.value.value != "self" or not call.args or self.ctx.class_name is None):
            return
        info = self.summary.classes.get(self.ctx.class_name)
        if info is None:
            return
        arg = call.args[-1].value
        if (type(arg) is cst.Call and type(arg.func) is cst.Attribute and type(arg.func.value) is cst.Name
                and arg.func.value.value == "self"):
            values = [("self-made", arg.func.attr.value)]
        else:
            values = self._values(arg)
        if values:
            held = info.elements.setdefault(func.value.attr.value, [])
            held.extend(v for v in values if v not in held)

    def _record_callee(self, call: cst.Call, qualified: str | None, calls: list[tuple[str, str]]) -> None:
        """What scope follows from this call: the callee, and the functions handed to it as arguments."""
        func = call.func
        if type(func) is cst.Attribute:
            owner, method = func.value, func.attr.value
            if type(owner) is cst.Name and owner.value == "self":
                calls.append(("self", method))
            elif type(owner) is cst.Attribute and type(owner.value) is cst.Name and owner.value.value == "self":
                calls.append(("attr", f"{owner.attr.value}.{method}"))  # self.decoder.decode(x)
            elif type(owner) is cst.Call and type(owner.func) is cst.Name and owner.func.value == "super":
                calls.append(("super", method))
            elif type(owner) is cst.Name and owner.value in self._current_locals:
                for value in self._current_locals[owner.value]:  # an element of self.<attr>: its class's method
                    calls.append(("attr", f"{value[1]}.{method}") if value[0] == "attr" else value_call(value, method))
            elif type(owner) is cst.Call:  # Decoder(cfg).decode(x)
                calls.extend(value_call(v, method) for v in self._values(owner))
            elif qualified is not None:
                calls.append(("name", qualified))
        elif type(func) is cst.Name and func.value in self._current_locals:
            calls.extend(value_call(v, "") for v in self._current_locals[func.value])
        elif type(func) is cst.Subscript:  # ACTS[cfg.act](x)
            calls.extend(value_call(v, "") for v in self._values(func))
        elif qualified is not None:
            calls.append(("name", qualified))
        # A function handed over (`apply(x, fn=helper)`, `checkpoint(self.block_fn, x)`) runs where the callee
        # calls it; TorchScript takes no function arguments, so it reaches every other compile path.
        if calls is self._current_info.untraced_calls:
            return
        handed = self._current_info.unscripted_calls
        for arg in call.args:
            value = arg.value
            kind = type(value)
            if kind is cst.Name:
                if value.value in self._current_locals:
                    handed.extend(value_call(v, "") for v in self._current_locals[value.value] if v[0] != "new")
                elif value.value in self._local_defs or value.value in self.aliases:
                    handed.extend(value_call(v, "") for v in self._values(value))
            elif kind is cst.Attribute and type(value.value) is cst.Name and value.value.value == "self":
                handed.append(("self", value.attr.value))


def _def_lines(tree: ast.Module) -> dict[str, int]:
    """The `def` line of each top-level function and method ("f", "Cls.m"), from Python's own parse."""
    lines: dict[str, int] = {}
    stack: list[tuple[str, ast.AST]] = [("", stmt) for stmt in tree.body]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines.setdefault(prefix + node.name, node.lineno)
        elif isinstance(node, ast.ClassDef) and not prefix:
            stack.extend((f"{node.name}.", stmt) for stmt in node.body)
        elif isinstance(node, (ast.If, ast.Try)) and not prefix:
            stack.extend(("", stmt) for stmt in [*node.body, *node.orelse, *getattr(node, "finalbody", ()),
                                                 *(s for h in getattr(node, "handlers", ()) for s in h.body)])
    return lines


def module_name_for(path: str, root: str | None = None) -> tuple[str, bool]:
    """Dotted module name from the package chain (directories with __init__.py) above `path`."""
    import os

    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        parts.append(pkg)
        if not pkg:
            break
    return ".".join(reversed(parts)) or stem, is_package


def analyze_source(path: str, source: bytes, rules: list[Rule], module_name: str | None = None,
                   is_package: bool = False, all_positions: bool = True,
                   blank: frozenset[str] = frozenset()) -> FileResult:
    """Parse and analyze one file's bytes. Never raises for bad user input.

    With all_positions=False, findings in functions that no compile path reaches *within this file*
    get no position (line 0): most are dropped by scope later, and positions cost about as much as
    the parse. The engine re-analyzes the few files where such a finding turns out to be in scope.

    `blank`: the top-level functions, methods ("f", "Cls.m") and module-level assignments ("=name") that no compile
    path reaches (compilelint/analysis/unreached.py): the nodes built from Python's tree (analysis/ast_cst.py) leave
    them out, every other line in its place; what Python's own tree tells (call sites, custom ops, class builds) is
    read from the whole file. The result names the functions left out (`FileResult.blanked`). A file the builder
    cannot stand in for (a fix, a construct it does not build) is analyzed whole, on LibCST's parse.
    """
    if module_name is None:
        module_name, is_package = module_name_for(path)
    # Python's own parse first: linear, guarded, shared by the semantic model and positions, and it tells
    # what LibCST's native parser, which nothing interrupts, must not be handed (compilelint/parse_guard.py)
    parsed = parse_python(source)
    limit = too_complex(source, parsed)
    if limit is not None:
        return _too_complex(path, *limit)
    tree = parsed.tree
    if BUILD_FROM_AST and tree is not None:
        result = _analyze_built(path, source, tree, blank, rules, module_name, is_package, all_positions)
        if result is not None:
            return result
        # (mostly a file with a fix: positioning all its findings now costs less than a second analysis later)
        all_positions = True
    reindented = None
    try:
        module = _parse_cst(source)
    except cst.ParserSyntaxError as err:
        # Python accepted the file: if it mixes tabs and spaces, LibCST may only be stricter about indentation
        reindented = reindent_tabs(source) if tree is not None and b"\t" in source else None
        module = _parse_cst_or_none(reindented.source) if reindented is not None else None
        if module is None:
            return _syntax_error(path, err.raw_line, err.raw_column,
                                 str(err).splitlines()[0] if str(err) else "syntax error")
        source, tree = reindented.source, parse_python(reindented.source).tree
    except (RecursionError, MemoryError) as err:
        return _syntax_error(path, 1, 0, f"file is too deeply nested or too large to parse ({type(err).__name__})")
    except Exception as err:  # LibCST raises a few other errors on odd bytes (e.g. encodings)
        return _syntax_error(path, 1, 0, f"cannot parse: {type(err).__name__}: {err}")
    try:
        analyzer, findings = _walk(path, module, source, tree, rules, module_name, is_package, all_positions)
    except RecursionError:
        return _too_complex(path, 1, "nested too deeply for the analysis (RecursionError)")
    if reindented is not None:
        restore_columns(findings, reindented.shift)
    return FileResult(path=path, summary=analyzer.summary, findings=findings)


# Whether the analysis reads LibCST nodes built from Python's tree (analysis/ast_cst.py) rather than LibCST's parse;
# the report is the same either way (tests/test_ast_cst.py), only the time differs.
BUILD_FROM_AST = True


def _analyze_built(path: str, source: bytes, tree: ast.Module, blank: frozenset[str], rules: list[Rule],
                   module_name: str, is_package: bool, all_positions: bool) -> FileResult | None:
    """analyze_source on nodes built from Python's `tree`; None where LibCST's parse is needed: a construct the
    builder does not build, a finding on a node it does not place, a fix (its text is printed from nodes)."""
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old_limit, 20000))  # as deep as the walk may go (_walk)
        built = _build_cst(source, tree, blank)
    except Unsupported:
        return None
    finally:
        sys.setrecursionlimit(old_limit)
    try:
        analyzer, findings = _walk(path, built.module, source, tree, rules, module_name, is_package, all_positions,
                                   built)
    except RecursionError:
        return None
    if findings is None:
        return None
    return FileResult(path=path, summary=analyzer.summary, findings=findings,
                      blanked=tuple(f"{module_name}:{key}" for key, _, _ in built.blanked if not key.startswith("=")))


def _walk(path: str, module: cst.Module, source: bytes, tree: "ast.Module | None", rules: list[Rule], module_name: str,
          is_package: bool, all_positions: bool, built: Built | None = None,
          ) -> tuple[FileAnalyzer, list[tuple[Finding, str, bool]] | None]:
    """The analysis of a parsed file and its findings, with room on the stack for deep trees (RecursionError passes).
    Findings None: a module `built` from Python's tree cannot place them (_to_findings)."""
    analyzer = FileAnalyzer(path, module_name, is_package, _rules_for(rules, source))
    analyzer.built = built
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old_limit, 20000))
        analyzer.run(module, source, tree)
        # (positions generate the code of deep statements, which recurses as deep as the analysis did)
        return analyzer, _to_findings(path, module, source, analyzer, all_positions, tree, built)
    finally:
        sys.setrecursionlimit(old_limit)


def _rules_for(rules: list[Rule], source: bytes) -> list[Rule]:
    """The rules whose `file_gate` this source passes (a rule that needs a name the file never writes costs
    nothing there: no visit of it on any node)."""
    if not any(rule.file_gate is not None for rule in rules):
        return rules
    return [rule for rule in rules if rule.file_gate is None or any(token in source for token in rule.file_gate)]


def _parse_cst(source: bytes) -> cst.Module:
    # the seams the robustness tests replace (a parser that crashes or stalls on a marker), in this module
    return parse_cst(source)


def _build_cst(source: bytes, tree: ast.Module, blank: frozenset[str]) -> Built:
    return build_module(source, tree, blank)


def _parse_cst_or_none(source: bytes) -> cst.Module | None:
    try:
        return _parse_cst(source)
    except Exception:  # noqa: BLE001 - the original file's error is the one reported
        return None


def _too_complex(path: str, line: int, reason: str) -> FileResult:
    finding = Finding(code=TOO_COMPLEX, message=f"file not analyzed: {reason}", path=path, line=max(line, 1), col=0,
                      end_line=max(line, 1), end_col=0, severity="error")
    return FileResult(path=path, summary=None, findings=[(finding, "", True)])


def _syntax_error(path: str, line: int, col: int, message: str) -> FileResult:
    finding = Finding(code=SYNTAX_ERROR, message=f"SyntaxError: {message}", path=path, line=max(line, 1),
                      col=max(col, 0), end_line=max(line, 1), end_col=max(col, 0), severity="error")
    return FileResult(path=path, summary=None, findings=[(finding, "", True)])


def _locally_compiled(summary: FileSummary) -> set[str]:
    """Keys of this file's functions/classes that a compile path reaches from entry points in this file."""
    from compilelint.analysis.scope import DYNAMO_ENTRY, SCRIPT_ENTRY

    entry_decorators = DYNAMO_ENTRY | SCRIPT_ENTRY
    reached: set[str] = set()
    queue: list[tuple[str | None, FunctionInfo]] = []
    for cls in summary.classes.values():
        if cls.bases:  # may be an nn.Module: its class-level findings and forward are compiled
            reached.add(cls.key)
            for method in cls.methods.values():
                if method.name == "forward" or set(method.decorators) & entry_decorators:
                    queue.append((cls.name, method))
    local_targets = {name for _, name in summary.compile_targets}
    for fn in summary.functions.values():
        if set(fn.decorators) & entry_decorators or fn.name in local_targets:
            queue.append((None, fn))
    for cls in summary.classes.values():
        if cls.name in local_targets and "forward" in cls.methods:
            queue.append((cls.name, cls.methods["forward"]))
    while queue:
        owner, fn = queue.pop()
        if fn.key in reached:
            continue
        reached.add(fn.key)
        for kind, name in fn.calls:
            if kind == "self" and owner is not None and name in summary.classes[owner].methods:
                queue.append((owner, summary.classes[owner].methods[name]))
            elif kind == "name" and name in summary.functions:
                queue.append((None, summary.functions[name]))
    return reached


def python_ast(source: bytes) -> "ast.Module | None":
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _to_findings(path: str, module: cst.Module, source: bytes, analyzer: FileAnalyzer,
                 all_positions: bool = True, tree: "ast.Module | None" = None, built: Built | None = None,
                 ) -> list[tuple[Finding, str, bool]] | None:
    anywhere = {r.code for r in analyzer.rules if r.applies_to == "anywhere"}
    module_key = f"{analyzer.module_name}:<module>"
    # Module-level code is never compiled: only rules that apply anywhere report there.
    candidates = [c for c in analyzer.candidates if c.rule in anywhere or c.scope_key != module_key]
    if not candidates:
        return []
    deferred: set[int] = set()
    if not all_positions:
        local = _locally_compiled(analyzer.summary)
        deferred = {id(c) for c in candidates if c.rule not in anywhere and c.scope_key not in local}
    positioned = [c for c in candidates if id(c) not in deferred]
    nodes = [c.node for c in positioned] + [n for c in positioned for n, _ in c.related]
    if built is not None:
        positions = _built_positions(built, source, positioned, nodes)
        if positions is None:
            return None
        return _placed(path, module, source, candidates, deferred, anywhere, positions, {})
    fix_spans: dict[int, tuple[int, int, int, int]] = {}
    members: dict[int, set[int]] = {}
    for c in positioned:
        members.setdefault(c.statement, set()).add(c.member)
    positions = positions_of(module, nodes, {c.statement for c in positioned},
                             inclusive=[c.fix[0] for c in positioned if c.fix], inclusive_out=fix_spans,
                             starts=statement_lines(module, source, tree) if positioned else None,
                             members=members, tree=tree)
    return _placed(path, module, source, candidates, deferred, anywhere, positions, fix_spans)


def _built_positions(built: Built, source: bytes, positioned: list[Candidate], nodes: list[cst.CSTNode]
                     ) -> dict[int, tuple[int, int, int, int]] | None:
    """LibCST's positions of `nodes` from a built module's spans; None where one has none or a finding has a fix."""
    if any(c.fix is not None for c in positioned):
        return None
    positions = {}
    for node in nodes:
        span = built.spans.get(id(node))
        if span is None:
            return None
        line, col, end_line, end_col = span
        positions[id(node)] = (line, built.column(source, line, col), end_line, built.column(source, end_line, end_col))
    return positions


def _placed(path: str, module: cst.Module, source: bytes, candidates: list[Candidate], deferred: set[int],
            anywhere: set[str], positions: dict[int, tuple[int, int, int, int]], fix_spans: dict[int, tuple[int, int, int, int]],
            ) -> list[tuple[Finding, str, bool]]:
    """The findings of `candidates` at `positions` (deferred ones at line 0), less those suppressed in the source."""
    text = source.decode(module.encoding, errors="replace")
    lines = text.splitlines()
    suppressions = Suppressions.from_lines(lines)
    out = []
    for c in candidates:
        if id(c) in deferred:  # line 0: "position not computed"; the engine re-analyzes if it is kept
            out.append((Finding(code=c.rule, message=c.message, path=path, line=0, col=0, end_line=0, end_col=0,
                                severity=c.severity, targets=c.targets, gb_id=c.gb_id, context=c.context,
                                pending=c.pending),
                        c.scope_key, False))
            continue
        line, col, end_line, end_col = positions.get(id(c.node), (1, 0, 1, 0))
        if suppressions.suppressed(c.rule, line, end_line):
            continue
        fix = None
        if c.fix is not None:
            old, new, description, safe = c.fix
            fl, fc, fel, fec = fix_spans[id(old)]
            replacement = replacement_in_place(module, old, new, span_text(lines, fl, fc, fel, fec),
                                                lines[fl - 1] if 0 < fl <= len(lines) else "")
            if replacement is not None:
                fix = Fix(description, fl, fc, fel, fec, replacement, safe)
        source_line = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        related = [Related(positions[id(n)][0], positions[id(n)][1], text) for n, text in c.related
                   if id(n) in positions]
        finding = Finding(code=c.rule, message=c.message, path=path, line=line, col=col, end_line=end_line,
                          end_col=end_col, severity=c.severity, targets=c.targets, gb_id=c.gb_id,
                          context=c.context, source_line=source_line, fix=fix, related=related,
                          pending=c.pending)
        out.append((finding, c.scope_key, c.rule in anywhere))
    return out
