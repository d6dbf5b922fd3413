"""The rule framework: a rule is one small class in one file, with its docs and examples beside it.

A rule declares which node types it looks at by defining `visit_<NodeType>(self, node, ctx)`
methods (LibCST node class names: `visit_Call`, `visit_If`, ...). The analyzer walks each compiled
function once and calls every rule interested in each node; rules read shared facts from `ctx`
(`ctx.facts` for tensor kinds, `ctx.class_facts`, `ctx.qualify`, `ctx.ancestors`, `ctx.loop_depth`)
and never re-derive them. `ctx.report(node)` records a finding at that node.

Examples are the rule's proof: every bad example must be flagged (on the lines marked `# <-`) and
must fail under real torch for the rule's targets; every good example must be clean and pass.
See tests/test_rule_examples.py for the harness.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext

MARKER = "# <-"


def brief(code: str, width: int = 28) -> str:
    """Code named in a message: its first line, cut to `width` characters (messages stay near 80)."""
    lines = code.strip().splitlines() or [""]
    text = lines[0].strip()
    if len(text) > width or len(lines) > 1:
        text = text[:width - 1].rstrip() + "…"
    return text


MAX_MESSAGE = 80  # ruff's messages run about 40 characters; ours name code, so twice that at most
_SHORTEST_NAME = 12


def fit_message(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` within `limit` characters where the code it names (between backticks) is long: the longest name
    is cut first (`brief`), none below 12 characters, and the prose is never cut. A message whose names are
    already short is returned as it is, however long."""
    while len(text) > limit:
        spans = [(m.end() - m.start(), m.start(), m.end()) for m in re.finditer(r"`[^`\n]+`", text)]
        if not spans:
            break
        _, start, end = max(spans)
        name = text[start + 1:end - 1]
        if len(name) <= _SHORTEST_NAME:
            break
        keep = max(_SHORTEST_NAME, len(name) - (len(text) - limit))
        text = text[:start + 1] + name[:keep - 1].rstrip() + "…" + text[end - 1:]
    return text


@dataclass(frozen=True)
class Example:
    """A snippet that defines `entry` (an nn.Module class built with no arguments, or a function).

    `inputs` is a Python expression, evaluated after the snippet with `torch` in scope, giving a
    list of argument tuples: the first is the example input, the rest are the "other inputs" that
    show a frozen trace or a recompile. `check` overrides how the harness proves the claim for this
    example (for instance "script-call" for failures TorchScript only raises when called, "trace-eval" to
    trace the module after `.eval()`, as the snippet itself does). `min_torch` / `max_torch` mark an example whose
    verdict holds only from / up to that torch release. `gb_id`: the Dynamo id this bad example breaks with, where
    the rule's detector gives this construct another id than the rule's `gb_id` (GB440: `with lock` GB0142,
    `lock.acquire()` GB0156).
    """

    code: str
    inputs: str = "[(torch.randn(2, 3),), (torch.randn(4, 3),)]"
    entry: str = "M"
    check: str = ""
    note: str = ""
    # The oldest torch on which this example's verdict was seen to hold, where older releases differ (the
    # rule's version_note says how); the test suite skips the example's torch check on older torch.
    min_torch: str = ""
    # The newest torch on which it was seen to hold (an example of a rule about older releases).
    max_torch: str = ""
    gb_id: str = ""
    # What the example needs beyond CPU torch to be judged: "cxx" (a C++ compiler and ninja, to build a
    # torch.utils.cpp_extension), "cuda" (a CUDA GPU: Triton kernels). Without it the harness skips its torch check.
    needs: str = ""

    def marked_lines(self) -> list[int]:
        return [i for i, line in enumerate(self.code.splitlines(), 1) if line.rstrip().endswith(MARKER)]


@dataclass(frozen=True)
class RuleDoc:
    what: str
    why: str
    example: str
    use_instead: str
    # ruff's "Fix safety": why the fix is safe, unsafe, or why there is none (rendered where given).
    fix_safety: str = ""


