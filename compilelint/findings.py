"""The finding: what every rule produces and every reporter consumes."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

# The compile paths a finding can affect. `recompile` is Dynamo paying compilation again.
TARGETS = ("torchscript", "trace", "dynamo", "export", "recompile")
SEVERITIES = ("error", "warning", "note")

# Probe states (the runtime probe fills these in; static mode leaves "unverified").
UNVERIFIED = "unverified"
CONFIRMED = "confirmed"
NOT_REPRODUCED = "not-reproduced"
NOT_EXERCISED = "not-exercised"
RUNTIME_ONLY = "runtime-only"


@dataclass
class Fix:
    """A replacement of the source span [start, end) (1-based lines, 0-based columns) by `text`."""

    description: str
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    text: str
    safe: bool = True


@dataclass
class Related:
    """Another place of the same finding: where a frozen value froze, where it takes effect (1-based line)."""

    line: int
    col: int
    message: str
    path: str = ""  # another file's (a finding's scope: the entry point that reaches it); "" for its own


@dataclass
class Finding:
    code: str
    message: str
    path: str
    line: int
    col: int  # 0-based, as LibCST gives it; reporters print col + 1
    end_line: int
    end_col: int
    severity: str = "warning"
    targets: tuple[str, ...] = ()
    gb_id: str | None = None
    context: str = ""  # the enclosing function, e.g. "Head.forward"
    source_line: str = ""  # the stripped text of `line`, used for line-move-proof fingerprints
    fix: Fix | None = None
    probe_state: str = UNVERIFIED
    evidence: list[str] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)
    # Why its code is compiled: the entry point, then each function called on the way to the finding's function
    reached_from: list[Related] = field(default_factory=list)
    # The findings of rules for other targets about the same construct at the same node, shown with this one as
    # one result (compilelint/report/merge.py); empty as the rules report them
    also: list[Finding] = field(default_factory=list)
    # Data a `tree_facts` rule hands from its visit to its `settle` (JSON text the rule writes; settle clears it):
    # never shown (to_dict drops it) and no part of the fingerprint. The message is only ever the message.
    pending: str = ""

    @property
    def codes(self) -> tuple[str, ...]:
        return (self.code, *(f.code for f in self.also))

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.code, self.message)

    def fingerprint(self) -> str:
        """Stable across unrelated edits: no line numbers, only what the finding is about."""
        text = "\0".join((self.code, self.path, self.context, self.source_line))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def to_dict(self) -> dict:
        d = asdict(self)
        _drop_pending(d)
        d["targets"] = list(self.targets)
        d["fingerprint"] = self.fingerprint()
        return d


def _drop_pending(d: dict) -> None:
    d.pop("pending", None)
    for other in d.get("also", ()):
        _drop_pending(other)
