"""What torch does with the calls and constructs the rules look at, as tables.

One table per fact, each carrying the torch releases it was verified on (`verified_on`, newest first), the way
TorchFix keeps its deprecated symbols in one file: the rules and the semantic model import these tables and
never list the same names again. Where a release behaves differently the table says so in its comment, and the
rule that reads it names the other release's id (`Rule.older_gb_ids`).

- `modes.py`: which compile mode runs a line (`torch.compiler.is_compiling()` and its kin), where a compiled
  frame begins (`@torch.compile`), what keeps Dynamo out (`@torch.compiler.disable`), Dynamo's config names.
- `dynamo.py`: calls Dynamo does not trace (the graph break each gives), grouped by library.
- `shapes.py`: ops whose output size depends on data, ops with no meta kernel, arguments torch reads as Python
  ints, op parameters Dynamo specialises.
- `export.py`: what torch.export needs declared (pytree registration).
- `guards.py`: what Dynamo guards on a frame's values and how often each kind recompiles, the recompile limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class Names(frozenset):
    """Qualified names (or method names) torch treats alike, with the releases that was verified on."""

    verified_on: tuple[str, ...]

    def __new__(cls, names: Iterable[str], *, verified_on: tuple[str, ...]) -> "Names":
        if not verified_on:
            raise ValueError("a torch table needs the releases it was verified on")
        table = super().__new__(cls, names)
        table.verified_on = verified_on
        return table

    def __reduce__(self):  # noqa: ANN204 - frozenset's own reduce would call Names(items) without verified_on
        return _names, (frozenset(self), self.verified_on)


def _names(items: frozenset, verified_on: tuple[str, ...]) -> Names:
    return Names(items, verified_on=verified_on)


class Table(dict):
    """A mapping from a qualified name to what torch does with it (a graph-break id, an argument position),
    with the releases that was verified on."""

    verified_on: tuple[str, ...]

    def __init__(self, entries: Mapping, *, verified_on: tuple[str, ...]) -> None:
        if not verified_on:
            raise ValueError("a torch table needs the releases it was verified on")
        super().__init__(entries)
        self.verified_on = verified_on
