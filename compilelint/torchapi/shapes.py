"""Sizes: ops whose output size depends on data, ops fake tensors cannot run, arguments torch reads as Python
ints, and op parameters Dynamo bakes into the graph."""

from __future__ import annotations

from compilelint.torchapi import Names, Table

# Output size depends on the data: each breaks the graph with GB0036 (fresh process, default config; none with
# capture_dynamic_output_shape_ops = True). torch.combinations is built on a masked select inside torch, so its
# size is unbacked too (export: EX714). One-argument `torch.where(cond)` is nonzero(as_tuple=True), and
# repeat_interleave with a tensor of repeats and no output_size is data-sized as well.
DYNAMIC_OUTPUT_FUNCTIONS = Names({"torch.nonzero", "torch.unique", "torch.unique_consecutive", "torch.masked_select",
                                  "torch.argwhere", "torch.bincount", "torch.combinations"}, verified_on=("2.13",))
DYNAMIC_OUTPUT_METHODS = Names({"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere", "bincount"},
                               verified_on=("2.13",))

# Ops with no meta kernel for fake tensors: Dynamo cannot trace them at all (GB0036 by default, GB0037 "no meta
# kernel" with capture_dynamic_output_shape_ops = True); torch.export fails with DynamicOutputShapeException (EX712).
NO_META_FUNCTIONS = Names({"torch.linalg.lstsq"}, verified_on=("2.13",))

# F.one_hot with no num_classes (or -1) sizes its output by the largest label: Dynamo breaks with its own id
# (GB0246, also with capture_scalar_outputs) and torch.export fails with GuardOnDataDependentSymNode (EX715).
ONE_HOT = "torch.nn.functional.one_hot"

# Arguments PyTorch reads as Python ints (a size, an arange bound, topk's k, narrow's start): a 0-d tensor read from
# data there is read with aten._local_scalar_dense, GB0033 (traced with capture_scalar_outputs = True). Slicing
# with one, `x[:n]`, breaks with GB0124 instead. The size of linspace/logspace is `steps`, the third argument.
SIZE_ARGUMENT_FUNCTIONS = Names({"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.full",
                                 "torch.eye", "torch.randperm", "torch.arange"}, verified_on=("2.13", "2.11"))
STEPS_FUNCTIONS = Names({"torch.linspace", "torch.logspace"}, verified_on=("2.13", "2.11"))
SIZE_ARGUMENT_METHODS = Names({"new_zeros", "new_ones", "new_empty", "new_full", "expand", "view", "reshape", "repeat",
                               "narrow", "topk", "kthvalue"}, verified_on=("2.13", "2.11"))

# Op parameters Dynamo specialises (each distinct value recompiles; automatic dynamic does not apply), verified
# with an int/float argument taking five values (RC515's examples; four recompiles each): name -> (position,
# keyword) pairs. interpolate's `size`, conv strides, topk's k, roll, slicing, repeat_interleave, torch.full's value
# stayed dynamic (one recompile) and are not listed.
_POOLS = {f"torch.nn.functional.{k}_pool{d}d": ((1, "kernel_size"), (2, "stride")) for k in ("avg", "max")
          for d in (1, 2, 3)}
_ADAPTIVE = {f"torch.nn.functional.adaptive_{k}_pool{d}d": ((1, "output_size"),) for k in ("avg", "max")
             for d in (1, 2, 3)}
SPECIALISED_PARAMS = Table({
    "torch.linspace": ((2, "steps"),), "torch.logspace": ((2, "steps"),),
    "torch.nn.functional.interpolate": ((2, "scale_factor"),), "torch.split": ((1, "split_size_or_sections"),),
    "torch.chunk": ((1, "chunks"),), **_POOLS, **_ADAPTIVE,
}, verified_on=("2.13", "2.11"))
SPECIALISED_METHOD_PARAMS = Table({
    "split": ((0, "split_size"),), "chunk": ((0, "chunks"),), "unfold": ((1, "size"), (2, "step")),
}, verified_on=("2.13", "2.11"))
