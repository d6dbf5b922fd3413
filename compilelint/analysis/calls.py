"""Call gates: which calls a rule's visit_Call can report on, so that the analyzer can skip it on all others.

A lint run meets a `Call` node more often than any other, and about 80 rules have a visit_Call; most of
them look at a handful of callees (`print`, `x.item()`, `numpy.*`). A rule declares those as its
`call_gate`; the analyzer (compilelint.analyzer._GatedCalls) indexes the gates of all selected rules and
runs, per call, only the rules whose gate matches. A gate must admit every call the rule can report on
(it may admit more): tests/test_graph_breaks.py::test_call_gates_change_no_finding compares the
findings with and without gating on the corpora and every rule's examples.
"""

from __future__ import annotations

from typing import NamedTuple


class CallGate(NamedTuple):
    """The calls a rule can report on: its visit_Call is skipped unless the call matches one field. names: the callee's
    qualified name (call_name); heads: that name's first dotted part (`numpy` for numpy.random.rand);
    methods: the attribute called, whatever the receiver (`x.item()`); bare: a plain name as written."""
    names: frozenset = frozenset()
    heads: frozenset = frozenset()
    methods: frozenset = frozenset()
    bare: frozenset = frozenset()


def gate(names=(), heads=(), methods=(), bare=()) -> CallGate:  # noqa: ANN001
    return CallGate(frozenset(names), frozenset(heads), frozenset(methods), frozenset(bare))
