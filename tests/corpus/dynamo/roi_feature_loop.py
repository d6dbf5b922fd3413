"""Detection: per-box feature pooling written as a Python loop over the proposals."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, feats, boxes: torch.Tensor):
        pooled = []
        for i in range(boxes.shape[0]):
            w = torch.sigmoid(boxes[i, 2:] - boxes[i, :2]).mean()
            pooled.append(feats.mean(0) * w)
        return self.fc(torch.stack(pooled))


def inputs():
    return [(torch.randn(5, 16), torch.rand(n, 4)) for n in (3, 4, 6, 7, 9)]
