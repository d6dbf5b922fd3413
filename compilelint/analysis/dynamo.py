"""Dynamo facts shared by the graph-break (GB) rules.

Two kinds of facts live here:

* `ModuleFacts`: what a file sets up at module level that changes Dynamo's verdicts
  (`torch._dynamo.config.capture_scalar_outputs`, `capture_dynamic_output_shape_ops`,
  `reorderable_logging_functions`), which of its functions are `@torch.compiler.disable`d, which
  module-level names are `logging.Logger`s, and (for the export rules) which of its classes are
  dataclasses and which are registered with torch's pytree (so export accepts them as outputs).
* `BREAKS`: one detector per graph-break construct, each `(node, ctx) -> gb_id | None`, checked on
  torch 2.13 (see each GB rule's examples). A GB rule calls its own detector; GB410 (graph break in
  a loop) calls all of them, so the two never disagree about what breaks.

No rule logic or messages here; only "does this node break the graph, and with which Dynamo id".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import libcst as cst

from compilelint.analysis.calls import CallGate, gate
from compilelint.analysis.names import qualify
from compilelint.analysis.tensors import Kind
from compilelint.semantic.module_facts import ModuleFacts  # noqa: F401
from compilelint.semantic.calls import argument as _arg, call_name, one_hot_without_num_classes, tensor_method as _tensor_method  # noqa: F401
from compilelint.semantic.frames import carried_values, closure_names as _closure_names, dynamic_size as _dynamic_size, is_frame_entry, is_parameter as _is_param, loop_count_before as _loop_count_before, mentions_dynamic_size as _mentions_size, message_of_equality_assert as _message_of_equality_assert, number_argument, reaches_entry_values, runtime_kind  # noqa: F401
from compilelint.semantic.paths import built_only_on_failure as _only_on_failure, dead_under_dynamo, dead_under_export, dead_under_trace, off_flag_branch  # noqa: F401
from compilelint.semantic.attributes import dict_attribute as _self_dict, seeded_generator_attrs as _seeded_generator_attrs, self_attrs_kept_bounded  # noqa: F401
from compilelint.semantic.breaks import condition_reads_tensor, condition_reads_tensor as _condition_breaks  # noqa: F401
from compilelint.torchapi.dynamo import THREAD_LOCKS, CHECK_MESSAGE_POSITION, ARRAY_TO_PYTHON as _ARRAY_TO_PYTHON, ARRAY_DYNAMIC_SIZE as _ARRAY_DYNAMIC, UNTRACEABLE_NUMPY, PACKED_SEQUENCE, LOGGER_METHODS as _LOGGER_METHODS, TIME_FUNCTIONS as _TIME, DATETIME_NOW as _DATETIME, RANDOM_FUNCTIONS as _RANDOM, NUMPY_RANDOM_SIZE_AT as _NP_RANDOM_SIZE_AT, C_BUILTINS as _C_BUILTINS, JSON_FUNCTIONS as _JSON, FILESYSTEM_FUNCTIONS as _FS, TORCH_GLOBAL_STATE as _TORCH_IO, TORCH_THREADS as _TORCH_THREADS, STD_STREAMS as _STD_STREAMS, RNN_MODULES as _RNN  # noqa: F401
from compilelint.torchapi.export import PYTREE_REGISTER as _PYTREE_REGISTER  # noqa: F401
from compilelint.torchapi.modes import DYNAMO_CONFIG as _CONFIG, DYNAMO_DISABLE as _DISABLE, COMPILE_ENTRIES as ENTRY_DECORATORS, IS_COMPILING as _IS_COMPILING, IS_EXPORTING as _IS_EXPORTING, IS_TRACING as _IS_TRACING  # noqa: F401
from compilelint.torchapi.shapes import DYNAMIC_OUTPUT_FUNCTIONS as _DYNAMIC_FUNCS, DYNAMIC_OUTPUT_METHODS as _DYNAMIC_METHODS, NO_META_FUNCTIONS as NO_META_FUNCS, ONE_HOT, SIZE_ARGUMENT_FUNCTIONS as _SIZE_FUNCS, STEPS_FUNCTIONS as _STEPS_FUNCS, SIZE_ARGUMENT_METHODS as _SIZE_METHODS, SPECIALISED_PARAMS, SPECIALISED_METHOD_PARAMS  # noqa: F401

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext

# registering a class as a pytree node (a call with the class first, or a class decorator)


# threading's synchronisation primitives. Verified on 2.13: `with lock:` in compiled code makes Dynamo skip the
# whole function (GB0142, "Unsupported context manager"; building one in place, `with threading.Lock():`, breaks
# first with GB0007); `lock.acquire()` / `lock.release()` break the graph (GB0156, "Unsupported method call").








# -- helpers on calls ---------------------------------------------------------------------------------























# -- what a compiled entry hands its helpers ------------------------------------------------------------------
# Dynamo inlines the methods `forward` calls, so a number argument, an input size or an input tensor passed on
# to `self._helper(...)` is just as symbolic there (verified on 2.13: an int argument formatted in a helper
# GB0021, steps of linspace there, sizes in its f-string, NumPy on them, torch.as_tensor of them: each
# recompiled per value as at the entry). Worked out once per class, syntactically, from the entries outward.

































def formatted_size(node: cst.FormattedString, ctx: "RuleContext") -> cst.BaseExpression | None:
    """The first plain field (no format spec, no conversion) of an f-string in a compiled frame's entry that
    holds a tensor size (`{x.shape[0]}`, `{x.size(-1)}`, `{x.numel()}`, `{h}` from `h, w = x.shape[-2:]`),
    not a module attribute's. Dynamo specialises a size formatted so: every distinct size recompiles
    (verified on 2.13: five sizes, four recompiles; one without the f-string, then a dynamic graph)."""
    if not reaches_entry_values(ctx) or _only_on_failure(node, ctx) or _message_of_equality_assert(node, ctx):
        return None
    for part in node.parts:
        if type(part) is not cst.FormattedStringExpression or part.format_spec is not None or part.conversion:
            continue
        if _dynamic_size(part.expression, ctx, False):
            return part.expression
    return None












def numpy_size_argument(call: cst.Call, ctx: "RuleContext") -> cst.BaseExpression | None:
    """The first argument of a NumPy call (not numpy.random) in a compiled frame's entry that is, or is computed
    from, a tensor size (`np.ceil(h / 32)`, `np.sqrt(n)`, `np.prod(x.shape)`). NumPy on a size specialises
    it: every distinct size recompiles (verified on 2.13: np.ceil/floor/sqrt/log2/round/maximum/prod, five
    sizes, four recompiles each; math.ceil, math.prod, round, max and // on the same sizes: one)."""
    name = call_name(call, ctx)
    if not name.startswith("numpy.") or name.startswith("numpy.random") or not reaches_entry_values(ctx):
        return None
    for arg in call.args:
        if _mentions_size(arg.value, ctx):
            return arg.value
    return None




def constant_size_argument(call: cst.Call, ctx: "RuleContext") -> cst.BaseExpression | None:
    """The argument of `torch.as_tensor(...)` or `hash(...)` in a compiled frame's entry when it is, or is built
    from, a tensor size or shape (`torch.as_tensor([w, h, w, h])`, `hash(tuple(x.shape))`). Both specialise the
    size: every distinct size recompiles (verified on 2.13, four sizes, three recompiles each, with a shape slice,
    a list of sizes, a size with dtype/device, size arithmetic; `torch.tensor([w, h])` of the same sizes: one)."""
    name = call_name(call, ctx)
    if name not in ("torch.as_tensor", "hash") or not reaches_entry_values(ctx):
        return None
    arg = _arg(call, 0, "data") if name == "torch.as_tensor" else _arg(call, 0)
    if arg is None:
        return None
    inner = arg
    if type(inner) is cst.Call and type(inner.func) is cst.Name and inner.func.value in ("tuple", "list") and inner.args:
        inner = inner.args[0].value
    return arg if _mentions_size(inner, ctx) else None


# Format-spec presentation types: with one, Python formats the value as a number.








def _size_key(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A size, a shape, or a tuple holding a size: a dict key Dynamo must specialise to look up."""
    if type(expr) is cst.Tuple:
        return any(_size_key(e.value, ctx) for e in expr.elements)
    return _dynamic_size(expr, ctx, True)


def size_keyed_lookup(node: cst.CSTNode, ctx: "RuleContext") -> cst.BaseExpression | None:
    """The key, when `node` looks a tensor size up in a dict attribute of the module (`self.cache[(h, w)]`,
    `(h, w) in self.cache`, `self.cache.get(n)` / `.setdefault(n, ...)`) in a compiled frame's entry. The lookup
    specialises the size: every new size recompiles (verified on 2.13: tuple, int and .get keys, five sizes, four
    recompiles each; one without the cache)."""
    if not reaches_entry_values(ctx):
        return None
    t = type(node)
    if t is cst.Subscript and _self_dict(node.value, ctx) and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        key = node.slice[0].slice.value
        return key if _size_key(key, ctx) else None
    if t is cst.Comparison and len(node.comparisons) == 1 and type(node.comparisons[0].operator) in (cst.In, cst.NotIn):
        if _self_dict(node.comparisons[0].comparator, ctx) and _size_key(node.left, ctx):
            return node.left
        return None
    if t is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("get", "setdefault", "pop"):
        if _self_dict(node.func.value, ctx) and node.args and _size_key(node.args[0].value, ctx):
            return node.args[0].value
    return None


# Op parameters Dynamo specialises (each distinct value recompiles; automatic dynamic does not apply), verified on
# 2.13 with an int/float argument taking five values (RC515's examples; four recompiles each): name -> (position,
# keyword) pairs. interpolate's `size`, conv strides, topk's k, roll, slicing, repeat_interleave, torch.full's value
# stayed dynamic (one recompile) and are not listed.


def specialised_argument(call: cst.Call, ctx: "RuleContext") -> tuple[str, str] | None:
    """(parameter, op parameter) when a number argument of the frame's entry (number_argument) is passed
    directly as an op parameter that Dynamo specialises (SPECIALISED_PARAMS)."""
    if not reaches_entry_values(ctx):
        return None
    func = call.func
    params = SPECIALISED_PARAMS.get(call_name(call, ctx))
    if params is None and type(func) is cst.Attribute and ctx.facts.kind(func.value) is Kind.TENSOR:
        params = SPECIALISED_METHOD_PARAMS.get(func.attr.value)
    if params is None:
        return None
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    for pos, keyword in params:
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
        if arg is None and pos < len(positional):
            arg = positional[pos].value
        name = number_argument(arg, ctx) if arg is not None else None
        if name:
            return name, keyword
    return None




# torch._check* functions and the position of their message argument (also `message=`).












# -- detectors -----------------------------------------------------------------------------------------
# Each returns Dynamo's gb id (torch 2.13) when `node` breaks the graph, else None.















# Verified on 2.13 (fresh process, default config): each of these breaks with GB0036. torch.combinations is
# built on a masked select inside torch, so its size is unbacked too (export: EX714).


# Ops with no meta kernel for fake tensors: Dynamo cannot trace them at all. Verified on 2.13: GB0036 by
# default, GB0037 ("no meta kernel") with capture_dynamic_output_shape_ops = True; torch.export fails with
# DynamicOutputShapeException (EX712).






# Verified on 2.13: a 0-d tensor read from data where PyTorch needs an int (a size, an arange bound, topk's k,
# narrow's start) is read with aten._local_scalar_dense: GB0033; with capture_scalar_outputs = True it is traced.
# (Slicing with one, `x[:n]`, breaks with GB0124 instead: not claimed here.)






# Verified on 2.13: building a torch.Generator in compiled code breaks (GB0363, "an opaque object was created in
# the middle of the program"), so does any `generator=` argument that is a Generator (GB0055: Dynamo cannot pass
# it to the graph) and seeding one (`gen.manual_seed(0)`, GB7650).






# Verified on 2.13: Dynamo traces NumPy arrays made from tensors as tensors (FunctionFacts.is_traced_array), so
# `.numpy()` and NumPy arithmetic stay in the graph; reading a value into Python does not: float()/int()/bool()/
# round()/math.* of one and `.item()` break with GB0033, `.tolist()` with GB0109, a branch on one with GB0170,
# np.nonzero / np.argwhere / np.flatnonzero / np.unique of one and indexing one with a mask with GB0036.










# Verified on 2.13: calling a TorchScript module (torch.jit.script of a module, torch.jit.load, torch.jit.freeze)
# from compiled code makes Dynamo skip the whole function (GB4695, "torch.jit.script/freeze modules
# unsupported"); a traced module breaks the graph inside torch (GB0008, "Attempted to inline function marked as
# skipped"); a scripted function is traced through.


# Verified on 2.13: NumPy functions torch._numpy does not implement, called on an array made from a tensor
# (FunctionFacts.is_traced_array): GB0294 ("attempted to trace numpy function unsupported by PyTorch"); np.linalg.lstsq
# has no meta kernel (GB0036, as torch.linalg.lstsq); np.pad reads its pad widths as data (GB0033). Others tried
# (histogram, searchsorted, convolve, cumsum, diff, arctan2, einsum, median, round, meshgrid, argsort,
# nan_to_num, linalg.svd) are traced.








# Verified on 2.13: torch.nn.utils.rnn's packing helpers are on Dynamo's skip list (GB0007, "Attempted to call
# function marked as skipped"); pack_sequence breaks inside torch, on its call to pack_padded_sequence.




# Verified on 2.13: F.one_hot with no num_classes (or -1) sizes its output by the largest label, so Dynamo
# breaks the graph with its own id (GB0246, also with capture_scalar_outputs) and torch.export fails with
# GuardOnDataDependentSymNode (EX715).
































# random.randint / randrange / uniform are traced by Dynamo in 2.13; these are not.




# Where numpy.random functions take `size` positionally. With a size they return an ndarray, which
# Dynamo traces through torch's numpy support (no break, 2.13); without one they return a Python
# scalar, which breaks (GB0033). `permutation` breaks with GB0294.














































# Thread-pool settings (verified on 2.13, GB427's examples): setting breaks (GB0007), reading breaks (GB0208).
















# One gate per call detector of BREAKS that only looks at some callees: each admits at least what the
# detector's own first test does (a superset where that is simpler). tests/test_engine.py::
# test_call_gates_change_no_finding compares findings with and without the gates. Absent: detectors not about
# calls (branch; data_scalar_index: subscripts; traced_array: branches, subscripts and calls) or about any callee (torch_generator: any call's `generator=`; jit_module: calls of names and attributes) (disabled: functions the module disables; rnn: a submodule built as an RNN).










# True while torch.export.export(strict=False) traces (verified on 2.13; is_dynamo_compiling() is False there).




















