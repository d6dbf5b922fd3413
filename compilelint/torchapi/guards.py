"""What Dynamo guards on a frame's values, and how often each kind recompiles when the value differs.

A frame is a function Dynamo compiles: an entry (`forward`, a `@torch.compile` function), a function whose caller
broke the graph while inlining it (it becomes a frame of its own, shared by every instance of its class), and the
resume function of each break (`torch_dynamo_resume_in_<fn>_at_<line>`), whose inputs are the locals and stack
values the break hands over. Each kind below was verified with five calls of differing values, recompile log on.
"""

from __future__ import annotations

from compilelint.torchapi import Names, Table

ONCE = "once"  # automatic dynamic: the second distinct value makes it a symbol, no later recompile
PER_VALUE = "per value"  # each distinct value compiles its own graph, up to the recompile limit
EVERY_CALL = "every call"  # a guard no call can pass twice

# Dynamo's default torch._dynamo.config.recompile_limit: past it, the frame runs eagerly for good.
RECOMPILE_LIMIT = 8

# kind of value -> how often a changed value recompiles the frame guarding it (2.13, backend="eager"):
# - an int or float argument (also one handed to a resume frame, `___stack0 == 10`): `n == 10`, then a symbol;
# - a tensor's size: one recompile per dimension, then dynamic (0/1 stay specialised: `2 <= x.size()[0]`);
# - a list's length (`len(lst) == 2`): every distinct length;
# - `requires_grad` of an input (`tensor 'x' requires_grad mismatch`): one graph per value, e.g. a layer's first
#   instance fed the model's input and the next fed a hidden state that requires grad;
# - the shapes of a module's parameters (`... _parameters['weight'] size mismatch ... Guard failed on a
#   parameter`): parameters keep static shapes, so instances of one class with other widths compile one graph each;
# - a bound method of a temporary held on the stack across two breaks in one call's arguments
#   (`d.update({"a": x[m], "b": y[m]})`: "Cache line invalidated because L['___stack0'] got deallocated").
# Each kind tests/test_guard_kinds.py names is shown there by a bad and a good case over five calls (2.13).
GUARD_POLICY = Table({
    "int argument": ONCE,
    "float argument": ONCE,
    "int global": PER_VALUE,  # `G['SCALE'] == 2`: a module-level int never goes dynamic
    "float global": ONCE,
    "str argument": PER_VALUE,
    "None-ness": PER_VALUE,
    "bool argument": PER_VALUE,
    "enum argument": PER_VALUE,
    "tuple of ints": ONCE,  # each int of it is a number argument
    "list length": PER_VALUE,
    "dict key set": PER_VALUE,
    "module type": PER_VALUE,
    "int attribute mutated in forward": EVERY_CALL,
    "tensor size": ONCE,
    "size specialised by an op": PER_VALUE,  # `range(x.shape[0])`, RC515's op parameters
    "range guard": ONCE,  # `if x.shape[0] > 4:` on a dynamic size: crossing it compiles the other side
    "0/1 specialisation": ONCE,  # a size of 1 is never taken by a dynamic entry (`2 <= s`)
    "mark_static": PER_VALUE,
    "input requires_grad": PER_VALUE,
    "parameter shape": PER_VALUE,
    "temporary across breaks": EVERY_CALL,
    "tensor or number argument": PER_VALUE,  # one graph per type (RC519)
}, verified_on=("2.13",))

# Methods of a local list or dict whose bound method Dynamo holds on the stack while it evaluates the call's
# arguments: with two or more graph breaks among them, each resume frame but the last guards that method object by
# weak reference, a new object every call, so it recompiles on every call (`lst.append(torch.cat([x[m], y[m]]))`,
# `d.update({"a": x[m], "b": y[m]})`, `lst.extend([...])`; 2.13). A global function, a method of `self`, a
# tensor's method or `d.__setitem__` there recompile once (automatic dynamic), not every call.
HELD_ACROSS_BREAKS = Names({"append", "extend", "update"}, verified_on=("2.13",))

# Calls that test a value's type without reading it: Dynamo answers them from the type it guards on the value,
# so a branch on them is where an argument that takes a tensor or a number forks (2.13).
TYPE_TESTS = Names({"torch.is_tensor"}, verified_on=("2.13",))
