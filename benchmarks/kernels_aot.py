"""Compile the row-wise kernels' autotune configs (norms, softmax) for a GPU target without a GPU:
Triton's compiler down to PTX, then the bundled ptxas for registers and spills. Catches configs that
fail to compile and shows which ones spill, before device time is spent on them.

    PYTHONPATH=. python3 benchmarks/kernels_aot.py [--arch 90] [--widths 8192 65536 ...] [--dtypes bf16 fp32]

Every config the autotuner would try (after its prune) at each width, for RMSNorm, LayerNorm and
softmax, then the norms' register-resident path for bf16 rows of 64K (the launcher's choice, not tuned). Pointers and row strides are marked 16-divisible, as the runtime specialises them for
aligned rows. Nothing runs: this checks compilation, not results (tests/test_kernels.py does that).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compilelint.kernels import norms, softmax  # noqa: E402
from compilelint.kernels._common import next_pow2, rowwise_keep  # noqa: E402

NORM_SIG = {"X": "*DT", "Y": "*DT", "W": "*DT", "B": "*DT", "M": "i32", "N": "i32", "stride_xm": "i32",
            "stride_ym": "i32", "eps": "fp32", "IS_RMS": "constexpr", "HAS_W": "constexpr", "HAS_B": "constexpr",
            "NP2": "constexpr", "EVEN_N": "constexpr", "TILE": "constexpr", "CHUNKED": "constexpr",
            "HINTS": "constexpr"}
SM_SIG = {"X": "*DT", "Y": "*DT", "M": "i32", "N": "i32", "stride_xm": "i32", "stride_ym": "i32",
          "NP2": "constexpr", "EVEN_N": "constexpr", "TILE": "constexpr", "CHUNKED": "constexpr", "HINTS": "constexpr"}


def ptxas_info(ptx: str, arch: int) -> str:
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx)
    try:
        r = subprocess.run([ptxas, f"-arch=sm_{arch}a" if arch == 90 else f"-arch=sm_{arch}", "-v", f.name,
                            "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode:
        return "ptxas FAILED: " + r.stderr.strip()[-300:]
    regs = next((ln.split("Used ")[1].split(",")[0] for ln in r.stderr.splitlines() if "Used " in ln), "?")
    spill = next((ln.split(": ")[-1].strip() for ln in r.stderr.splitlines() if "spill" in ln), "?")
    return f"{regs}; {spill}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--widths", type=int, nargs="*", default=[512, 1024, 8192, 65536, 40000])
    ap.add_argument("--dtypes", nargs="*", default=["bf16"])
    a = ap.parse_args()
    target = GPUTarget("cuda", a.arch, 32)
    failures = 0
    for dt in a.dtypes:
        for n in a.widths:
            np2, div = next_pow2(n), n % 16 == 0
            for kind in ("rms", "ln", "softmax"):
                fn = softmax._softmax_kernel if kind == "softmax" else norms._norm_kernel
                base = SM_SIG if kind == "softmax" else NORM_SIG  # `attrs` below names parameters by position:
                sig = {k: base[k].replace("DT", dt) for k in fn.arg_names}  # keep the kernel's order
                aligned = [i for i, (k, v) in enumerate(sig.items()) if v.startswith("*")
                           or (div and (k.startswith("stride") or k == "N"))]
                attrs = {(i,): [["tt.divisibility", 16]] for i in aligned}
                for c in (softmax.CONFIGS if kind == "softmax" else norms.CONFIGS):
                    if not rowwise_keep(c, np2):
                        continue
                    cx = dict(NP2=np2, EVEN_N=n == np2, **c.kwargs)
                    if kind != "softmax":
                        cx.update(IS_RMS=kind == "rms", HAS_W=True, HAS_B=kind == "ln")
                    try:
                        k = triton.compile(ASTSource(fn, sig, cx, attrs=attrs), target=target,
                                           options=dict(num_warps=c.num_warps, num_stages=c.num_stages))
                        info = ptxas_info(k.asm["ptx"], a.arch)
                        failures += info.startswith("ptxas FAILED")
                    except Exception as e:  # a config that does not compile is the finding
                        failures += 1
                        info = f"FAILED {type(e).__name__}: {str(e)[:300]}"
                    print(f"{kind:8s} N={n:<6d} {dt:5s} {str(c.kwargs):52s} warps={c.num_warps:<2d} {info}", flush=True)
    failures += resident(target, a.arch)
    print(f"failures: {failures}")
    return 1 if failures else 0


RESIDENT_SIG = {"X": "*bf16", "Y": "*bf16", "W": "*bf16", "B": "*bf16", "M": "i32", "N": "constexpr",
                "stride_xm": "i32", "stride_ym": "i32", "eps": "fp32", "IS_RMS": "constexpr", "HAS_W": "constexpr",
                "HAS_B": "constexpr", "PF": "constexpr", "ASM": "constexpr"}


def resident(target, arch: int) -> int:
    """The launcher's own path for bf16 rows of RESIDENT_N (norms._norm_resident; no autotuner configs),
    as the launcher compiles it: 32 warps, inline asm, the prefetch for LayerNorm only."""
    failures = 0
    sig = {k: RESIDENT_SIG[k] for k in norms._norm_resident.arg_names}
    attrs = {(i,): [["tt.divisibility", 16]] for i, (k, v) in enumerate(sig.items())
             if v.startswith("*") or k.startswith("stride")}
    for is_rms, has_w, has_b in ((False, True, True), (False, False, False), (True, True, False), (True, False, False)):
        cx = dict(N=norms.RESIDENT_N, IS_RMS=is_rms, HAS_W=has_w, HAS_B=has_b, PF=0 if is_rms else 132, ASM=True)
        try:
            k = triton.compile(ASTSource(norms._norm_resident, sig, cx, attrs=attrs), target=target,
                               options=dict(num_warps=32))
            info = ptxas_info(k.asm["ptx"], arch)
            failures += info.startswith("ptxas FAILED")
        except Exception as e:
            failures += 1
            info = f"FAILED {type(e).__name__}: {str(e)[:300]}"
        kind = "rms" if is_rms else "ln"
        print(f"{kind:8s} N={norms.RESIDENT_N:<6d} bf16  resident W={has_w!s:5} B={has_b!s:5}{'':26s} warps=32 {info}", flush=True)
    return failures


if __name__ == "__main__":
    sys.exit(main())