class Rule:
    code: ClassVar[str] = ""
    name: ClassVar[str] = ""  # kebab-case, e.g. "tensor-item-graph-break"
    family: ClassVar[str] = ""  # "torchscript", "annotations", "trace", "graph-break", "recompile", "export", "custom-op"
    targets: ClassVar[tuple[str, ...]] = ()
    severity: ClassVar[str] = "warning"
    message: ClassVar[str] = ""
    # Dynamo's id for the graph break this rule predicts (GB rules), from graph_break_registry.json.
    gb_id: ClassVar[str | None] = None
    # GB rules that predict no graph break but Dynamo failing outright (InternalTorchDynamoError: the compiled
    # call raises): no gb_id; their examples are judged by where the error points (check "dynamo-error").
    dynamo_error: ClassVar[bool] = False
    # RC rules reported at a graph break whose resume function (`torch_dynamo_resume_in_<fn>_at_<line>`) is the
    # frame that recompiles: the probe confirms them from a recompile of the resume function of that line.
    claims_resume_frame: ClassVar[bool] = False
    # The id an older torch gives the same break on the same line, where its registry differs
    # ({"2.11": "GB0007"}): the probe confirms the finding with it there (`confirming_gb_ids`).
    older_gb_ids: ClassVar[dict[str, str]] = {}
    # Other ids Dynamo gives the same construct where the detector cannot tell which (GB402's `.tolist()`: GB0109
    # for float tensors, GB0033 for integer ones): a break at the line with one of them confirms the finding too.
    also_gb_ids: ClassVar[tuple[str, ...]] = ()
    # What its findings are about (compilelint.semantic.constructs.Construct), where that is one construct: a
    # finding of a rule for another target that names the same construct at the same node is reported with it,
    # as one result (compilelint/report/merge.py). None: its findings stand alone.
    construct: ClassVar[str | None] = None
    # "compiled": only code that a compile path reaches; "anywhere": every line of the file.
    applies_to: ClassVar[str] = "compiled"
    # The torch versions the claim was verified on, and where it is known to differ.
    verified_on: ClassVar[str] = "2.13"
    version_note: ClassVar[str] = ""
    # The torch versions for which the claim holds ("2.6" style, inclusive); None: no bound known.
    # A project's `torch-version` outside the range turns the rule off.
    min_torch: ClassVar[str | None] = None
    max_torch: ClassVar[str | None] = None
    # The newest Python ("3.11" style) the claim holds on, where Python itself changes what torch sees (3.12
    # inlines comprehensions): newer, the rule is off. Judged by the Python compilelint runs on, which is the
    # project's own in a venv or CI job.
    max_python: ClassVar[str | None] = None
    # Runs only when its own code is selected (`select = ["TR315"]`), never through "ALL" or a prefix: a claim
    # real torch does not show on the real-world models' inputs (benchmarks/realworld), kept for who asks.
    opt_in: ClassVar[bool] = False
    # "high" / "medium" / "low", as SARIF's properties.precision.
    precision: ClassVar[str] = "high"
    has_fix: ClassVar[bool] = False
    # Export rules: torch's error for a bad example must contain one of these (tests/harness.py).
    torch_error: ClassVar[tuple[str, ...]] = ()
    # Export rules: False where torch's error names no line of the user's code (raised after tracing, about
    # the whole program): the harness then checks a bad example by the error text alone.
    torch_names_line: ClassVar[bool] = True
    # The calls this rule's visit_Call can report on (compilelint.analysis.calls.CallGate); the analyzer
    # skips its visit_Call for every other call. None: every call.
    call_gate: ClassVar[Any] = None
    # Byte strings one of which a file's source must hold for this rule to report anything there (a name its
    # trigger needs: `(b"environ", b"getenv")`; a qualified name's every part is written in the file, in the
    # call or in its import). The analyzer leaves the rule out of every other file. None: every file.
    file_gate: ClassVar[tuple[bytes, ...] | None] = None
    # For a rule that reports anywhere: words (identifiers) one of which every function it can report in writes,
    # in its decorators, signature or body (a method: or its class's header). The engine hands LibCST the
    # bodies of functions no compile path reaches only where they write none of these (analysis/unreached.py).
    # None: any function; then no body is left out while the rule is selected.
    body_gate: ClassVar[frozenset[str] | None] = None
    doc: ClassVar[RuleDoc | None] = None
    # Claims that hang on another file's facts (the custom-op rules: is this op's fake registered anywhere in the
    # tree?): after every file is indexed, the engine hands each finding to `settle` with the RepoIndex and scope.
    tree_facts: ClassVar[bool] = False
    # A `tree_facts` rule that asks which functions TorchScript rejects (`index.script_failures` in `settle`): the
    # engine then also runs every rule whose error `torch.jit.script` raises while compiling (`fails_while_scripting`),
    # whether selected or not, and reports only the selected ones' findings.
    uses_script_failures: ClassVar[bool] = False
    # A `tree_facts` rule that asks where Dynamo breaks the graph in the tree (`index.graph_breaks` in `settle`: function
    # key -> its first graph-break finding): the engine then also runs every graph-break rule.
    uses_graph_breaks: ClassVar[bool] = False
    bad: ClassVar[tuple[Example, ...]] = ()
    good: ClassVar[tuple[Example, ...]] = ()

    @classmethod
    def fails_while_scripting(cls) -> bool:
        """Whether `torch.jit.script` itself raises this rule's error (every TS rule; an annotation rule whose
        bad examples fail when scripted, not when the scripted object runs)."""
        if cls.uses_script_failures:
            return False  # a rule about calls into such code (TS170): not itself the callee's failure
        return cls.family == "torchscript" or (cls.family == "annotations" and bool(cls.bad)
                                               and all(e.check in ("", "script") for e in cls.bad))

    @classmethod
    def confirming_gb_ids(cls, gb_id: str | None) -> frozenset[str] | None:
        """The Dynamo ids of a break at a finding's line that confirm it (the runtime probe): the finding's own
        `gb_id`, the rule's `also_gb_ids` and `older_gb_ids`; None: any break there does."""
        return frozenset(i for i in (gb_id, cls.gb_id, *cls.also_gb_ids, *cls.older_gb_ids.values()) if i)

    @classmethod
    def settle(cls, finding: Any, index: Any, scope: Any) -> Any:
        """For `tree_facts` rules: the finding as the whole tree decides it (its message completed, as a copy with
        `pending` cleared: the engine may settle the same finding again), or None to drop it. What the visit found
        comes in `finding.pending` (the JSON text given to `ctx.report(..., pending=...)`). Reads the index (compilelint/analysis/index.py `RepoIndex`; `index.script_failures`: function
        key -> the first finding of a `fails_while_scripting` rule in it, for `uses_script_failures` rules) and the
        scope (function key -> the compile paths that reach it); never walks files itself."""
        return finding

    def begin_function(self, ctx: "RuleContext") -> None:
        """Called before the walk of each compiled function; reset per-function state here."""

    def end_function(self, ctx: "RuleContext") -> None:
        """Called after the walk of each function."""


@dataclass
class RuleMeta:
    """Plain data about a rule, for reporters and docs (no class objects cross process boundaries)."""

    code: str
    name: str
    family: str
    targets: tuple[str, ...]
    severity: str
    message: str
    gb_id: str | None
    precision: str
    has_fix: bool
    verified_on: str
    version_note: str
    doc: RuleDoc | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def of(cls, rule: type[Rule]) -> "RuleMeta":
        return cls(rule.code, rule.name, rule.family, tuple(rule.targets), rule.severity, rule.message,
                   rule.gb_id, rule.precision, rule.has_fix, rule.verified_on, rule.version_note, rule.doc)
