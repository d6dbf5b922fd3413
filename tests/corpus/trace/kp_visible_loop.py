"""Pose post-processing: keeps visible keypoints in a Python list and averages them per person."""
# EXPECT: diverges
import torch
from torch import nn


class VisibleKeypoints(nn.Module):
    def __init__(self, vis_thresh=0.3):
        super().__init__()
        self.vis_thresh = vis_thresh

    def forward(self, kpts, conf):
        centers = []
        for person in range(kpts.shape[0]):
            pts = []
            for j in range(kpts.shape[1]):
                if conf[person, j] > self.vis_thresh:
                    pts.append(kpts[person, j])
            if len(pts) == 0:
                centers.append(kpts.new_zeros(2))
            else:
                centers.append(torch.stack(pts).mean(0))
        return torch.stack(centers)


def make():
    torch.manual_seed(0)
    return VisibleKeypoints().eval(), [(torch.rand(2, 5, 2), torch.rand(2, 5)), (torch.rand(2, 5, 2), torch.rand(2, 5))]
