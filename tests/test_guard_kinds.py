"""What Dynamo guards, kind by kind, through a real compile: a bad and a good case each, counted over five calls.

compilelint/torchapi/guards.py (`GUARD_POLICY`, `RECOMPILE_LIMIT`) and the RC rules rest on these: how often a
frame recompiles when a value of each kind differs between calls. Every case compiles with backend="eager" and
torch's defaults (automatic dynamic on), calls the compiled function on five input sets (a `before` hook changes a
global or a stance between calls where the case needs it) and counts the recompile log's "Recompiling function"
records. `bad` is the pattern that recompiles, `good` the way to write it that does not (or recompiles less);
both counts are asserted exactly, on the torch release the suite runs (2.13 in CI; run on 2.11 too:
`python -m pytest -q tests/test_guard_kinds.py`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from compilelint.runtime_probe.observe import _dynamo_logs  # noqa: E402
from compilelint.torchapi.guards import GUARD_POLICY, RECOMPILE_LIMIT  # noqa: E402


@dataclass
class Run:
    fn: Callable
    inputs: Callable[[], list[tuple]]  # built fresh for each run
    before: Callable[[int], Any] | None = None  # called before the i-th call (a global, a stance)
    dynamic: bool | None = None
    calls: int = 5


@dataclass
class Case:
    kind: str
    bad: Run
    bad_recompiles: int
    good: Run
    good_recompiles: int
    how_often: str  # the GUARD_POLICY wording: "once", "per value", "every call"
    notes: str = ""
    extra: dict = field(default_factory=dict)


def recompiles(run: Run, log: list | None = None) -> tuple[int, list[str]]:
    torch._dynamo.reset()
    inputs = run.inputs()
    with _dynamo_logs() as records:
        compiled = torch.compile(run.fn, backend="eager", dynamic=run.dynamic)
        for i in range(run.calls):
            if run.before is not None:
                run.before(i)
            compiled(*inputs[i % len(inputs)])
    torch._dynamo.reset()
    if log is not None:
        log.extend(m for _, m in records)
    found = [m for n, m in records if n.endswith("__recompiles") and "Recompiling function" in m]
    return len(found), [m.strip().splitlines()[-1].strip()[:160] for m in found]


# -- numbers: int and float arguments and globals specialise, then automatic dynamic (one recompile) -------------

def scale_by(x, n):
    return x * n


def scale_by_tensor(x, n):
    return x * n


SCALE = 2
FACTOR = 0.5


def scale_by_global(x):
    return x * SCALE


def scale_by_float_global(x):
    return x * FACTOR


def set_scale(i):
    global SCALE
    SCALE = 2 + i


def set_factor(i):
    global FACTOR
    FACTOR = 0.5 + i / 10


# -- per value: strings, None-ness, bools, enums, tuples of ints, list lengths, dict key sets, module types ------

def reduce_by(x, mode: str):
    if mode == "sum":
        return x.sum(0)
    return x.mean(0)


class Reduce(nn.Module):
    def __init__(self, mode="sum"):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        if self.mode == "sum":
            return x.sum(0)
        return x.mean(0)


def masked(x, mask):
    if mask is None:
        return x + 1
    return x * mask


def masked_always(x, mask):
    return x * mask  # callers pass torch.ones_like(x) for "no mask"


def maybe_relu(x, flag: bool):
    if flag:
        return x.relu()
    return x


def both(x, flag: bool):
    return torch.where(torch.tensor(flag), x.relu(), x)


class Mode(enum.Enum):
    A = 1
    B = 2
    C = 3


def by_mode(x, mode: Mode):
    if mode is Mode.A:
        return x + 1
    if mode is Mode.B:
        return x * 2
    return x - 1


def by_mode_tensor(x, mode):
    return torch.where(mode == 1, x + 1, torch.where(mode == 2, x * 2, x - 1))


def reshaped(x, shape):
    return x.reshape(shape)


def reshaped_infer(x, cols):
    return x.reshape(-1, cols)


def total(xs):
    out = xs[0]
    for t in xs[1:]:
        out = out + t
    return out


def total_stacked(xs):
    return xs.sum(0)


def keyed(d):
    return sum(v.sum() for v in d.values())


def keyed_fixed(d):
    return d["a"].sum() + d["b"].sum()


def apply_module(m, x):
    return m(x)


# -- module state: an int attribute changed in forward ------------------------------------------------------------

class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        self.step += 1
        return x * self.step


class CounterBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.step += 1
        return x * self.step


# -- sizes ---------------------------------------------------------------------------------------------------------

def double(x):
    return x * 2


def summed_rows(x):
    out = x[0]
    for i in range(1, x.shape[0]):
        out = out + x[i]
    return out


def summed_rows_vectorised(x):
    return x.sum(0)


def branch_on_size(x):
    if x.shape[0] > 4:
        return x * 2
    return x + 1


def branch_free(x):
    return x * 2


def _sizes(*ns: int, cols: int = 3) -> Callable[[], list[tuple]]:
    return lambda: [(torch.randn(n, cols),) for n in ns]


def _static_sizes(*ns: int) -> Callable[[], list[tuple]]:
    def build() -> list[tuple]:
        out = []
        for n in ns:
            x = torch.randn(n, 3)
            torch._dynamo.mark_static(x, 0)
            out.append((x,))
        return out
    return build


def _dynamic_sizes(*ns: int) -> Callable[[], list[tuple]]:
    def build() -> list[tuple]:
        out = []
        for n in ns:
            x = torch.randn(n, 3)
            torch._dynamo.mark_dynamic(x, 0)
            out.append((x,))
        return out
    return build


CASES = [
    Case("int argument", Run(scale_by, lambda: [(torch.randn(3), n) for n in (2, 3, 4, 5, 6)]), 1,
         Run(scale_by_tensor, lambda: [(torch.randn(3), torch.tensor(n)) for n in (2, 3, 4, 5, 6)]), 0, "once",
         "n == 2, then n is a SymInt; a 0-d tensor is data, never guarded by value"),
    Case("float argument", Run(scale_by, lambda: [(torch.randn(3), s) for s in (0.5, 0.6, 0.7, 0.8, 0.9)]), 1,
         Run(scale_by_tensor, lambda: [(torch.randn(3), torch.tensor(s)) for s in (0.5, 0.6, 0.7, 0.8, 0.9)]), 0,
         "once"),
    Case("int global", Run(scale_by_global, lambda: [(torch.randn(3),)], before=set_scale), 4,
         Run(scale_by_tensor, lambda: [(torch.randn(3), torch.tensor(2 + i)) for i in range(5)]), 0, "per value",
         "G['SCALE'] == 2 on every value: an int global never goes dynamic (a float global does, once)"),
    Case("float global", Run(scale_by_float_global, lambda: [(torch.randn(3),)], before=set_factor), 1,
         Run(scale_by_tensor, lambda: [(torch.randn(3), torch.tensor(0.5 + i / 10)) for i in range(5)]), 0, "once"),
    Case("str argument", Run(reduce_by, lambda: [(torch.randn(3, 2), m) for m in ("sum", "mean", "avg", "max", "min")]),
         4, Run(Reduce(), lambda: [(torch.randn(3, 2),)]), 0, "per value"),
    Case("None-ness", Run(masked, lambda: [(torch.randn(3), m) for m in (None, torch.ones(3), None, torch.ones(3),
                                                                        None)]), 1,
         Run(masked_always, lambda: [(torch.randn(3), m) for m in (torch.ones(3),) * 5]), 0, "per value"),
    Case("bool argument", Run(maybe_relu, lambda: [(torch.randn(3), f) for f in (True, False, True, False, True)]), 1,
         Run(both, lambda: [(torch.randn(3), torch.tensor(f)) for f in (True, False, True, False, True)]), 0,
         "per value"),
    Case("enum argument", Run(by_mode, lambda: [(torch.randn(3), m) for m in (Mode.A, Mode.B, Mode.C, Mode.A, Mode.B)]),
         2, Run(by_mode_tensor, lambda: [(torch.randn(3), torch.tensor(m)) for m in (1, 2, 3, 1, 2)]), 0,
         "per value"),
    Case("tuple of ints", Run(reshaped, lambda: [(torch.randn(12), s) for s in ((3, 4), (4, 3), (2, 6), (6, 2),
                                                                               (12, 1))]), 1,
         Run(reshaped_infer, lambda: [(torch.randn(12), 4) for _ in range(5)]), 0, "once",
         "each int of the tuple is a number: automatic dynamic, as an int argument"),
    Case("list length", Run(total, lambda: [([torch.randn(3)] * n,) for n in (2, 3, 4, 5, 6)]), 4,
         Run(total_stacked, lambda: [(torch.randn(n, 3),) for n in (2, 3, 4, 5, 6)]), 1, "per value",
         "len(xs) == 2 on every length; a stacked tensor's size goes dynamic once"),
    Case("dict key set", Run(keyed, lambda: [({k: torch.randn(2) for k in keys},) for keys in
                                            ("a", "ab", "abc", "abcd", "abcde")]), 4,
         Run(keyed_fixed, lambda: [({"a": torch.randn(2), "b": torch.randn(2)},) for _ in range(5)]), 0, "per value"),
    Case("module type", Run(apply_module, lambda: [(m, torch.randn(2, 4)) for m in (
        nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU(), nn.SiLU())]), 4,
         Run(apply_module, lambda: [(nn.ReLU(), torch.randn(2, 4)) for _ in range(5)]), 0, "per value"),
    Case("int attribute mutated in forward", Run(Counter(), lambda: [(torch.randn(3),)]), 4,
         Run(CounterBuffer(), lambda: [(torch.randn(3),)]), 0, "every call"),
    Case("tensor size", Run(double, _sizes(2, 3, 4, 5, 6)), 1, Run(double, _dynamic_sizes(2, 3, 4, 5, 6)), 0, "once",
         "automatic dynamic; mark_dynamic pre-empts the one recompile"),
    Case("size specialised by an op", Run(summed_rows, _sizes(2, 3, 4, 5, 6)), 4,
         Run(summed_rows_vectorised, _sizes(2, 3, 4, 5, 6)), 1, "per value",
         "range(x.shape[0]) makes the size a constant: every distinct size recompiles"),
    Case("range guard", Run(branch_on_size, _sizes(2, 3, 5, 6, 7)), 2, Run(branch_free, _sizes(2, 3, 5, 6, 7)), 1,
         "once", "x.shape[0] > 4 adds a guard on the dynamic size: crossing it compiles the other side once"),
    Case("0/1 specialisation", Run(double, _sizes(2, 3, 1, 4, 1)), 2, Run(double, _sizes(2, 3, 4, 5, 6)), 1, "once",
         "size 1 is always specialised: a dynamic entry (2 <= s) does not take it"),
    Case("mark_static", Run(double, _static_sizes(2, 3, 4, 5, 6)), 4, Run(double, _sizes(2, 3, 4, 5, 6)), 1,
         "per value", "a static dimension never goes dynamic"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_guard_kind(case: Case) -> None:
    assert GUARD_POLICY[case.kind] == case.how_often
    bad, bad_seen = recompiles(case.bad)
    good, good_seen = recompiles(case.good)
    assert (bad, good) == (case.bad_recompiles, case.good_recompiles), (
        f"{case.kind}: bad {bad} {bad_seen}, good {good} {good_seen}")


def test_recompile_limit_then_eager() -> None:
    """Past torch._dynamo.config.recompile_limit (8) cache entries the frame runs eagerly: a counter that changes
    every call compiles 8 graphs over 12 calls (7 recompiles), the 9th attempt hits the limit ("hit
    config.recompile_limit (8)") and the calls after it run eagerly, with no record; a buffer never recompiles."""
    assert torch._dynamo.config.recompile_limit == RECOMPILE_LIMIT
    log: list[str] = []
    bad, seen = recompiles(Run(Counter(), lambda: [(torch.randn(3),)], calls=12), log)
    good, _ = recompiles(Run(CounterBuffer(), lambda: [(torch.randn(3),)], calls=12))
    assert (bad, good) == (RECOMPILE_LIMIT, 0), seen
    assert any(f"recompile_limit ({RECOMPILE_LIMIT})" in m for m in log)


def test_fail_on_recompile_stance() -> None:
    """`torch.compiler.set_stance("fail_on_recompile")` after a warm-up call makes a recompile an error: the user's
    check that a model compiles once. A str argument that changes raises; sizes made dynamic up front do not."""
    def stance(i: int) -> None:
        if i == 1:
            torch.compiler.set_stance("fail_on_recompile")

    try:
        with pytest.raises(RuntimeError, match="fail_on_recompile|Detected recompile"):
            recompiles(Run(reduce_by, lambda: [(torch.randn(3, 2), m) for m in ("sum", "mean", "avg", "max", "min")],
                           before=stance))
    finally:
        torch.compiler.set_stance("default")
    try:
        assert recompiles(Run(double, _dynamic_sizes(2, 3, 4, 5, 6), before=stance))[0] == 0
    finally:
        torch.compiler.set_stance("default")
