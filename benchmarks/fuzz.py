"""The long fuzz run: lint N generated or mutated sources in-process and count crashes.

    python benchmarks/fuzz.py --cases 10000 --seed 1

Sources: hypothesmith (syntactically valid Python from the grammar) and byte-level mutations
(truncation, bit flips, NUL bytes, random inserts/deletes, BOM, CRLF/CR line ends, latin-1 bytes)
of the bundled fixtures and of this package's own files. A crash is any exception escaping
`analyze_source`, or a finding with an impossible position.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import time
import traceback

from compilelint.analyzer import analyze_source
from compilelint.rules.registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus() -> list[bytes]:
    paths = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, "compilelint", "**", "*.py"), recursive=True))[:40]
    return [open(p, "rb").read() for p in paths]


def mutate(rng: random.Random, source: bytes) -> bytes:
    data = bytearray(source)
    for _ in range(rng.randint(1, 4)):
        op = rng.choice(["truncate", "flip", "nul", "insert", "delete", "bom", "crlf", "cr", "latin1", "tabs"])
        pos = rng.randint(0, len(data))
        if op == "truncate":
            data = data[:pos]
        elif op == "flip" and pos < len(data):
            data[pos] ^= 1 << rng.randint(0, 7)
        elif op == "nul":
            data[pos:pos] = b"\0"
        elif op == "insert":
            data[pos:pos] = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 8)))
        elif op == "delete":
            del data[pos:pos + rng.randint(1, 40)]
        elif op == "bom":
            data[0:0] = b"\xef\xbb\xbf"
        elif op == "crlf":
            data = bytearray(bytes(data).replace(b"\n", b"\r\n"))
        elif op == "cr":
            data = bytearray(bytes(data).replace(b"\n", b"\r"))
        elif op == "latin1":
            data[pos:pos] = b"\xe9\xff"
        elif op == "tabs":
            data = bytearray(bytes(data).replace(b"    ", b"\t", rng.randint(1, 5)))
    return bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generated-share", type=float, default=0.2)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rules = [r() for r in all_rules().values()]
    sources = corpus()
    generated = None
    if args.generated_share > 0:
        import hypothesmith
        from hypothesis import HealthCheck, given, settings

        pool: list[str] = []
        n_generated = int(args.cases * args.generated_share)

        @settings(max_examples=n_generated, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(hypothesmith.from_grammar())
        def collect(src: str) -> None:
            pool.append(src)

        collect()
        generated = pool
    crashes, parse_errors, findings = 0, 0, 0
    start = time.time()
    for i in range(args.cases):
        if generated and i < len(generated):
            source = generated[i].encode("utf-8", "surrogatepass")
        else:
            source = mutate(rng, rng.choice(sources))
        try:
            result = analyze_source(f"case{i}.py", source, rules, f"case{i}", False)
            for f, _, _ in result.findings:
                assert f.line >= 1 and f.col >= 0 and f.end_line >= f.line, f
            parse_errors += result.summary is None
            findings += len(result.findings)
        except Exception:
            crashes += 1
            print(f"CRASH on case {i}:\n{traceback.format_exc()}")
    print(f"{args.cases} cases ({len(generated or [])} generated, {args.cases - len(generated or [])} mutated) "
          f"in {time.time() - start:.0f}s: {crashes} crashes, {parse_errors} parse errors, {findings} findings")


if __name__ == "__main__":
    main()
