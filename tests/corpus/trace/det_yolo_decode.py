"""YOLO-style head decoding: grid offsets, sigmoid, confidence filtering with a Python loop over images."""
# EXPECT: diverges
import torch
from torch import nn


class YoloDecode(nn.Module):
    def __init__(self, num_classes=3, stride=8, conf_thresh=0.5):
        super().__init__()
        self.num_classes = num_classes
        self.stride = stride
        self.conf_thresh = conf_thresh

    def forward(self, pred):
        b, _, h, w = pred.shape
        pred = pred.view(b, 5 + self.num_classes, h * w).permute(0, 2, 1)
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        grid = torch.stack([xs, ys], -1).view(1, h * w, 2).float()
        xy = (pred[..., :2].sigmoid() + grid) * self.stride
        wh = pred[..., 2:4].exp() * self.stride
        obj = pred[..., 4].sigmoid()
        results = []
        for i in range(b):
            keep = obj[i] > self.conf_thresh
            boxes = torch.cat([xy[i][keep] - wh[i][keep] / 2, xy[i][keep] + wh[i][keep] / 2], 1)
            results.append(boxes.sum(0))
        return torch.stack(results)


def make():
    torch.manual_seed(0)
    return YoloDecode().eval(), [(torch.randn(2, 8, 4, 4),), (torch.randn(3, 8, 4, 4),)]
