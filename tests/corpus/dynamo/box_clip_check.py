"""Detection: clip boxes to the image and warn through logging when many were out of bounds."""
import logging

import torch
import torch.nn as nn

log = logging.getLogger("detector")


class Model(nn.Module):
    def __init__(self, size=(32, 32)):
        super().__init__()
        self.h, self.w = size

    def forward(self, boxes):
        clipped = torch.stack([boxes[:, 0].clamp(0, self.w), boxes[:, 1].clamp(0, self.h),
                               boxes[:, 2].clamp(0, self.w), boxes[:, 3].clamp(0, self.h)], 1)
        log.debug("clipped %d boxes", boxes.shape[0])  # BREAK: GB0291
        return clipped


def inputs():
    return [(torch.rand(5, 4) * 40,), (torch.rand(5, 4) * 40,)]
