"""Which `torch.cuda.*` lookups does `torch.jit.script` accept? Run by hand on a CPU and a CUDA build.

    python benchmarks/ts_cuda_lookups.py

Prints one line per lookup: SCRIPTS or FAIL with the first line of the error. TS138 flags only the
lookups that fail on both builds (the `cuda::` ops are registered only in CUDA builds).
"""
import importlib.util
import os
import sys
import tempfile
import warnings

import torch

LOOKUPS = ["torch.cuda.is_available()", "torch.cuda.device_count()", "torch.cuda.synchronize()",
           "torch.cuda.current_device()", "torch.cuda.current_stream()", "torch.cuda.empty_cache()",
           "torch.cuda.is_initialized()", "torch.cuda.max_memory_allocated()", "torch.cuda.get_device_name(0)",
           "torch.cuda.set_device(0)", "torch.cuda.memory_allocated()", "torch.cuda.get_device_capability()",
           "torch.cuda.is_bf16_supported()"]


def main() -> None:
    warnings.simplefilter("ignore")
    print("torch", torch.__version__, "cuda build:", torch.version.cuda, "available:", torch.cuda.is_available())
    tmp = tempfile.mkdtemp()
    for i, expr in enumerate(LOOKUPS):
        path = os.path.join(tmp, f"cuda_lookup_{i}.py")
        with open(path, "w") as f:
            f.write(f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        v = {expr}\n        return x\n")
        spec = importlib.util.spec_from_file_location(f"cuda_lookup_{i}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        try:
            torch.jit.script(mod.M())
            verdict = "SCRIPTS"
        except Exception as err:  # the verdict is the point
            verdict = "FAIL " + type(err).__name__ + ": " + next((ln for ln in str(err).splitlines() if ln.strip()), "")[:90]
        print(f"{expr:45s} {verdict}")


if __name__ == "__main__":
    main()
