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



def _method(call: cst.Call) -> str | None:
    return call.func.attr.value if type(call.func) is cst.Attribute else None






def _tensorish(expr: cst.BaseExpression | None, ctx: "RuleContext") -> bool:
    """A tensor, a list/tuple of tensors, or a module (what deepcopy/sorted would walk into)."""
    if expr is None:
        return False
    return ctx.facts.kind(expr) in (Kind.TENSOR, Kind.TENSORS)


def is_bool_mask(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    return ctx.facts.is_bool_mask(expr)


def _is_store(node: cst.CSTNode, ctx: "RuleContext") -> bool:
    """`node` is (part of) an assignment target: `x[mask] = 0` does not break."""
    parent = ctx.parent
    if type(parent) is cst.Assign:
        return any(t.target is node for t in parent.targets)
    if type(parent) is cst.AssignTarget:
        return parent.target is node
    if type(parent) in (cst.AugAssign, cst.AnnAssign):
        return parent.target is node
    return False




def _in_forward(ctx: "RuleContext") -> bool:
    """Parameters of `forward` are tensors unless annotated otherwise; elsewhere an unannotated parameter
    is as likely a string or an exception type (`str(err_type)`)."""
    return ctx.function is not None and ctx.function.name.value == "forward"






# -- what a compiled entry hands its helpers ------------------------------------------------------------------
# Dynamo inlines the methods `forward` calls, so a number argument, an input size or an input tensor passed on
# to `self._helper(...)` is just as symbolic there (verified on 2.13: an int argument formatted in a helper
# GB0021, steps of linspace there, sizes in its f-string, NumPy on them, torch.as_tensor of them: each
# recompiled per value as at the entry). Worked out once per class, syntactically, from the entries outward.





























def formatted_number(node: cst.CSTNode, ctx: "RuleContext") -> tuple[str, str] | None:
    """(parameter, gb id) when `node` formats a number argument (see number_argument) into text. Verified on
    2.13 with the argument made dynamic by a second value: an f-string field `{n}` GB0021, with a format spec
    or a conversion (`{t:.2f}`, `{n!r}`) GB0088, `"%d" % n` and `"{}".format(n)` GB0088 (each skips the
    whole frame); `str(n)` GB0059 and `repr(n)` GB6053 (a graph break)."""
    t = type(node)
    if t is cst.FormattedString:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression:
                name = number_argument(part.expression, ctx)
                if name:
                    plain = part.format_spec is None and part.conversion is None
                    return name, "GB0021" if plain else "GB0088"
        return None
    if t is cst.BinaryOperation and type(node.operator) is cst.Modulo and type(node.left) in (
            cst.SimpleString, cst.ConcatenatedString):
        right = node.right
        items = [e.value for e in right.elements] if type(right) is cst.Tuple else [right]
        for item in items:
            name = number_argument(item, ctx)
            if name:
                return name, "GB0088"
        return None
    if t is cst.Call:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "format" and type(func.value) in (
                cst.SimpleString, cst.ConcatenatedString):
            for a in node.args:
                name = number_argument(a.value, ctx)
                if name:
                    return name, "GB0088"
            return None
        if type(func) is cst.Name and func.value in ("str", "repr") and len(node.args) == 1 and not node.args[0].keyword:
            name = number_argument(node.args[0].value, ctx)
            if name:
                return name, "GB0059" if func.value == "str" else "GB6053"
    return None




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










def size_text(node: cst.CSTNode, ctx: "RuleContext") -> tuple[cst.BaseExpression, str] | None:
    """(size expression, gb id) when `node` formats a tensor size into text in a form that breaks the graph
    once the size is dynamic (verified on 2.13 with five sizes): `f"{x.shape}"` / `f"{tuple(x.shape)}"`,
    `"%d" % n` and `"{}".format(n)` GB0088, each skipping the frame; `str(n)` GB0059 and `repr(n)` GB6053.
    A plain `{n}` field specialises instead (RC512); `str(x.shape)` is GB424's."""
    if not reaches_entry_values(ctx) or _only_on_failure(node, ctx) or _message_of_equality_assert(node, ctx):
        return None
    t = type(node)
    if t is cst.FormattedString:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression and part.format_spec is None and not part.conversion:
                if ctx.facts.kind(part.expression) is Kind.SHAPE and _dynamic_size(part.expression, ctx, True):
                    return part.expression, "GB0088"
        return None
    if t is cst.BinaryOperation and type(node.operator) is cst.Modulo and type(node.left) in (
            cst.SimpleString, cst.ConcatenatedString):
        items = [e.value for e in node.right.elements] if type(node.right) is cst.Tuple else [node.right]
        found = next((i for i in items if _dynamic_size(i, ctx, False)), None)
        return (found, "GB0088") if found is not None else None
    if t is cst.Call:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "format" and type(func.value) in (
                cst.SimpleString, cst.ConcatenatedString):
            found = next((a.value for a in node.args if _dynamic_size(a.value, ctx, False)), None)
            return (found, "GB0088") if found is not None else None
        if type(func) is cst.Name and func.value in ("str", "repr") and len(node.args) == 1 and not node.args[0].keyword:
            if _dynamic_size(node.args[0].value, ctx, False):
                return node.args[0].value, "GB0059" if func.value == "str" else "GB6053"
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
_NUMERIC_FORMAT_TYPES = frozenset("bcdeEfFgGnoxX%")


def format_crash(node: cst.CSTNode, ctx: "RuleContext") -> cst.BaseExpression | None:
    """What is formatted, when `node` formats a number Dynamo holds symbolically in a way that makes Dynamo fail
    outright (InternalTorchDynamoError: the compiled call raises; verified on 2.13 with the size or value changed
    between calls): `format(n)` / `format(n, spec)` of a tensor size or of an int/float argument
    (AsPythonConstantNotImplementedError), and an f-string field with a numeric format spec (`{h:d}`, `{n:04d}`,
    `{w / 2:.1f}`) of a tensor size or arithmetic on one (Dynamo turns the size into text first, then applies
    the spec: "Unknown format code 'd' for object of type 'str'"). An argument with a spec in an f-string
    skips the frame instead (GB447); a spec without a type (`{n:>5}`) specialises the size (no failure)."""
    if not reaches_entry_values(ctx) or _only_on_failure(node, ctx):
        return None
    t = type(node)
    if t is cst.Call:
        if type(node.func) is not cst.Name or node.func.value != "format" or call_name(node, ctx) != "format":
            return None
        arg = _arg(node, 0)
        if arg is not None and (number_argument(arg, ctx) or _mentions_size(arg, ctx)):
            return arg
        return None
    if t is cst.FormattedString:
        for part in node.parts:
            if type(part) is not cst.FormattedStringExpression or not part.format_spec:
                continue
            spec = "".join(p.value for p in part.format_spec if type(p) is cst.FormattedStringText)
            if spec and spec[-1] in _NUMERIC_FORMAT_TYPES and _mentions_size(part.expression, ctx):
                return part.expression
    return None






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


def storage_query(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """A tensor's storage asked about in compiled code (verified on 2.13, GB449's examples): `t.data_ptr()` in a
    comparison (`!=`, `==`: GB5976), `t.storage_offset()`, `t.is_pinned()`, `t.is_shared()` and the typed
    `t.storage()` (GB0208), `t.untyped_storage()` (GB0156). A
    data_ptr() used as a number skips the frame (GB0088, reported where it is used): not flagged here."""
    t = type(node)
    if t is cst.Comparison:
        sides = [node.left] + [c.comparator for c in node.comparisons]
        if any(type(c.operator) in (cst.Equal, cst.NotEqual, cst.In, cst.NotIn) for c in node.comparisons) and any(
                _tensor_method(e, ctx, ("data_ptr",)) for e in sides if type(e) is cst.Call):
            return "GB5976"
        return None
    if t is cst.Call and type(node.func) is cst.Attribute and not node.args:
        if _tensor_method(node, ctx, ("storage_offset", "is_pinned", "is_shared", "storage")):
            return "GB0208"
        if _tensor_method(node, ctx, ("untyped_storage",)):
            return "GB0156"
    return None


# torch._check* functions and the position of their message argument (also `message=`).




def check_message(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """A `torch._check*()` message Dynamo cannot use (verified on 2.13, GB450's examples; the break is reported
    on the call, with static and dynamic shapes alike): a lambda that reads a parameter (`self` too) or a local
    of the enclosing function, GB9158 (`lambda: f"bad {x.shape}"`); a message that is not a function at all (a
    string, an f-string), GB9840. A lambda over constants and module-level names is traced. `torch._check_is_size(n,
    msg)` breaks with any lambda as its message (GB0055), and takes a string without a break."""
    if type(node) is not cst.Call:
        return None
    name = call_name(node, ctx)
    if name == "torch._check_is_size":  # any function as its message breaks (GB0055); a string is dropped
        return "GB0055" if type(_arg(node, 1, "message")) is cst.Lambda else None
    position = CHECK_MESSAGE_POSITION.get(name)
    if position is None:
        return None
    message = _arg(node, position, "message")
    if type(message) is cst.Lambda:
        return "GB9158" if _closure_names(message, ctx) else None
    if type(message) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
        return "GB9840"
    if type(message) is cst.BinaryOperation and type(message.operator) is cst.Modulo and type(message.left) in (
            cst.SimpleString, cst.ConcatenatedString):
        return "GB9840"
    if (type(message) is cst.Call and type(message.func) is cst.Attribute and message.func.attr.value == "format"
            and type(message.func.value) in (cst.SimpleString, cst.ConcatenatedString)):
        return "GB9840"
    return None


def size_to_text(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    found = size_text(node, ctx)
    return found[1] if found else None


def number_to_text(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    found = formatted_number(node, ctx)
    return found[1] if found else None


def number_to_text_skips_frame(node: cst.CSTNode, ctx: "RuleContext") -> bool:
    """Whether the break number_to_text reports makes Dynamo skip the whole function: the f-string, `%` and
    `.format` forms, unless the argument was specialised before by a loop count (then it only breaks)."""
    found = formatted_number(node, ctx)
    if not found or found[1] in ("GB0059", "GB6053"):
        return False
    return not _loop_count_before(found[0], node, ctx)


# -- detectors -----------------------------------------------------------------------------------------
# Each returns Dynamo's gb id (torch 2.13) when `node` breaks the graph, else None.

def item(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and not node.args and _tensor_method(node, ctx, ("item",)):
        return None if ctx.module_facts.capture_scalar_outputs else "GB0124"
    return None


def tolist(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and not node.args and _tensor_method(node, ctx, ("tolist",)):
        return "GB0109"  # GB0033 for integer tensors; capture_scalar_outputs does not help float ones
    return None


def scalar_conversion(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """int(t) / float(t) / bool(t) of a tensor."""
    if (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("int", "float", "bool")
            and len(node.args) == 1 and ctx.facts.is_tensor(node.args[0].value)):
        if node.func.value == "bool":
            return "GB0124"
        return None if ctx.module_facts.capture_scalar_outputs else "GB0124"
    return None






def branch(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`if`/`while`/`x if c else y`/a comprehension filter/`and`/`or`/`not` on a tensor (its data)."""
    test = None
    if type(node) in (cst.If, cst.While, cst.IfExp, cst.CompIf):
        test = node.test
    if test is not None and _condition_breaks(test, ctx):
        return "GB0170"
    return None


def builtin_any_all(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """any(t)/all(t) of a tensor outside a condition (inside one, `branch` reports it)."""
    if (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("any", "all")
            and len(node.args) == 1 and ctx.facts.is_tensor(node.args[0].value)):
        return "GB0170"
    return None


# Verified on 2.13 (fresh process, default config): each of these breaks with GB0036. torch.combinations is
# built on a masked select inside torch, so its size is unbacked too (export: EX714).


# Ops with no meta kernel for fake tensors: Dynamo cannot trace them at all. Verified on 2.13: GB0036 by
# default, GB0037 ("no meta kernel") with capture_dynamic_output_shape_ops = True; torch.export fails with
# DynamicOutputShapeException (EX712).


def no_meta_kernel(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and call_name(node, ctx) in NO_META_FUNCS:
        return "GB0037" if ctx.module_facts.capture_dynamic_output_shape_ops else "GB0036"
    return None


def data_scalar_index(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`t[i]`, `t[:, i]`, `t[i] = v` with `i` a 0-d index read from tensor data (`x.argmax()`; FunctionFacts.
    is_data_scalar_index): PyTorch reads the index as a number (aten._local_scalar_dense) and Dynamo breaks the
    graph there. Verified on 2.13: GB0033 for reads and writes; with capture_scalar_outputs = True it still
    breaks on the subscript, with no registry id ("Could not extract specialized integer")."""
    if type(node) is not cst.Subscript or not ctx.facts.is_tensor(node.value):
        return None
    facts = ctx.facts
    read = [e.slice.value for e in node.slice if type(e.slice) is cst.Index and facts.is_data_scalar_index(e.slice.value)]
    return "GB0033" if read and facts.first_number_read(node, read) else None


# Verified on 2.13: a 0-d tensor read from data where PyTorch needs an int (a size, an arange bound, topk's k,
# narrow's start) is read with aten._local_scalar_dense: GB0033; with capture_scalar_outputs = True it is traced.
# (Slicing with one, `x[:n]`, breaks with GB0124 instead: not claimed here.)


def _size_arguments(call: cst.Call, ctx: "RuleContext") -> list[cst.BaseExpression]:
    """The arguments of `call` that PyTorch reads as Python ints (sizes, bounds, counts), tuples unpacked."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    name = call_name(call, ctx)
    func = call.func
    if name in _SIZE_FUNCS:
        chosen = positional[:1] if name == "torch.full" else positional
        chosen += [keyword[k] for k in ("size", "n", "end", "start", "m") if k in keyword]
    elif name in _STEPS_FUNCS:
        chosen = positional[2:3] + ([keyword["steps"]] if "steps" in keyword else [])
    elif type(func) is cst.Attribute and func.attr.value in _SIZE_METHODS and ctx.facts.is_tensor(func.value):
        method = func.attr.value
        if method == "new_full":
            chosen = positional[:1]
        elif method == "narrow":
            chosen = positional[1:3] + [keyword[k] for k in ("start", "length") if k in keyword]
        elif method in ("topk", "kthvalue"):
            chosen = positional[:1] + ([keyword["k"]] if "k" in keyword else [])
        else:
            chosen = positional + ([keyword["size"]] if "size" in keyword else [])
    else:
        return []
    flat = []
    for arg in chosen:
        if type(arg) in (cst.Tuple, cst.List):
            flat.extend(e.value for e in arg.elements)
        else:
            flat.append(arg)
    return flat


def data_tensor_size(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`torch.arange(n)`, `x.new_zeros(n, 4)`, `x.topk(k)` with n / k a 0-d tensor computed from data
    (FunctionFacts.is_data_scalar_int)."""
    if type(node) is not cst.Call or ctx.module_facts.capture_scalar_outputs:
        return None
    facts = ctx.facts
    read = [a for a in _size_arguments(node, ctx) if facts.is_data_scalar_int(a)]
    return "GB0033" if read and facts.first_number_read(node, read) else None


# Verified on 2.13: building a torch.Generator in compiled code breaks (GB0363, "an opaque object was created in
# the middle of the program"), so does any `generator=` argument that is a Generator (GB0055: Dynamo cannot pass
# it to the graph) and seeding one (`gen.manual_seed(0)`, GB7650).
def _is_generator(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """`self.<attr>` built in __init__ as `torch.Generator(...)` (also `torch.Generator().manual_seed(s)`)."""
    if not (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
            and ctx.class_facts is not None and ctx.class_node is not None):
        return False
    if getattr(ctx.class_facts, "attr_calls", {}).get(expr.attr.value) == "torch.Generator":
        return True
    return expr.attr.value in _seeded_generator_attrs(ctx)




def torch_generator(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is not cst.Call:
        return None
    name = call_name(node, ctx)
    if name == "torch.Generator":
        return "GB0363"
    func = node.func
    torch_call = name.startswith("torch.") or (type(func) is cst.Attribute and ctx.facts.is_tensor(func.value))
    for arg in node.args if torch_call else ():  # a user's own `generator=` parameter is not claimed
        if arg.keyword is not None and arg.keyword.value == "generator" and not (
                type(arg.value) is cst.Name and arg.value.value == "None"):
            return "GB0055"
    if type(func) is cst.Attribute and func.attr.value in ("manual_seed", "seed") and _is_generator(func.value, ctx):
        return "GB7650"
    return None


# Verified on 2.13: Dynamo traces NumPy arrays made from tensors as tensors (FunctionFacts.is_traced_array), so
# `.numpy()` and NumPy arithmetic stay in the graph; reading a value into Python does not: float()/int()/bool()/
# round()/math.* of one and `.item()` break with GB0033, `.tolist()` with GB0109, a branch on one with GB0170,
# np.nonzero / np.argwhere / np.flatnonzero / np.unique of one and indexing one with a mask with GB0036.


def traced_array_read(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    facts = ctx.facts
    node_type = type(node)
    if node_type in (cst.If, cst.While, cst.IfExp):
        test = node.test
        while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            test = test.expression
        tests = [test.left, test.right] if type(test) is cst.BooleanOperation else [test]
        return "GB0170" if any(facts.is_traced_array(t) for t in tests) else None
    if node_type is cst.Subscript:
        mask = next((e.slice.value for e in node.slice if type(e.slice) is cst.Index
                     and type(e.slice.value) is cst.Comparison and facts.is_traced_array(e.slice.value)), None)
        return "GB0036" if mask is not None and facts.is_traced_array(node.value) else None
    if node_type is not cst.Call:
        return None
    func = node.func
    if type(func) is cst.Name and func.value in _ARRAY_TO_PYTHON and node.args:
        return "GB0033" if facts.is_traced_array(node.args[0].value) else None
    if type(func) is cst.Attribute and func.attr.value in ("item", "tolist") and not node.args:
        if facts.is_traced_array(func.value):
            return "GB0033" if func.attr.value == "item" else "GB0109"
        return None
    name = call_name(node, ctx)
    if name.startswith("math.") and node.args and facts.is_traced_array(node.args[0].value):
        return "GB0033"
    if name in _ARRAY_DYNAMIC and node.args and facts.is_traced_array(node.args[0].value):
        return "GB0036"
    return None








# Verified on 2.13: calling a TorchScript module (torch.jit.script of a module, torch.jit.load, torch.jit.freeze)
# from compiled code makes Dynamo skip the whole function (GB4695, "torch.jit.script/freeze modules
# unsupported"); a traced module breaks the graph inside torch (GB0008, "Attempted to inline function marked as
# skipped"); a scripted function is traced through.
def jit_module_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is not cst.Call:
        return None
    func = node.func
    kind = ""
    if type(func) is cst.Name and func.value not in ctx.facts.env:
        kind = ctx.module_facts.jit_modules.get(func.value, "")
    elif (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
          and ctx.class_facts is not None):
        kind = getattr(ctx.class_facts, "jit_modules", {}).get(func.attr.value, "")
    return {"script": "GB4695", "trace": "GB0008"}.get(kind)


# Verified on 2.13: NumPy functions torch._numpy does not implement, called on an array made from a tensor
# (FunctionFacts.is_traced_array): GB0294 ("attempted to trace numpy function unsupported by PyTorch"); np.linalg.lstsq
# has no meta kernel (GB0036, as torch.linalg.lstsq); np.pad reads its pad widths as data (GB0033). Others tried
# (histogram, searchsorted, convolve, cumsum, diff, arctan2, einsum, median, round, meshgrid, argsort,
# nan_to_num, linalg.svd) are traced.


def untraceable_numpy(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is not cst.Call:
        return None
    gb_id = UNTRACEABLE_NUMPY.get(call_name(node, ctx))
    if gb_id and any(ctx.facts.is_traced_array(a.value) for a in node.args):
        return gb_id
    return None


def is_thread_lock(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A threading lock, semaphore or condition: a module-level name or `self.<attr>` built as one (THREAD_LOCKS),
    or one built in place (`threading.Lock()`)."""
    if type(expr) is cst.Call:
        return call_name(expr, ctx) in THREAD_LOCKS
    if type(expr) is cst.Name:
        return expr.value in ctx.module_facts.locks and expr.value not in ctx.facts.env
    if (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
            and ctx.class_facts is not None):
        return getattr(ctx.class_facts, "attr_calls", {}).get(expr.attr.value) in THREAD_LOCKS
    return False


def thread_lock(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`with lock:` (GB0142: Dynamo skips the whole function) or `lock.acquire()` / `lock.release()` (GB0156)."""
    if type(node) is cst.With:
        return "GB0142" if any(is_thread_lock(item.item, ctx) for item in node.items) else None
    if (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("acquire", "release")
            and is_thread_lock(node.func.value, ctx)):
        return "GB0156"
    return None


# Verified on 2.13: torch.nn.utils.rnn's packing helpers are on Dynamo's skip list (GB0007, "Attempted to call
# function marked as skipped"); pack_sequence breaks inside torch, on its call to pack_padded_sequence.


def packed_sequence(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and call_name(node, ctx) in PACKED_SEQUENCE:
        return "GB0007"
    return None


# Verified on 2.13: F.one_hot with no num_classes (or -1) sizes its output by the largest label, so Dynamo
# breaks the graph with its own id (GB0246, also with capture_scalar_outputs) and torch.export fails with
# GuardOnDataDependentSymNode (EX715).




def one_hot(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and one_hot_without_num_classes(node, ctx):
        return "GB0246"
    return None


def _is_array_comparison(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.Comparison:
        return not any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons)
    if type(expr) is cst.BinaryOperation and type(expr.operator) in (cst.BitAnd, cst.BitOr):
        return _is_array_comparison(expr.left) or _is_array_comparison(expr.right)
    return False


def dynamic_shape(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if ctx.module_facts.capture_dynamic_output_shape_ops:
        return None
    if type(node) is cst.Call:
        name = call_name(node, ctx)
        if name in _DYNAMIC_FUNCS and node.args:
            return "GB0036"
        if name == "torch.where" and len(node.args) == 1 and node.args[0].keyword is None:
            return "GB0036"  # one-argument torch.where(cond) is nonzero(as_tuple=True)
        if type(node.func) is cst.Attribute and node.func.attr.value in _DYNAMIC_METHODS:
            receiver = node.func.value
            kind = ctx.facts.kind(receiver)
            if kind is Kind.TENSOR:
                return "GB0036"
            if kind is Kind.UNKNOWN and _is_array_comparison(receiver):
                return "GB0036"  # `(iou > self.thr).nonzero()`: a comparison with a .nonzero() is an array
        # repeat_interleave with a tensor of repeats and no output_size
        if name == "torch.repeat_interleave" or _tensor_method(node, ctx, ("repeat_interleave",)):
            if any(a.keyword is not None and a.keyword.value == "output_size" for a in node.args):
                return None
            repeats = _arg(node, 1 if name == "torch.repeat_interleave" else 0, "repeats")
            if name == "torch.repeat_interleave" and len([a for a in node.args if a.keyword is None]) == 1:
                repeats = _arg(node, 0)  # torch.repeat_interleave(repeats)
            if repeats is not None and ctx.facts.is_tensor(repeats):
                return "GB0036"
        return None
    if type(node) is cst.Subscript and not _is_store(node, ctx) and ctx.facts.is_tensor(node.value):
        # x[mask], and a mask among other indices (x[b, mask, :4]): both have a data-dependent size
        for element in node.slice:
            if type(element.slice) is cst.Index and is_bool_mask(element.slice.value, ctx):
                return "GB0036"
    return None


def _builtin_call(node: cst.CSTNode, ctx: "RuleContext", names: set[str]) -> str | None:
    if type(node) is cst.Call:
        q = call_name(node, ctx) or None
        if q in names and not (type(node.func) is cst.Name and node.func.value in ctx.facts.env):
            return q
    return None


def print_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    q = _builtin_call(node, ctx, {"print"})
    if q and not ctx.module_facts.reorderable_call("print"):
        return "GB0059"
    return None


def debugger(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    q = _builtin_call(node, ctx, {"breakpoint", "pdb.set_trace", "ipdb.set_trace", "pdb.post_mortem"})
    if q == "breakpoint":
        return "GB0059"
    return "GB0007" if q else None




def logger_method(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`logger.info(...)` on a logging.Logger (reorderable_logging_functions does not cover these in 2.13)."""
    if not (type(node) is cst.Call and type(node.func) is cst.Attribute
            and node.func.attr.value in _LOGGER_METHODS):
        return None
    owner = node.func.value
    if type(owner) is cst.Name and owner.value in ctx.module_facts.loggers and owner.value not in ctx.facts.env:
        return "GB0291"
    if type(owner) is cst.Call and ctx.qualify(owner.func) == "logging.getLogger":
        return "GB0291"
    return None


def logging_function(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`logging.info(...)`, the module-level functions of `logging`."""
    q = _builtin_call(node, ctx, {f"logging.{m}" for m in _LOGGER_METHODS})
    if q and not ctx.module_facts.reorderable_call(q):
        return "GB4841"
    return None


def warnings_warn(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    q = _builtin_call(node, ctx, {"warnings.warn", "warnings.warn_explicit"})
    if q and not ctx.module_facts.reorderable_call(q):
        return "GB0007"
    return None




def time_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0007" if _builtin_call(node, ctx, _TIME) else None




def datetime_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0156" if _builtin_call(node, ctx, _DATETIME) else None


# random.randint / randrange / uniform are traced by Dynamo in 2.13; these are not.


def random_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0007" if _builtin_call(node, ctx, _RANDOM) else None


# Where numpy.random functions take `size` positionally. With a size they return an ndarray, which
# Dynamo traces through torch's numpy support (no break, 2.13); without one they return a Python
# scalar, which breaks (GB0033). `permutation` breaks with GB0294.


def numpy_random(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call:
        q = call_name(node, ctx)
        if q.startswith("numpy.random.") and q.rsplit(".", 1)[-1][:1].islower():
            fn = q.rsplit(".", 1)[-1]
            if fn == "permutation":
                return "GB0294"
            positional = [a for a in node.args if a.keyword is None and not a.star]
            has_size = any(a.keyword is not None and a.keyword.value == "size" for a in node.args)
            size_at = _NP_RANDOM_SIZE_AT.get(fn)
            if has_size or (size_at is not None and len(positional) > size_at):
                return None  # an ndarray draw: traced, no break
            return "GB0033"
    return None




def c_builtin(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call:
        q = call_name(node, ctx)
        if q in _C_BUILTINS or q.startswith("hashlib."):
            return "GB0007"
    return None




def json_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0156" if _builtin_call(node, ctx, _JSON) else None


def open_call(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0059" if _builtin_call(node, ctx, {"open", "io.open"}) else None




def filesystem(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0007" if _builtin_call(node, ctx, _FS) else None


def deepcopy(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if _builtin_call(node, ctx, {"copy.deepcopy"}):
        arg = _arg(node, 0)
        if arg is not None and (ctx.facts.kind(arg) in (Kind.TENSOR, Kind.TENSORS, Kind.MODULE, Kind.MODULES)
                                or (type(arg) is cst.Name and arg.value == "self")
                                or ctx.facts.is_submodule_tensor(arg)):  # `self.proj.weight`: verified 2.13
            return "GB4198"
    return None


def shallow_copy(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if _builtin_call(node, ctx, {"copy.copy"}):
        arg = _arg(node, 0)
        if arg is not None and ctx.facts.is_tensor(arg):
            return "GB0208"
    return None


def sorted_tensors(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "sort":
        return "GB0207" if ctx.facts.list_sort_compares_tensors(node) else None
    if _builtin_call(node, ctx, {"sorted"}):
        arg = _arg(node, 0)
        if arg is not None and ctx.facts.kind(arg) is Kind.TENSORS:
            return "GB0207"
        if arg is not None and ctx.facts.kind(arg) is Kind.TENSOR:
            return "GB0059"
        if ctx.facts.sort_compares_tensors(node):
            return "GB0207"  # sorted(range(n), key=lambda i: s[i]): the key reads tensor data (2.13)
    return None


def minmax_key(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`min(xs, key=lambda ...)` / `max(...)` whose key reads tensor data (verified on 2.13: GB0193, Dynamo's
    builtin handler rejects the comparison; a pure-Python key over ints is traced)."""
    q = _builtin_call(node, ctx, {"min", "max"})
    key = _arg(node, 99, "key") if q else None
    if type(key) is cst.Lambda and ctx.facts.sort_compares_tensors(node):
        return "GB0193"
    return None


def range_tensor(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if _builtin_call(node, ctx, {"range"}):
        if any(a.keyword is None and ctx.facts.is_tensor(a.value) for a in node.args):
            return "GB0059"
    return None


def tensor_str(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    q = _builtin_call(node, ctx, {"str", "repr"})
    if q and len(node.args) == 1 and not (_is_param(node.args[0].value, ctx) and not _in_forward(ctx)):
        kind = ctx.facts.kind(node.args[0].value)
        if kind is Kind.TENSOR:
            return "GB0059" if q == "str" else "GB0569"
        if kind is Kind.SHAPE and q == "str":
            return "GB0059"  # str(x.shape) breaks too on 2.13; f"{x.shape}" does not
    return None


_THIRD_PARTY = ("scipy.", "cv2.", "PIL.", "pandas.", "sklearn.", "skimage.")


def third_party(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call:
        q = call_name(node, ctx)
        if q.startswith(_THIRD_PARTY):
            return "GB0156" if q.startswith("scipy.") else "GB0007"
    return None


def disabled_callee(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is not cst.Call:
        return None
    disabled = ctx.module_facts.disabled
    func = node.func
    if type(func) is cst.Name and func.value in disabled and func.value not in ctx.facts.env:
        return "GB0098"
    if (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
            and ctx.class_name and f"{ctx.class_name}.{func.attr.value}" in disabled):
        return "GB0098"
    return None


def explicit_break(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0025" if _builtin_call(node, ctx, {"torch._dynamo.graph_break"}) else None


def backward(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if type(node) is cst.Call and _tensor_method(node, ctx, ("backward",)):
        return "GB0123"
    if _builtin_call(node, ctx, {"torch.autograd.backward"}):
        return "GB0123"
    return None


def autograd_grad(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB9186" if _builtin_call(node, ctx, {"torch.autograd.grad"}) else None


def data_dependent_op(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """torch.equal/allclose (Python bool out of tensor data), math.* of a tensor, and torch._assert on a tensor
    (`if not cond: raise` in Python; verified on 2.13: GB0033; torch._assert_async is traced)."""
    if type(node) is not cst.Call:
        return None
    q = call_name(node, ctx)
    if q in ("torch.equal", "torch.allclose") or _tensor_method(node, ctx, ("equal", "allclose")):
        return "GB0033"
    if q.startswith("math.") and any(ctx.facts.is_tensor(a.value) for a in node.args):
        return "GB0033"
    if q == "torch._assert" and node.args and node.args[0].keyword is None and ctx.facts.is_tensor(node.args[0].value):
        return "GB0033"
    return None




# Thread-pool settings (verified on 2.13, GB427's examples): setting breaks (GB0007), reading breaks (GB0208).


def torch_side_effect(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    if _builtin_call(node, ctx, _TORCH_IO):
        return "GB0007"
    name = _builtin_call(node, ctx, set(_TORCH_THREADS))
    return _TORCH_THREADS[name] if name else None




def std_stream(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    return "GB0156" if _builtin_call(node, ctx, _STD_STREAMS) else None




def rnn_module(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """Calling an nn.LSTM / nn.GRU / nn.RNN submodule (built in __init__)."""
    if type(node) is not cst.Call:
        return None
    func = node.func
    if (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
            and ctx.class_facts is not None):
        if getattr(ctx.class_facts, "attr_calls", {}).get(func.attr.value) in _RNN:
            return "GB0014"
    return None


def network_io(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """requests.* / urllib.request.urlopen / socket connections (2.13: each made Dynamo skip the frame)."""
    if type(node) is not cst.Call:
        return None
    q = call_name(node, ctx)
    if q.startswith("requests.") and q.rsplit(".", 1)[-1] in ("get", "post", "put", "delete", "head", "patch",
                                                               "request", "Session"):
        return "GB0156"
    if q in ("urllib.request.urlopen", "urllib.request.urlretrieve"):
        return "GB0059"
    if q in ("socket.create_connection", "socket.socket", "socket.getaddrinfo", "socket.gethostbyname"):
        return "GB0007"
    if q.startswith("http.client."):
        return "GB0156"
    return None


def requires_grad(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """`t.requires_grad_()` / `requires_grad_(True)` in compiled code (False is traced)."""
    if not (type(node) is cst.Call and _tensor_method(node, ctx, ("requires_grad_",))):
        return None
    arg = _arg(node, 0, "requires_grad")
    if type(arg) is cst.Name and arg.value == "False":
        return None
    receiver = node.func.value
    if type(receiver) is cst.Attribute and type(receiver.value) is cst.Name and receiver.value.value == "self":
        return None  # a parameter/buffer of the module: not verified
    return "GB0125" if _is_param(receiver, ctx) else "GB8985"


# One gate per call detector of BREAKS that only looks at some callees: each admits at least what the
# detector's own first test does (a superset where that is simpler). tests/test_engine.py::
# test_call_gates_change_no_finding compares findings with and without the gates. Absent: detectors not about
# calls (branch; data_scalar_index: subscripts; traced_array: branches, subscripts and calls) or about any callee (torch_generator: any call's `generator=`; jit_module: calls of names and attributes) (disabled: functions the module disables; rnn: a submodule built as an RNN).
CALL_GATES: dict[str, CallGate] = {
    "item": gate(methods={"item"}),
    "tolist": gate(methods={"tolist"}),
    "scalar_conversion": gate(bare={"int", "float", "bool"}),
    "dynamic_shape": gate(names=_DYNAMIC_FUNCS | {"torch.where", "torch.repeat_interleave"},
                           methods={*_DYNAMIC_METHODS, "repeat_interleave"}),
    "print": gate(names={"print"}),
    "debugger": gate(names={"breakpoint", "pdb.set_trace", "ipdb.set_trace", "pdb.post_mortem"}),
    "logger": gate(methods=_LOGGER_METHODS),
    "logging": gate(heads={"logging"}),
    "warnings": gate(heads={"warnings"}),
    "time": gate(names=_TIME),
    "datetime": gate(names=_DATETIME),
    "random": gate(names=_RANDOM),
    "numpy_random": gate(heads={"numpy"}),
    "c_builtin": gate(names=_C_BUILTINS, heads={"hashlib"}),
    "json": gate(names=_JSON),
    "open": gate(names={"open", "io.open"}),
    "filesystem": gate(names=_FS),
    "deepcopy": gate(names={"copy.deepcopy"}),
    "shallow_copy": gate(names={"copy.copy"}),
    "sorted": gate(names={"sorted"}, methods={"sort"}),
    "minmax_key": gate(names={"min", "max"}),
    "range": gate(names={"range"}),
    "tensor_str": gate(names={"str", "repr"}),
    "third_party": gate(heads={p.rstrip(".") for p in _THIRD_PARTY}),
    "graph_break": gate(names={"torch._dynamo.graph_break"}),
    "backward": gate(names={"torch.autograd.backward"}, methods={"backward"}),
    "autograd_grad": gate(names={"torch.autograd.grad"}),
    "data_dependent_op": gate(names={"torch.equal", "torch.allclose", "torch._assert"}, heads={"math"},
                               methods={"equal", "allclose"}),
    "torch_side_effect": gate(names=_TORCH_IO | set(_TORCH_THREADS)),
    "std_stream": gate(names=_STD_STREAMS),
    "network": gate(heads={"requests", "urllib", "socket", "http"}),
    "requires_grad": gate(methods={"requires_grad_"}),
    "no_meta_kernel": gate(names=NO_META_FUNCS),
    "one_hot": gate(names={ONE_HOT}),
    "packed_sequence": gate(names=PACKED_SEQUENCE),
    "thread_lock": gate(methods={"acquire", "release"}),  # its `with` statements are not calls: not gated
    "data_tensor_size": gate(names=_SIZE_FUNCS | _STEPS_FUNCS, methods=_SIZE_METHODS),
    "untraceable_numpy": gate(names=set(UNTRACEABLE_NUMPY)),
    "number_to_text": gate(names={"str", "repr"}, methods={"format"}),
    "size_to_text": gate(names={"str", "repr"}, methods={"format"}),
    "storage_query": gate(methods={"storage_offset", "is_pinned", "is_shared", "storage", "untyped_storage"}),
    "check_message": gate(names={*CHECK_MESSAGE_POSITION, "torch._check_is_size"}),
}


BREAKS: dict[str, Callable[[cst.CSTNode, "RuleContext"], str | None]] = {
    "item": item, "tolist": tolist, "scalar_conversion": scalar_conversion, "branch": branch,
    "dynamic_shape": dynamic_shape, "print": print_call, "debugger": debugger, "logger": logger_method,
    "logging": logging_function, "warnings": warnings_warn, "time": time_call, "datetime": datetime_call,
    "random": random_call, "numpy_random": numpy_random, "c_builtin": c_builtin, "json": json_call,
    "open": open_call, "filesystem": filesystem, "deepcopy": deepcopy, "shallow_copy": shallow_copy,
    "sorted": sorted_tensors, "range": range_tensor, "tensor_str": tensor_str, "third_party": third_party,
    "disabled": disabled_callee, "graph_break": explicit_break, "backward": backward,
    "autograd_grad": autograd_grad, "data_dependent_op": data_dependent_op, "torch_side_effect": torch_side_effect,
    "std_stream": std_stream, "rnn": rnn_module, "network": network_io,
    "requires_grad": requires_grad, "minmax_key": minmax_key, "no_meta_kernel": no_meta_kernel,
    "one_hot": one_hot, "data_scalar_index": data_scalar_index, "thread_lock": thread_lock,
    "packed_sequence": packed_sequence, "data_tensor_size": data_tensor_size, "torch_generator": torch_generator,
    "traced_array": traced_array_read, "jit_module": jit_module_call, "untraceable_numpy": untraceable_numpy,
    "number_to_text": number_to_text, "size_to_text": size_to_text, "storage_query": storage_query,
    "check_message": check_message,
}


def first_break(node: cst.CSTNode, ctx: "RuleContext") -> tuple[str, str] | None:
    """(construct, gb_id) of the first detector that says `node` breaks the graph."""
    for name, detect in BREAKS.items():
        gb = detect(node, ctx)
        if gb:
            return name, gb
    return None


def break_severity(ctx: "RuleContext", node: cst.CSTNode, default: str = "warning") -> str:
    """Escalation: a break inside a loop makes Dynamo skip the whole frame (error); a break in the last
    statement before a plain `return` costs one extra graph at most (note); anything else: `default`."""
    if ctx.loop_depth > 0:
        return "error"
    if _in_rare_branch(ctx, node):
        return "note"
    fn = ctx.function
    if fn is None or type(fn.body) is not cst.IndentedBlock:
        return default
    body = list(fn.body.body)
    top = next((a for a in ctx.ancestors if any(a is s for s in body)), None)
    if top is None:
        return default
    rest = body[body.index(top) + 1:]
    if rest and all(_plain_return(s) for s in rest):
        return "note"
    return default




# True while torch.export.export(strict=False) traces (verified on 2.13; is_dynamo_compiling() is False there).


















def _in_rare_branch(ctx: "RuleContext", node: cst.CSTNode) -> bool:
    """Inside the body of an `if` that only some inputs take: a condition on shapes (Dynamo traces the
    branch only for inputs that take it), on tensor data (itself a break), or an error path (`raise`)."""
    ancestors = ctx.ancestors
    for i, anc in enumerate(ancestors):
        if type(anc) is not cst.If:
            continue
        nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
        if nxt is anc.test:
            continue  # the condition itself, not the branch
        if ctx.facts.kind(anc.test) in (Kind.SIZE, Kind.SHAPE, Kind.TENSOR, Kind.VALUE):
            return True
        if first_break(anc.test, ctx) is not None:
            return True  # `if os.path.exists(p):` - the condition itself breaks; the body runs only sometimes
        body = anc.body.body if type(anc.body) is cst.IndentedBlock else ()
        last = body[-1] if body else None
        if type(last) is cst.SimpleStatementLine and any(type(s) is cst.Raise for s in last.body):
            return True
    return False


def _plain_return(stmt: cst.CSTNode) -> bool:
    if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Return):
        return False
    value = stmt.body[0].value
    if value is None or type(value) is cst.Name:
        return True
    return type(value) is cst.Tuple and all(type(e.value) is cst.Name for e in value.elements)
