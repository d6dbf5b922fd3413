"""Detection: anchors for a feature map, cached per map size under a string key; the camera crops change
the map size from frame to frame."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels=8, stride=8):
        super().__init__()
        self.cls = nn.Conv2d(channels, 2, 1)
        self.stride = stride
        self._anchors = {}

    def anchors(self, h, w, device):
        ys = (torch.arange(h, device=device) + 0.5) * self.stride
        xs = (torch.arange(w, device=device) + 0.5) * self.stride
        return torch.stack(torch.meshgrid(ys, xs, indexing="ij"), -1).reshape(-1, 2)

    def forward(self, fmap):
        h, w = fmap.shape[-2:]
        key = f"{h}_{w}"
        if key not in self._anchors:
            self._anchors[key] = self.anchors(h, w, fmap.device)
        logits = self.cls(fmap).flatten(2).transpose(1, 2)
        return logits.sigmoid(), self._anchors[key]


def inputs():
    return [(torch.randn(1, 8, h, h + 4),) for h in (10, 12, 14, 16, 18)]
