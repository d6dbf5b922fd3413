"""GB447 number-argument-to-text: Flags an int or float argument of a compiled frame formatted into text"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import TextBreakRule
from compilelint.semantic.frames import loop_count_before, number_argument


def _formatted_number(node: cst.CSTNode, ctx) -> tuple[str, str] | None:  # noqa: ANN001
    """(parameter, gb id) when `node` formats a number argument (see number_argument) into text. Verified on
    2.13 with the argument made dynamic by a second value: an f-string field `{n}` GB0021, with a format spec
    or a conversion (`{t:.2f}`, `{n!r}`) GB0088, `"%d" % n` and `"{}".format(n)` GB0088 (each skips the
    whole frame); `str(n)` GB0059 and `repr(n)` GB6053 (a graph break)."""
    t = type(node)
    if t is cst.FormattedString:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression:
                name = number_argument(part.expression, ctx)
                if name:
                    plain = part.format_spec is None and part.conversion is None
                    return name, "GB0021" if plain else "GB0088"
        return None
    if t is cst.BinaryOperation and type(node.operator) is cst.Modulo and type(node.left) in (
            cst.SimpleString, cst.ConcatenatedString):
        right = node.right
        items = [e.value for e in right.elements] if type(right) is cst.Tuple else [right]
        for item in items:
            name = number_argument(item, ctx)
            if name:
                return name, "GB0088"
        return None
    if t is cst.Call:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "format" and type(func.value) in (
                cst.SimpleString, cst.ConcatenatedString):
            for a in node.args:
                name = number_argument(a.value, ctx)
                if name:
                    return name, "GB0088"
            return None
        if type(func) is cst.Name and func.value in ("str", "repr") and len(node.args) == 1 and not node.args[0].keyword:
            name = number_argument(node.args[0].value, ctx)
            if name:
                return name, "GB0059" if func.value == "str" else "GB6053"
    return None


class NumberArgumentToText(TextBreakRule):
    code = 'GB447'
    name = 'number-argument-to-text'
    call_gate = gate(names={"str", "repr"}, methods={"format"})
    gb_id = 'GB0021'
    severity = "error"
    # the second value recompiles first (a guard on the value at this line), then the frame is given up
    targets = ("dynamo", "recompile")
    message = 'number argument `{subject}` formatted into text: {effect}'
    version_note = ('Verified on 2.13 with a second distinct value (its examples; automatic dynamic): an f-string '
                    'field `{n}` GB0021, with a format spec or conversion (`{t:.2f}`, `{n!r}`) GB0088, `"%d" % n` and '
                    '`"{}".format(n)` GB0088, each skipping the frame; `str(n)` GB0059 and `repr(n)` GB6053 break '
                    'the graph. Dynamo reports the spec, conversion and `.format` forms where the string is first '
                    'used (`len(key)`, a dict lookup), the others on the formatting line. Where `range(n)` comes first (a specialised loop count), the f-string only breaks. '
                    'bool arguments are specialised and format fine; `f"{n + 1}"` did not break (not flagged); '
                    '`format(n, "d")` makes Dynamo fail outright (InternalTorchDynamoError: GB451). With '
                    '`torch.compile(dynamic=False)` nothing breaks (one graph per value). On 2.11: the '
                    'plain f-string, `str` and `repr` examples hold as on 2.13; `"%d" % n` skips the frame with GB0208, '
                    '`.format` breaks (GB0156), and a format spec or conversion breaks (GB0081) and then the call fails '
                    'with a TypeError (the field yields the number, not text).')
    doc = RuleDoc(
        what=('Flags, in a module\'s `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, an `int` or `float` parameter '
              '(annotated so, or with such a default) formatted into a string: an f-string field, `"..." % n`, '
              '`"...".format(n)`, `str(n)` or `repr(n)`.'),
        why=('Multi-task heads pick a head by name (`self.heads[f"head_{task}"]`), planners tag a step '
             '(`f"step{k}"`). The first call compiles with the value as a constant; when a second value arrives '
             'Dynamo recompiles with the argument dynamic (automatic dynamic), and a symbolic number cannot be '
             'formatted: Dynamo abandons the frame (GB0021 / GB0088) and the whole `forward` runs eagerly from '
             'then on, with no error. `str(n)` and `repr(n)` split the graph (GB0059 / GB6053) and recompile '
             'for every value.'),
        example='def forward(self, x, task: int):\n    return self.heads[f"head_{task}"](x)',
        use_instead=('def __init__(self):\n    self.names = [f"head_{i}" for i in range(4)]\n'
                     'def forward(self, x, task: int):\n    return self.heads[self.names[task]](x)'),
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Linear(3, 3)
        self.heads = torch.nn.ModuleDict({f"head_{i}": torch.nn.Linear(3, 2) for i in range(4)})

    def forward(self, x, task: int):
        x = self.stem(x)
        return self.heads[f"head_{task}"](x)  # <-
''', inputs="[(torch.randn(2, 3), t) for t in (0, 1, 2, 3)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, step: int = 0):
        tag = "step%03d" % step  # <-
        return x * len(tag)
''', inputs="[(torch.randn(2, 3), k) for k in (1, 2, 3)]", gb_id="GB0088", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, dt: float):
        return x * len(f"{dt:.2f}")  # <-
''', inputs="[(torch.randn(2, 3), d) for d in (0.05, 0.1, 0.2)]", gb_id="GB0088", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, level: int):
        name = "p" + str(level)  # <-
        return x * len(name)
''', inputs="[(torch.randn(2, 3), k) for k in (3, 4, 5)]", gb_id="GB0059"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleDict({f"head_{i}": torch.nn.Linear(3, 2) for i in range(4)})

    def _head(self, x, task):
        return self.heads[f"head_{task}"](x)  # <-

    def forward(self, x, task: int):
        return self._head(x, task)
''', inputs="[(torch.randn(2, 3), t) for t in (0, 1, 2, 3)]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Linear(3, 3)
        self.heads = torch.nn.ModuleDict({f"head_{i}": torch.nn.Linear(3, 2) for i in range(4)})
        self.names = [f"head_{i}" for i in range(4)]

    def forward(self, x, task: int):
        x = self.stem(x)
        return self.heads[self.names[task]](x)
''', inputs="[(torch.randn(2, 3), t) for t in (0, 1, 2, 3)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, verbose: bool = False):
        tag = f"verbose={verbose}"
        return x * len(tag)
''', inputs="[(torch.randn(2, 3), v) for v in (False, True, False)]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        found = _formatted_number(node, ctx)
        return found[1] if found else None

    def subject(self, node: cst.CSTNode, ctx) -> str:  # noqa: ANN001
        return _formatted_number(node, ctx)[0]

    def skips_frame(self, node: cst.CSTNode, ctx, gb_id: str) -> bool:  # noqa: ANN001
        """The f-string, `%` and `.format` forms skip the whole function, unless a loop count specialised the
        argument first (`range(n)` before it: then it only breaks); `str(n)` and `repr(n)` only break."""
        if gb_id in ("GB0059", "GB6053"):
            return False
        return not loop_count_before(_formatted_number(node, ctx)[0], node, ctx)
