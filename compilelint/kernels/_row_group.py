"""A row split over a group of programs that hold it in registers and swap partial statistics.

Rows too wide for one program's registers (64K columns) otherwise take two passes over the row (a
statistics pass, then a normalising pass that re-reads it, hopefully from L2): on an H200 that held
LayerNorm at 74% and softmax at 70% of copy bandwidth. Here a row is cut into ``SPLIT`` parts, one per
program; each program loads its part once, publishes two partial statistics (for example the part's
mean and M2), waits until its row's other parts have published theirs, combines them, and writes its
part. One read and one write per element, as for narrow rows.

Waiting on other programs is safe only if they are sure to run. Programs take their (row, part) from a
ticket counter (an atomic increment as they start), not from ``program_id``: every ticket below a
running program's was taken by a program that is running or done, so every row but the newest one has
all its parts running and finishes; its programs leave, and the newest row's later parts get their
turn. (``program_id`` order is how CUDA usually starts blocks, but it does not promise it.)

Under Triton's CPU interpreter programs run one after the other, so only ``SPLIT == 1`` can run there
(tests use it to check the exchange); launchers never pick the split kernels in interpreter mode.

``Sync`` is an int32 buffer of 1 + rows zeros (ticket counter, then one arrival counter per row);
``Partials`` holds 2 float32 per (row, part). ``launch_split`` allocates both per launch.
"""

from __future__ import annotations

import triton
import triton.language as tl

SPLITS = (2, 4, 8, 16)


@triton.jit
def claim_part(Sync, SPLIT: tl.constexpr):
    """(row, part) for this program, in start order."""
    ticket = tl.atomic_add(Sync, 1)
    return (ticket // SPLIT).to(tl.int64), ticket % SPLIT


@triton.jit
def exchange(Sync, Partials, row, part, a, b, SPLIT: tl.constexpr):
    """Publish this part's (a, b); return the row's SPLIT values of a and of b, in part order."""
    base = Partials + row * (2 * SPLIT)
    tl.store(base + 2 * part, a)
    tl.store(base + 2 * part + 1, b)
    tl.debug_barrier()  # every thread's stores before the release below
    arrived = tl.atomic_add(Sync + 1 + row, 1, sem="release") + 1
    while arrived < SPLIT:
        arrived = tl.atomic_add(Sync + 1 + row, 0, sem="acquire")
    idx = tl.arange(0, SPLIT)
    all_a = tl.load(base + 2 * idx, volatile=True)  # volatile: not from this SM's L1, which may be stale
    all_b = tl.load(base + 2 * idx + 1, volatile=True)
    return all_a, all_b


def _zero_sync(nargs: dict) -> None:
    # a config's pre_hook runs before every launch, the autotuner's timing runs and its final run alike
    # (its reset_to_zero covers only the timing runs, and stale tickets would index rows past the end)
    nargs["Sync"].zero_()


def split_config(split: int, warps: int) -> triton.Config:
    return triton.Config({"SPLIT": split}, num_warps=warps, pre_hook=_zero_sync)


def split_configs() -> list:
    return [split_config(s, w) for s in SPLITS for w in (4, 8, 16, 32)]


def split_keep(c, np2: int) -> bool:
    """Parts of 8 to 32 values per thread, at least 4096 columns each (narrower rows fit one program)."""
    part = np2 // c.kwargs["SPLIT"]
    return part >= 4096 and 8 <= part // (32 * c.num_warps) <= 32


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


def launch_split(tuned, raw, args: dict, config) -> None:  # noqa: ANN001
    """Launch a split kernel over args["M"] rows with fresh sync buffers (autotuned unless `config`)."""
    import torch

    from ._common import launch

    rows = args.pop("M")
    device = args["X"].device
    sync = torch.empty(rows + 1, dtype=torch.int32, device=device)  # zeroed by the config's pre_hook
    partials = torch.empty(rows * 2 * max(SPLITS), dtype=torch.float32, device=device)
    launch(tuned, raw, lambda meta: (rows * meta["SPLIT"],), dict(args, Sync=sync, Partials=partials), config, None)
