"""Which compile mode runs a line, where a compiled frame begins, and what keeps Dynamo out."""

from __future__ import annotations

from compilelint.torchapi import Names

# True while Dynamo traces (a constant it folds: the other side of `if torch.compiler.is_compiling():` is never
# traced). A library's wrapper of one of these, named the same (`kornia.core.utils.is_compiling`), folds alike.
IS_COMPILING = Names({"torch.compiler.is_compiling", "torch._dynamo.is_compiling", "torch.compiler.is_dynamo_compiling",
                      "torch._utils.is_compiling", "torch._dynamo.external_utils.is_compiling"},
                     verified_on=("2.13",))

# True while torch.export.export(strict=False) traces; is_dynamo_compiling() is False there.
IS_EXPORTING = Names((IS_COMPILING - {"torch.compiler.is_dynamo_compiling"}) | {"torch.compiler.is_exporting"},
                     verified_on=("2.13",))

# True while torch.jit.trace records.
IS_TRACING = Names({"torch.jit.is_tracing", "torch._C._get_tracing_state"}, verified_on=("2.13",))

# Decorators that make a function the entry of a compiled frame: Dynamo guards on its arguments there.
COMPILE_ENTRIES = Names({"torch.compile", "torch._dynamo.optimize"}, verified_on=("2.13",))

# Decorators that keep Dynamo out of a function: calling it from compiled code breaks the graph (GB0098).
DYNAMO_DISABLE = Names({"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo"},
                       verified_on=("2.13",))

# Dynamo's config module, as module-level assignments name it (`torch._dynamo.config.capture_scalar_outputs = True`).
DYNAMO_CONFIG = "torch._dynamo.config."
