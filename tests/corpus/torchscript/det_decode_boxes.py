# EXPECT: scripts
"""Anchor-free box decoding (FCOS/YOLOX style): ltrb distances + centers -> xyxy boxes, top-k by score."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, stride: int = 8, max_det: int = 50):
        super().__init__()
        self.stride = stride
        self.max_det = max_det

    def forward(self, reg: torch.Tensor, cls_logits: torch.Tensor):
        # reg: (H*W, 4) distances, cls_logits: (H*W, C)
        n = reg.shape[0]
        side = int(n ** 0.5)
        ys, xs = torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")
        centers = torch.stack([xs.flatten(), ys.flatten()], dim=-1).float() * self.stride + self.stride // 2
        dist = reg.relu() * self.stride
        boxes = torch.cat([centers - dist[:, :2], centers + dist[:, 2:]], dim=-1)
        scores, labels = cls_logits.sigmoid().max(dim=-1)
        k = min(self.max_det, n)
        top_scores, idx = scores.topk(k)
        return boxes[idx], top_scores, labels[idx]


def example_inputs():
    return [(torch.randn(64, 4), torch.randn(64, 10))]
