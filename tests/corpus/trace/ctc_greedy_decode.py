"""OCR CTC greedy decoding: collapses repeats and drops blanks in Python."""
# EXPECT: diverges
import torch
from torch import nn


class CTCGreedy(nn.Module):
    def __init__(self, blank=0):
        super().__init__()
        self.blank = blank

    def forward(self, logits):
        best = logits.argmax(-1)
        out = []
        prev = -1
        for t in best.tolist():
            if t != prev and t != self.blank:
                out.append(t)
            prev = t
        return torch.tensor(out + [self.blank] * (best.shape[0] - len(out)))


def make():
    torch.manual_seed(0)
    return CTCGreedy().eval(), [(torch.randn(8, 5),), (torch.randn(8, 5),)]
