"""Check the factories of one models file: each builds, runs eagerly on every input set, and compiles.

    python benchmarks/realworld/check_models.py benchmarks/realworld/models/kornia_models.py [make_name ...]

Prints, per factory, the build time, the eager time over all input sets, and the time of a torch.compile
(backend "eager") over all input sets, or the error. Run it with the benchmark's venv (README.md).
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback


def load(path: str):  # noqa: ANN201
    spec = importlib.util.spec_from_file_location("_realworld_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    import torch

    module = load(argv[0])
    names = argv[1:] or [n for n in dir(module) if n.startswith("make_")]
    bad = 0
    for name in names:
        t = time.perf_counter()
        try:
            built = getattr(module, name)()
            model, sets = built["model"], built["inputs"]
            sets = [tuple(s) if isinstance(s, (tuple, list)) else (s,) for s in sets]
            t_build = time.perf_counter() - t
            t = time.perf_counter()
            with torch.no_grad():
                for s in sets:
                    model(*s)
            t_eager = time.perf_counter() - t
            t = time.perf_counter()
            torch._dynamo.reset()
            compiled = torch.compile(model, backend="eager")
            with torch.no_grad():
                for s in sets:
                    compiled(*s)
            t_compile = time.perf_counter() - t
            print(f"{name}: ok, {len(sets)} input sets, build {t_build:.1f}s, eager {t_eager:.1f}s, "
                  f"compile {t_compile:.1f}s")
        except Exception as err:  # noqa: BLE001
            bad += 1
            print(f"{name}: FAILED {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
            traceback.print_exc(limit=-3)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
