"""Helpers shared by the recompile rules (no rule here)."""
from __future__ import annotations

ENTRY_DECORATORS = {"torch.compile", "torch._dynamo.optimize"}


def is_frame_entry(ctx) -> bool:  # noqa: ANN001
    """Whether the function being walked is where callers hand arguments to a compiled frame.

    Dynamo guards on the arguments of the frame it compiles: a module's `forward` or a `@torch.compile`
    function. A helper that forward calls is inlined, and gets its arguments as constants from that call
    site (`F.interpolate(x, mode="bilinear")`), so a varying argument is only a hazard at the entry.
    """
    fn = ctx.function
    if fn is None:
        return False
    if ctx.class_node is not None and fn.name.value == "forward":
        return True
    return any(d in ENTRY_DECORATORS for d in ctx.decorators)
