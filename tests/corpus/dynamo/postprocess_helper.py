"""Detection: head whose post-processing helper reports progress with print."""
import torch
import torch.nn as nn


def summarize(scores, threshold):
    kept = scores > threshold
    print("post-processing", scores.shape)  # BREAK: GB0059
    return scores * kept


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        scores = self.head(x).sigmoid()
        return summarize(scores, 0.5)


def inputs():
    return [(torch.randn(3, 8),), (torch.randn(3, 8),)]
