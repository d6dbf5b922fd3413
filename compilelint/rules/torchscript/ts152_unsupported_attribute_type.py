"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.classshape import class_shape
from compilelint.analysis.names import qualify
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.script_types import any_valued_dict_param


def unsupported_value(value: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """Why TorchScript cannot type an attribute holding this value, or None."""
    if type(value) in (cst.Set, cst.SetComp):
        return "a set"
    if type(value) is cst.List and not value.elements:
        return "an empty list"
    if type(value) is cst.Dict and not value.elements:
        return "an empty dict"
    if type(value) is cst.Lambda:
        return "a lambda"
    if type(value) is cst.Call:
        root = value
        while type(root) is cst.Call and type(root.func) is cst.Attribute and type(root.func.value) is cst.Call:
            root = root.func.value  # np.linspace(...).astype(...): the chain's first call decides
        if root is not value and (qualify(root.func, aliases) or "").startswith("numpy."):
            return "a numpy value"
        name = qualify(value.func, aliases) or ""
        if name in ("set", "frozenset"):
            return f"a {name}"
        if name == "range":
            return "a range"
        if name in ("list", "dict") and not value.args:
            return f"an empty {name}"
        if name.startswith("numpy."):
            return "a numpy value"
    return None


class UnsupportedAttributeType(Rule):
    code = "TS152"
    name = "unsupported-attribute-type"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`self.{attr}` holds {what}, which TorchScript cannot type'
    doc = RuleDoc(
        what=("Flags reads in compiled code of module attributes that `__init__` set to a set, an empty list or "
              "dict (never filled), a lambda, a `range`, a numpy value, or a `Dict[str, Any]` parameter (a config "
              "of mixed values)."),
        why=("TorchScript converts attributes from the instance when they are used; it has no set or range type, "
             "cannot infer the element type of an empty container, and cannot compile a lambda: `Module 'M' has "
             "no attribute 'ignore' (This attribute exists on the Python module, but we failed to convert Python "
             "type: 'set' to a TorchScript type)`. Attributes never read by compiled code are not converted."),
        example="self.ignore_ids = {0, 255}\n...\nif label in self.ignore_ids:",
        use_instead="self.ignore_ids = (0, 255)  # or a tensor buffer\n...\nif label in self.ignore_ids:",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ignore_ids = {0, 255}
    def forward(self, x):
        if x.shape[0] in self.ignore_ids:  # <-
            return x * 0
        return x
'''),
        Example('''
import torch
import numpy as np
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = np.array([0.5, 0.5, 0.5]).astype(np.float32)
        self.history = []
    def forward(self, x):
        return x - float(self.mean[0]) * len(self.history)  # <-
'''),
        Example('''
import torch
from typing import Any, Dict
CFG = {"mode": "fine", "size": (2, 3)}
class M(torch.nn.Module):
    def __init__(self, config: Dict[str, Any] = CFG):
        super().__init__()
        self.config = config
    def forward(self, x):
        h, w = self.config["size"]  # <-
        return x * h * w
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = []
    def forward(self, x):
        self.cache.append(x)  # <-
        return x + len(self.cache)
'''),
    )
    good = (
        Example('''
import torch
import numpy as np
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ignore_ids = [0, 255]
        self.names = []
        for i in range(3):
            self.names.append("c" + str(i))
        self.debug_table = {1, 2}
        self.register_buffer("mean", torch.from_numpy(np.array([0.5, 0.5, 0.5])))
    def forward(self, x):
        if x.shape[0] in self.ignore_ids:
            return x * 0
        return x * len(self.names) - self.mean[0]
'''),
        Example('''
import torch
from typing import Any, Dict
CFG = {"mode": "fine", "size": (2, 3)}
class M(torch.nn.Module):
    def __init__(self, config: Dict[str, Any] = CFG):
        super().__init__()
        self.h, self.w = config["size"]
        self.fine = config["mode"] == "fine"
    def forward(self, x):
        return x * self.h * self.w if self.fine else x
''', check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.reported: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        fn, cls = ctx.function, ctx.class_node
        if fn is None or cls is None or fn.name.value == "__init__":
            return
        if not (type(node.value) is cst.Name and node.value.value == "self"):
            return
        attr = node.attr.value
        if attr in self.reported:
            return
        shape = class_shape(cls, ctx.facts.aliases)
        values = shape.init_values.get(attr)
        if not values or attr in shape.class_level:
            return
        whats = [unsupported_value(v, ctx.facts.aliases)
                 or ("a dict of mixed values" if any_valued_dict_param(v, ctx) else None)
                 for v in values]
        if not all(whats):
            return
        what = whats[0]
        if what.startswith("an empty") and attr in shape.init_mutated:
            return
        self.reported.add(attr)
        ctx.report(node, self.message.format(attr=attr, what=what, method=fn.name.value))
