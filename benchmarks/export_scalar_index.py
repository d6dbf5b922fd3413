"""Which ways of indexing a tensor with a 0-d index read from tensor data export on this torch (EX718's evidence).

torch 2.11's non-strict export fails on `t[x.argmax()]` (GuardOnDataDependentSymNode: Could not extract
specialized integer) while 2.13 exports it. This prints, for each form, EXPORTS (and whether the exported
program agrees with eager on a second input) or FAILS with the first line of the error. Raw output of runs
on 2.11 (the GPU machine) and 2.13 (CI): docs/bench/export_scalar_index.txt.

    python3 benchmarks/export_scalar_index.py
"""
from __future__ import annotations

import torch

# (name, forward body): `boxes` is (5, 4), `feat` (3, 5, 5); `best` = an argmax over 3 values
FORMS = {
    "buffer[best]": "boxes * self.scales[best]",
    "param[best]": "boxes * self.w[best]",
    "input[best]": "boxes[best]",
    "input[x.argmax()] inline": "boxes[boxes[:3].mean(1).argmax()]",
    "input[torch.argmax(x)]": "boxes[torch.argmax(boxes[:3].mean(1))]",
    "local[best]": "boxes * (self.scales * 2)[best]",
    "input[best + 1]": "boxes[best + 1]",
    "input[:, best]": "boxes[:, best]",
    "input[best, 0]": "boxes[best, 0]",
    "feat[:, y, x] (y, x from a flat argmax)": "feat[:, torch.div(feat[0].flatten().argmax(), 5, rounding_mode='floor'), feat[0].flatten().argmax() % 5]",
    "write: out[best] = 0.0": "self._write(boxes, best)",
    "buffer[best.view(1)]": "boxes * self.scales[best.view(1)]",
    "buffer[best[None]]": "boxes * self.scales[best[None]]",
    "buffer.index_select(0, best.view(1))": "boxes * self.scales.index_select(0, best.view(1))",
    "buffer.gather(0, best.view(1))": "boxes * self.scales.gather(0, best.view(1))",
    "torch.take(buffer, best)": "boxes * torch.take(self.scales, best)",
    "argmax(0, keepdim=True) index": "boxes[boxes[:3].mean(1).argmax(0, keepdim=True)]",
    "one_hot weights": "boxes * (self.scales * torch.nn.functional.one_hot(best, 3)).sum()",
}
SRC = '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scales", torch.tensor([0.5, 1.0, 2.0]))
        self.w = torch.nn.Parameter(torch.tensor([0.5, 1.0, 2.0]))

    def _write(self, boxes, best):
        out = boxes.clone()
        out[best] = 0.0
        return out

    def forward(self, boxes, feat):
        best = boxes[:3].mean(1).argmax()
        return {body}
'''


def main() -> None:
    print("torch", torch.__version__)
    for name, body in FORMS.items():
        ns = {"torch": torch}
        exec(SRC.format(body=body), ns)  # noqa: S102 - the forms above, nothing from outside
        m = ns["M"]()
        args = (torch.randn(5, 4), torch.randn(3, 5, 5))
        try:
            ep = torch.export.export(m, args, strict=False)
        except Exception as e:  # noqa: BLE001 - every failure is the answer
            print(f"FAILS    {name:42s} {type(e).__name__}: {str(e).strip().splitlines()[0][:110]}")
            continue
        again = (torch.randn(5, 4), torch.randn(3, 5, 5))
        print(f"EXPORTS  {name:42s} agrees with eager on a second input: {torch.allclose(ep.module()(*again), m(*again))}")


if __name__ == "__main__":
    main()
