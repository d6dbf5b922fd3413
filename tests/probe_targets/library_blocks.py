"""A user's model built from a library's blocks (kornia's HardNet descriptor): the trace problem sits inside
the library (kornia.core.check's shape check compares a traced size), so only `--scope kornia` shows where."""

import torch
from kornia.feature import HardNet


class PatchDescriptor(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = HardNet(pretrained=False)

    def forward(self, patches: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.normalize(self.net(patches), dim=1)


def make_descriptor():
    torch.manual_seed(0)
    return {"model": PatchDescriptor().eval(), "inputs": [torch.rand(4, 1, 32, 32), torch.rand(2, 1, 32, 32)],
            "checks": ["trace"]}
