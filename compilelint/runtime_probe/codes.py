"""Runtime-only finding codes: what torch did that no static finding predicted (or a target that failed)."""

from __future__ import annotations

# code -> (name, description); severity in SEVERITY
RUNTIME_CODES: dict[str, tuple[str, str]] = {
    "RT001": ("probe-target-failed", "The probe could not finish this target: the factory or the model raised, "
                                     "the child process crashed, hung past the timeout, or ran out of memory."),
    "RT101": ("script-failure-not-predicted", "torch.jit.script rejected this code and no static rule predicted it."),
    "RT301": ("trace-warning-not-predicted", "torch.jit.trace warned here (TracerWarning) and no static rule "
                                             "predicted it: the trace may not generalize to other inputs."),
    "RT302": ("trace-divergence-not-predicted", "The traced model's output differs from eager on another input "
                                                "set, and no static rule predicted it."),
    "RT401": ("graph-break-not-predicted", "Dynamo broke the graph here and no static rule predicted it."),
    "RT402": ("frame-skipped-not-predicted", "Dynamo gave up on this whole frame and ran it eagerly, and no static "
                                             "rule predicted it."),
    "RT501": ("recompile-not-predicted", "Dynamo recompiled because a guard on this line's value failed between "
                                         "calls, and no static rule predicted it."),
    "RT601": ("export-failure-not-predicted", "torch.export.export failed here and no static rule predicted it."),
}
SEVERITY = {"RT001": "error"}
