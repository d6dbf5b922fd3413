"""Detector head that returns early when nothing passes the threshold."""
# EXPECT: diverges
import torch
from torch import nn


class EmptyGuardHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Linear(16, 1)
        self.reg = nn.Linear(16, 4)

    def forward(self, feats):
        scores = self.cls(feats).squeeze(-1).sigmoid()
        boxes = self.reg(feats)
        selected = scores > 0.5
        if selected.sum() == 0:
            return boxes.new_zeros(1, 4)
        return (boxes[selected] * scores[selected, None]).mean(0, keepdim=True)


def make():
    torch.manual_seed(0)
    m = EmptyGuardHead().eval()
    with torch.no_grad():
        m.cls.bias.fill_(-3.0)
    return m, [(torch.randn(6, 16) * 0.1,), (torch.randn(6, 16) * 8,)]
