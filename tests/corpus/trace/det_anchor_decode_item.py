"""SSD-style box decoding where the variance is clipped with a Python max read from the data."""
# EXPECT: diverges
import torch
from torch import nn


class AnchorDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("variances", torch.tensor([0.1, 0.2]))

    def forward(self, loc, anchors):
        max_delta = loc[:, 2:].abs().max().item()
        clip = min(max_delta, 4.0)
        centers = anchors[:, :2] + loc[:, :2] * self.variances[0] * anchors[:, 2:]
        sizes = anchors[:, 2:] * torch.exp(loc[:, 2:].clamp(max=clip) * self.variances[1])
        return torch.cat([centers - sizes / 2, centers + sizes / 2], 1)


def make():
    torch.manual_seed(0)
    anchors = torch.rand(8, 4) + 0.5
    return AnchorDecoder().eval(), [(torch.randn(8, 4) * 0.5, anchors), (torch.randn(8, 4) * 30, anchors)]
