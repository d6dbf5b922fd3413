"""Detection: a head migrated from TorchScript that still keeps its scripted box decoder as a submodule."""
import torch
import torch.nn as nn


class BoxDecoder(nn.Module):
    def forward(self, deltas, anchors):
        ctr = anchors[:, :2] + deltas[:, :2] * anchors[:, 2:]
        wh = anchors[:, 2:] * deltas[:, 2:].clamp(max=4.0).exp()
        return torch.cat([ctr - wh / 2, ctr + wh / 2], dim=1)


class Model(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.reg = nn.Linear(ch, 4)
        self.cls = nn.Linear(ch, 3)
        self.decode = torch.jit.script(BoxDecoder())

    def forward(self, feats, anchors):
        deltas = self.reg(feats)
        scores = self.cls(feats).softmax(-1)
        boxes = self.decode(deltas, anchors)  # BREAK: GB4695
        return boxes, scores.max(-1).values


def inputs():
    anchors = torch.rand(20, 4) + 0.5
    return [(torch.randn(20, 16), anchors), (torch.randn(20, 16), anchors)]
