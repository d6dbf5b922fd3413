"""What TorchScript (`torch.jit.script`) knows of torch's Python API.

`UNKNOWN_TENSOR_METHODS`: public `torch.Tensor` methods TorchScript has no method or schema for: scripting
`x.<name>(...)` on a `Tensor` fails with `'Tensor' object has no attribute or method '<name>'`, whatever the
arguments. Generated on torch 2.13 by scripting `y = x.<name>()` for every public callable of `torch.Tensor` and
keeping the names whose error says so (`.numpy()` and `.data_ptr()` have rules of their own and are left out).
"""

from __future__ import annotations

from compilelint.torchapi import Names, Table

UNKNOWN_TENSOR_METHODS = Names({
    "apply_", "as_subclass", "bfloat16", "bool", "const_data_ptr", "dim_order", "eig", "ipu", "is_shared",
    "lstsq", "lu", "map2_", "map_", "module_load", "mtia", "ndimension", "nelement", "new", "new_tensor",
    "register_hook", "register_post_accumulate_grad_hook", "reinforce", "share_memory_", "solve", "storage",
    "storage_type", "symeig", "to_sparse_coo", "unique", "untyped_storage", "xpu",
}, verified_on=("2.13",))

# What to write instead, where TorchScript has an equivalent.
TENSOR_METHOD_REPLACEMENTS = Table({
    "bool": "x.to(torch.bool)", "bfloat16": "x.to(torch.bfloat16)",
    "new_tensor": "torch.tensor(data, dtype=x.dtype, device=x.device)",
    "nelement": "x.numel()", "ndimension": "x.dim()", "unique": "torch.unique(x)", "new": "x.new_empty(size)",
    "lu": "torch.linalg.lu_factor(x)", "solve": "torch.linalg.solve(a, b)", "lstsq": "torch.linalg.lstsq(a, b)",
}, verified_on=("2.13",))

# Annotations TorchScript cannot parse as a type, in the signature of a function it compiles or on a local
# (`Unknown type constructor Sequence`, `Unknown type name 'torch.Size'`); verified on 2.13 by scripting a
# function with each. `torch.nn.Module` is not listed: it fails in a fresh process but parses once a module has
# been scripted (as `isinstance` does, analysis/script_support.py).
UNKNOWN_ANNOTATION_TYPES = Names({
    "typing.Sequence", "typing.Iterable", "typing.Iterator", "typing.Mapping", "typing.MutableMapping",
    "typing.Callable", "typing.Type", "typing.Set", "typing.FrozenSet",
    "collections.abc.Sequence", "collections.abc.Iterable", "collections.abc.Iterator", "collections.abc.Mapping",
    "collections.abc.MutableMapping", "collections.abc.Callable",
    "torch.Size",
}, verified_on=("2.13",))

# Arguments of torch functions whose TorchScript schema takes a float (or a list of floats) where Python callers
# pass an int: TorchScript does not convert an int argument to a float parameter of these (`Expected a value of type
# 'Optional[List[float]]' for argument 'scale_factor' but instead found type 'int'`); verified on 2.13.
FLOAT_ONLY_ARGUMENTS = Table({
    "torch.nn.functional.interpolate": ("scale_factor", 2),
    "torch.nn.functional.upsample": ("scale_factor", 2),
}, verified_on=("2.13",))

# Functions taking a `List[Tensor]` (the first argument): an `Optional[Tensor]` element makes the list
# `List[Optional[Tensor]]`, which does not match (`Arguments for call are not valid`); verified on 2.13.
TENSOR_LIST_FUNCTIONS = Names({
    "torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack", "torch.vstack", "torch.dstack",
}, verified_on=("2.13",))

# Divisions whose TorchScript schemas all take a Tensor first (`aten::div.Tensor_mode(Tensor self, ...)`,
# `aten::floor_divide(Tensor self, ...)`): with a Python number first the call matches none (`Arguments for call are
# not valid ... Expected a value of type 'Tensor' for argument 'self' but instead found type 'int'`). `torch.div(a, b)`
# of two numbers without `rounding_mode` does compile (`aten::div.int`, a float). Name -> the keyword whose presence
# makes the call tensor-only (None: always); verified on 2.13.
NUMBER_FIRST_DIVISIONS = Table({
    "torch.div": "rounding_mode",
    "torch.divide": "rounding_mode",
    "torch.floor_divide": None,
    "torch.true_divide": None,
}, verified_on=("2.13",))

# Tensor methods (and `torch.<name>` functions) whose TorchScript result is a `List[Tensor]`, of a length not known
# when compiling: star-unpacking it (`a, *rest = x.unbind(0)`) fails with `cannot statically infer the expected size
# of a list in this context`; verified on 2.13.
TENSOR_LIST_METHODS = Names({"unbind", "split", "tensor_split", "split_with_sizes"}, verified_on=("2.13",))

# `torch.<name>` functions TorchScript has no operator for: scripting a call fails with `Unknown builtin op:
# aten::<name>` (or `Python builtin ... is currently not supported`), whatever the arguments. Generated on 2.13 by
# scripting `y = torch.<name>()` in a function of a file for every public non-class callable of `torch`.
UNKNOWN_TORCH_FUNCTIONS = Names({
    "torch." + name for name in (
        "are_deterministic_algorithms_enabled", "asarray", "autocast_decrement_nesting", "autocast_increment_nesting",
        "clear_autocast_cache", "dsmm", "from_numpy", "frombuffer", "get_autocast_cpu_dtype",
        "get_autocast_gpu_dtype", "get_default_device", "get_default_dtype", "get_deterministic_debug_mode",
        "get_file_path", "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads",
        "get_rng_state", "hsmm", "init_num_threads", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
        "is_autocast_cache_enabled", "is_deterministic_algorithms_warn_only_enabled", "is_inference_mode_enabled",
        "is_storage", "is_tensor", "is_warn_always_enabled", "load", "pca_lowrank", "saddmm", "set_anomaly_enabled",
        "set_autocast_cache_enabled", "set_autocast_enabled", "set_default_device", "set_default_dtype",
        "set_default_tensor_type", "set_deterministic_debug_mode", "set_float32_matmul_precision",
        "set_flush_denormal", "set_num_interop_threads", "set_num_threads", "set_printoptions", "set_rng_state",
        "set_warn_always", "spmm", "svd_lowrank", "sym_float", "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not",
        "sym_sqrt", "sym_sum", "to_dlpack", "typename", "unravel_index", "use_deterministic_algorithms",
    )
}, verified_on=("2.13",))

# `nn.Module` methods that register a hook `torch.jit.script` compiles with the module: scripting a module whose
# forward (pre-)hook is a lambda fails with `Expected a single top-level function: file:line` (the lambda's line);
# a backward or state-dict hook is not scripted. Verified on 2.13.
SCRIPTED_HOOK_REGISTRATIONS = Names({"register_forward_pre_hook", "register_forward_hook"}, verified_on=("2.13",))
