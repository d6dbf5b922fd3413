import math
import torch
import torch.nn as nn
from typing import List, Tuple


class BoxDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.clip = math.log(1000.0 / 16)

    def forward(self, deltas, anchors):
        widths = anchors[:, 2] - anchors[:, 0]
        heights = anchors[:, 3] - anchors[:, 1]
        cx = anchors[:, 0] + 0.5 * widths
        cy = anchors[:, 1] + 0.5 * heights
        dw = deltas[:, 2].clamp(max=self.clip)
        dh = deltas[:, 3].clamp(max=self.clip)
        pcx = deltas[:, 0] * widths + cx
        pcy = deltas[:, 1] * heights + cy
        pw = torch.exp(dw) * widths
        ph = torch.exp(dh) * heights
        return torch.stack([pcx - 0.5 * pw, pcy - 0.5 * ph, pcx + 0.5 * pw, pcy + 0.5 * ph], dim=1)


class ScoreFilter(nn.Module):
    def __init__(self, thresh: float = 0.05):
        super().__init__()
        self.thresh = thresh

    def forward(self, boxes, scores):
        keep = scores > self.thresh
        return boxes[keep], scores[keep]


class TopKPerLevel(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 100

    def forward(self, scores: List[torch.Tensor]):
        out = []
        for s in scores:
            k = min(self.k, s.numel())
            out.append(s.topk(k).values)
        return torch.cat(out)


class NMSWithSets(nn.Module):
    def forward(self, boxes, scores):
        order = scores.argsort(descending=True)
        suppressed = set()
        keep = []
        for i in order.tolist():
            if i in suppressed:
                continue
            keep.append(i)
        return boxes[keep]


class LevelAssigner(nn.Module):
    def forward(self, boxes):
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        lvl = torch.floor(4 + torch.log2(torch.sqrt(area) / 224 + 1e-6))
        return lvl.clamp(2, 5).long()


class LevelAssignerMath(nn.Module):
    def forward(self, boxes):
        side = float(boxes.shape[0])
        lvl = int(math.log2(side + 1.0))
        return boxes * lvl


class CenterNetDecode(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 10

    def forward(self, heat):
        b, c, h, w = heat.shape
        hmax = torch.nn.functional.max_pool2d(heat, 3, stride=1, padding=1)
        keep = (hmax == heat).float()
        scores, inds = (heat * keep).view(b, -1).topk(self.k)
        ys = torch.div(inds, w, rounding_mode="floor") % h
        xs = inds % w
        return scores, ys, xs


class CenterNetDecodeTuple(nn.Module):
    def forward(self, heat):
        b, *rest = heat.shape
        return heat.view(b, -1).max(dim=1).values


class DetOutputFormatter(nn.Module):
    def forward(self, boxes, scores):
        n = boxes.shape[0]
        msg = f"{n} detections, best {float(scores.max()):.3f}"
        return boxes


class YoloHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 3 * 6, 1)
        self.na = 3

    def forward(self, x):
        b, _, h, w = x.shape
        y = self.conv(x).view(b, self.na, 6, h, w).permute(0, 1, 3, 4, 2).contiguous()
        return y.sigmoid()
