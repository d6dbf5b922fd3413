"""Returns per-class pixel fractions, but only for classes present in the prediction."""
# EXPECT: stable
import torch
from torch import nn


class PresentClassFractions(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.classes = classes

    def forward(self, logits):
        pred = logits.argmax(1)
        out = torch.zeros(self.classes)
        for c in range(self.classes):
            m = pred == c
            if m.any():
                out[c] = m.float().mean()
        return out


def make():
    torch.manual_seed(0)
    a = torch.randn(1, 4, 6, 6)
    b = torch.randn(1, 4, 6, 6)
    b[:, 3] -= 10
    return PresentClassFractions().eval(), [(a,), (b,)]
