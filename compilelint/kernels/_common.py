"""Helpers shared by the kernel launchers (no kernel logic)."""

from __future__ import annotations

import triton


def interpreting(kernel) -> bool:
    """True when ``kernel`` was built by Triton's CPU interpreter (``TRITON_INTERPRET=1`` at import)."""
    from triton.runtime.interpreter import InterpretedFunction

    fn = kernel
    while not isinstance(fn, InterpretedFunction) and hasattr(fn, "fn"):  # Autotuner/Heuristics wrap .fn
        fn = fn.fn
    return isinstance(fn, InterpretedFunction)


def launch(tuned, raw, grid, args: dict, config: triton.Config | None, interp_config: triton.Config):
    """Launch through the autotuner, or ``raw`` with one explicit config.

    ``config`` forces a configuration (tests use it to check several); under the interpreter the
    autotuner cannot time anything, so ``interp_config`` is used there. Once the autotuner has chosen a
    config for this call's key, ``raw`` is launched with it directly: on one H200 host a (256, 12) softmax
    took 60 us of CPU time through ``Autotuner.run`` and 30 us this way (torch.softmax: 11 us).
    """
    if config is None and interpreting(raw):
        config = interp_config
    if config is None:
        config = tuned_config(tuned, args)
        if config is None:  # first call for this key: the autotuner times the configs
            tuned[grid](**args)
            return
    if config.pre_hook is not None:  # e.g. TMA block shapes that depend on the config
        config.pre_hook({**args, **config.kwargs})
    raw[grid](**args, **config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)


def tuned_config(tuned, args: dict):  # noqa: ANN001, ANN201
    """The config ``tuned`` (a ``triton.autotune`` wrapper) chose for the key of a call with ``args``
    (all passed by keyword), or None before it has run for that key. The key is Autotuner.run's: the
    values of its key arguments, then the dtype of every tensor argument, in the order passed."""
    return tuned.cache.get(tuned_key(tuned, args))


def tuned_key(tuned, args: dict) -> tuple:  # noqa: ANN001
    key = [args[k] for k in tuned.keys if k in args]
    key += [str(v.dtype) for v in args.values() if hasattr(v, "dtype")]
    return tuple(key)


def as_rows(x, out):  # noqa: ANN001, ANN201
    """View x (any leading shape) as (M, N) rows with a unit last stride, and `out` (allocated like x
    when None) the same way: (x2, y2, out, M, N). Row-wise kernels (norms, softmax) share this."""
    import torch

    N = x.shape[-1]
    x2 = x.reshape(-1, N)
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    return x2, out.view(-1, N), out, x2.shape[0], N


def next_pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


# -- the row-wise kernels' (norms, softmax) shared config space ---------------------------------------
# TILE: whole rows, TILE // next_pow2(N) of them per program (1: the 1-D path), or, with CHUNKED, one row
# per program in chunks of TILE columns; HINTS: L2 eviction hints on the row's loads.


def rowwise_config(tile: int, warps: int, chunked: bool = False, hints: bool = False) -> triton.Config:
    return triton.Config({"TILE": tile, "CHUNKED": chunked, "HINTS": hints}, num_warps=warps)


def rowwise_configs() -> list:
    out = []
    for tile in (1024, 2048, 4096, 8192, 16384, 32768, 65536):  # whole rows
        for w in (4, 8, 16, 32):
            for hints in (False, True):
                out.append(rowwise_config(tile, w, False, hints))
    for tile in (1024, 2048, 4096, 8192, 16384):  # chunks of wide rows
        for w in (4, 8, 16, 32):
            for hints in (False, True):
                out.append(rowwise_config(tile, w, True, hints))
    return out


def rowwise_keep(c, np2: int) -> bool:
    """Whether config `c` is tried for rows of next_pow2 width `np2` (the autotuner's prune)."""
    tile, w, chunked, hints = c.kwargs["TILE"], c.num_warps, c.kwargs["CHUNKED"], c.kwargs["HINTS"]
    per_thread = tile // (32 * w)
    if chunked:  # rows of 8K and more (Inductor's shape there: two passes, L2 hints); 8-32 values per thread
        return np2 >= 8192 and tile < np2 and 8 <= per_thread <= 32
    if tile < np2:
        return False
    if np2 <= 4096:  # narrow rows: several per program, as before; no hint variants
        return w <= 16 and not hints and 2 <= per_thread <= 64
    if tile // np2 > 4:
        return False
    if w == 32 and tile == np2 == 65536:  # a 64K row in registers: 64 values per thread (spills): timed
        return True
    return 4 <= per_thread <= (32 if w == 32 else 64)  # a superset of the earlier space at 8K


def rowwise_interp_config(np2: int, max_fused: int) -> triton.Config:
    """The configuration used under the CPU interpreter (no timing there)."""
    if np2 > max_fused:
        return rowwise_config(1024, 4, chunked=True)
    return rowwise_config(4 * np2 if np2 <= 64 else np2, 4)


def rowwise_grid(M: int, np2: int):  # noqa: ANN201
    return lambda meta: (M if meta["CHUNKED"] else triton.cdiv(M, meta["TILE"] // np2),)


def _fix_interpreter_index() -> None:
    """Triton 3.6's CPU interpreter turns a scalar into ``int(np.array([v]))``, which numpy >= 2.4
    rejects ("only 0-dimensional arrays can be converted"), so any loop with a run-time bound fails
    under ``TRITON_INTERPRET=1``. Wrap its tensor patch to read the one element with ``.item()``.
    Touches only the interpreter (GPU compilation never uses it); a no-op where int() still works."""
    import numpy as np

    try:
        int(np.array([1]))
        return
    except TypeError:
        pass
    from triton.runtime import interpreter

    original = interpreter._patch_lang_tensor
    if getattr(original, "_compilelint_fixed", False):
        return

    def patched(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    patched._compilelint_fixed = True
    interpreter._patch_lang_tensor = patched


def _fix_interpreter_bf16_dot() -> None:
    """Triton 3.6's interpreter keeps bf16 as raw uint16 and its ``tl.dot`` multiplies those integers
    (a bf16 ``tl.dot`` returns ~1e10 garbage under ``TRITON_INTERPRET=1``). Widen bf16 operands to
    float32 first (exact: bf16 is the top half of a float32). Interpreter only."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    original = builder.create_dot
    if getattr(original, "_compilelint_fixed", False):
        return

    def widen(h):
        if h.dtype == tl.bfloat16:
            return interpreter.TensorHandle((h.data.astype(np.uint32) << 16).view(np.float32), tl.float32)
        return h

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return original(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    create_dot._compilelint_fixed = True
    builder.create_dot = create_dot


try:
    from triton import knobs as _knobs

    if _knobs.runtime.interpret:
        _fix_interpreter_index()
        _fix_interpreter_bf16_dot()
except Exception:  # pragma: no cover - older triton without knobs: nothing to fix
    pass
