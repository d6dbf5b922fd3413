"""Detection: YOLO-style post-processing with a confidence mask per image."""
import torch
import torch.nn as nn


def xywh2xyxy(x):
    y = x.clone()
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


class Model(nn.Module):
    def __init__(self, conf=0.25):
        super().__init__()
        self.conf = conf

    def forward(self, pred):
        out = []
        for image_pred in pred:
            obj = image_pred[:, 4]
            image_pred = image_pred[obj > self.conf]  # BREAK: GB0036
            boxes = xywh2xyxy(image_pred[:, :4])
            out.append(torch.cat([boxes, image_pred[:, 4:5]], 1))
        return out


def inputs():
    return [(torch.rand(2, 40, 6),), (torch.rand(2, 40, 6),)]
