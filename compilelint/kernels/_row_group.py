"""Rows split over a group of programs that hold them in registers and swap partial statistics.

Rows too wide for one program's registers (64K columns) otherwise take two passes over the row (a
statistics pass, then a normalising pass that re-reads it, hopefully from L2): on an H200 that held
LayerNorm at 74% and softmax at 70% of copy bandwidth. Here a row is cut into ``SPLIT`` parts, one per
program; each program loads its part once, publishes two partial statistics (for example the part's
mean and M2), waits until the row's other parts have published theirs, combines them, and writes its
part: one read and one write per element, as for narrow rows.

Waiting on other programs is safe only if they are sure to run, so the kernels are persistent and
launched cooperatively: one program per SM (``persistent_grid``), which the driver starts all at once or
refuses to launch, each looping over rows ``group, group + groups, ...`` and loading its next row's part
before waiting on the current one. (A first version started one program per (row, part) and ordered
them with an atomic ticket counter: measured on an H200 it was 0.83-0.87x of the two-pass kernel, the
ticket counter being one address that every program hits.)

Under Triton's CPU interpreter programs run one after the other, so only ``SPLIT == 1`` can run there
(tests use it to check the persistent loop); launchers never pick the split kernels in interpreter mode.

``Arrived`` is an int32 buffer of one zero per row (a config pre_hook zeroes it before every launch);
``Partials`` holds 2 float32 per (row, part). ``launch_split`` allocates both.
"""

from __future__ import annotations

import triton
import triton.language as tl

SPLITS = (1, 2, 4, 8)


@triton.jit
def exchange(Arrived, Partials, row, part, a, b, SPLIT: tl.constexpr):
    """Publish this part's (a, b); return the row's SPLIT values of a and of b, in part order."""
    base = Partials + row * (2 * SPLIT)
    tl.store(base + 2 * part, a)
    tl.store(base + 2 * part + 1, b)
    tl.debug_barrier()  # every thread's stores before the release below
    arrived = tl.atomic_add(Arrived + row, 1, sem="release") + 1
    while arrived < SPLIT:
        arrived = tl.atomic_add(Arrived + row, 0, sem="acquire")
    idx = tl.arange(0, SPLIT)
    all_a = tl.load(base + 2 * idx, volatile=True)  # volatile: not from this SM's L1, which may be stale
    all_b = tl.load(base + 2 * idx + 1, volatile=True)
    return all_a, all_b


@triton.jit
def load_part(ptr, row, M, cols, n_left, other):
    """A row's part (its first `n_left` columns are in the row) as float32; past the last row (a
    prefetch) nothing is read."""
    return tl.load(ptr + cols, mask=(cols < n_left) & (row < M), other=other).to(tl.float32)


def _zero_arrived(nargs: dict) -> None:
    # a config's pre_hook runs before every launch, the autotuner's timing runs and its final run alike
    nargs["Arrived"].zero_()


def split_config(split: int, warps: int) -> triton.Config:
    assert split in SPLITS, split  # `launch_split` sizes Partials for the largest
    return triton.Config({"SPLIT": split}, num_warps=warps, pre_hook=_zero_arrived)


def split_configs() -> list:
    return [split_config(s, w) for s in SPLITS for w in (8, 16, 32)]


def split_keep(c, np2: int) -> bool:
    """Parts of 4 to 32 values per thread, each at least 2048 columns."""
    part = np2 // c.kwargs["SPLIT"]
    return part >= 2048 and 4 <= part // (32 * c.num_warps) <= 32


def prune_split(configs, named_args, **kwargs):  # noqa: ANN001, ANN201 - the autotuner's prune hook
    np2 = {**named_args, **kwargs}["NP2"]  # launchers pass arguments by keyword
    return [c for c in configs if split_keep(c, np2)] or [configs[0]]


def use_split(config, np2: int, min_width: int, raw) -> bool:  # noqa: ANN001
    """An explicit config picks its kernel; otherwise rows at least `min_width` wide (next power of two)
    are split, except under the interpreter (see the module docstring)."""
    from ._common import interpreting

    if config is not None:
        return "SPLIT" in config.kwargs
    return np2 >= min_width and not interpreting(raw)


_SMS: dict = {}


def persistent_grid(device, rows: int):  # noqa: ANN001, ANN201
    """One program per SM (4 under the interpreter), in whole groups of SPLIT, no more groups than rows."""
    import torch

    if device.type == "cuda":
        if device not in _SMS:
            _SMS[device] = torch.cuda.get_device_properties(device).multi_processor_count
        sms = _SMS[device]
    else:
        sms = 4
    return lambda meta: (max(1, min(rows, sms // meta["SPLIT"])) * meta["SPLIT"],)


def launch_split(tuned, raw, args: dict, config) -> None:  # noqa: ANN001
    """Launch a split kernel over args["M"] rows with fresh buffers (autotuned unless `config`)."""
    import torch

    from ._common import launch

    device = args["X"].device
    rows = args["M"]
    arrived = torch.empty(rows, dtype=torch.int32, device=device)  # zeroed by the config's pre_hook
    partials = torch.empty(rows * 2 * max(SPLITS), dtype=torch.float32, device=device)
    launch(tuned, raw, persistent_grid(device, rows),
           dict(args, Arrived=arrived, Partials=partials, launch_cooperative_grid=True), config, None)
