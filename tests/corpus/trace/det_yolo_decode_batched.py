"""YOLO-style decoding, fully batched: the trace-friendly way."""
# EXPECT: stable
import torch
from torch import nn


class YoloDecodeBatched(nn.Module):
    def __init__(self, num_classes=3, stride=8):
        super().__init__()
        self.num_classes = num_classes
        self.stride = stride

    def forward(self, pred):
        b, _, h, w = pred.shape
        pred = pred.view(b, 5 + self.num_classes, h * w).permute(0, 2, 1)
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        grid = torch.stack([xs, ys], -1).view(1, h * w, 2).to(pred)
        xy = (pred[..., :2].sigmoid() + grid) * self.stride
        wh = pred[..., 2:4].exp() * self.stride
        conf = pred[..., 4:5].sigmoid() * pred[..., 5:].softmax(-1)
        return torch.cat([xy - wh / 2, xy + wh / 2, conf], -1)


def make():
    torch.manual_seed(0)
    return YoloDecodeBatched().eval(), [(torch.randn(2, 8, 4, 4),), (torch.randn(3, 8, 6, 5),)]
