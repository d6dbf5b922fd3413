"""TS180: a module attribute holding a config object (a dataclass, or an object holding one) read in compiled code."""
from __future__ import annotations

import dataclasses
import json

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message
from compilelint.semantic.script_types import compiled_by_script, stored_instances


class ObjectAttributeUnscriptable(Rule):
    code = "TS180"
    name = "config-object-attribute"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    tree_facts = True  # the object's class (a dataclass? what does it hold?) may be defined in another file
    message = "`self.{attr}` holds {what}"
    # what the object is, and the fix: messages stay within 80 characters with the names cut short
    _DATACLASS = "dataclass `{name}`; copy its fields to `self`"
    _HOLDER = "a `{name}` holding a dataclass; not scriptable"
    doc = RuleDoc(
        what=("Flags, in compiled methods, a read of `self.x` where the module's `__init__` stores in `x` only "
              "instances of a `@dataclass` (`self.cfg = Cfg()`, a parameter annotated `Cfg`, `copy.deepcopy(cfg) "
              "if cfg is not None else Cfg()`), or of a plain class whose methods store such a dataclass on "
              "`self` (a helper object holding its config), wherever in the tree the class is defined."),
        why=("TorchScript types a module attribute from its value when compiled code reads it; for an object of "
             "a plain class it compiles the class as a TorchScript class, and a dataclass's `__init__`, `__repr__` "
             "and `__eq__` are written by Python with no source to read. Scripting fails at the read: `Module 'M' "
             "has no attribute 'cfg' (This attribute exists on the Python module, but we failed to convert Python "
             "type: 'Cfg' to a TorchScript type ...)`, whether the dataclass is the model's own or a library's. "
             "Annotating the attribute `cfg: Cfg` only moves the error (`Failed to get source for <function "
             "Cfg.__init__>`, at no line). Read the fields `forward` needs into attributes of their own in "
             "`__init__`; the config object may stay on the module as long as compiled code never reads it."),
        example=("def __init__(self, cfg: Cfg):\n    super().__init__()\n    self.cfg = cfg\n\n"
                 "def forward(self, x):\n    return x * self.cfg.scale"),
        use_instead=("def __init__(self, cfg: Cfg):\n    super().__init__()\n    self.cfg = cfg\n"
                     "    self.scale = cfg.scale\n\ndef forward(self, x):\n    return x * self.scale"),
    )
    version_note = ("On CPU with Python 3.11: the same failure for a dataclass of the model's file, of another "
                    "file, frozen, or of a module whose source inspect cannot read; a dataclass with `init`, `repr` "
                    "and `eq` off, and a plain class of scriptable methods holding numbers, convert.")
    bad = (
        Example('''
import torch
from dataclasses import dataclass
@dataclass
class Cfg:
    scale: float = 2.0
    depth: int = 3
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg()
    def forward(self, x):
        return x * self.cfg.scale  # <-
'''),
        Example('''
import copy
import torch
from dataclasses import dataclass
from typing import Optional
@dataclass
class HeadCfg:
    scale: float = 2.0
class Head:
    def __init__(self, cfg: Optional[HeadCfg] = None):
        if cfg is None:
            cfg = HeadCfg()
        self.cfg = cfg
        self.scale = cfg.scale
    def run(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale
class M(torch.nn.Module):
    def __init__(self, cfg: Optional[HeadCfg] = None):
        super().__init__()
        self.head = Head(copy.deepcopy(cfg) if cfg is not None else HeadCfg())
    def forward(self, x):
        return self.head.run(x)  # <-
'''),
    )
    good = (
        Example('''
import torch
from dataclasses import dataclass
from typing import Optional
@dataclass
class Cfg:
    scale: float = 2.0
    depth: int = 3
class Plain:
    def __init__(self, k: int = 3):
        self.k = k
class M(torch.nn.Module):
    def __init__(self, cfg: Optional[Cfg] = None):
        super().__init__()
        self.cfg = cfg if cfg is not None else Cfg()
        self.scale = self.cfg.scale
        self.extra = Plain()
    def forward(self, x):
        return x * self.scale + self.extra.k
''', check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._reported: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or ctx.class_node is None or fn.name.value == "__init__" or \
                not (type(node.value) is cst.Name and node.value.value == "self"):
            return
        attr = node.attr.value
        if attr in self._reported:
            return
        parent = ctx.ancestors[-1] if ctx.ancestors else None
        if type(parent) in (cst.AssignTarget, cst.AugAssign) and getattr(parent, "target", None) is node:
            return  # storing into it is TS159's
        classes = stored_instances(attr, ctx)
        if classes is None or not compiled_by_script(fn, node):
            return
        self._reported.add(attr)
        ctx.report(node, pending=json.dumps([attr, classes]))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the read where every class `__init__` may store there is one TorchScript cannot compile."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        attr, classes = json.loads(finding.pending)
        failures = []
        for qualified in classes:
            why = index.script_class_failure(index.resolve(qualified))
            if why is None:
                return None
            failures.append((qualified.rpartition(".")[2], why))
        name, why = failures[0]
        what = (cls._DATACLASS.format(name=brief(name, 14)) if why == "a dataclass"
                else cls._HOLDER.format(name=brief(name, 12)))
        return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(attr=brief(attr, 13), what=what)))
