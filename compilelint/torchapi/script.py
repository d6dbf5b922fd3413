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
