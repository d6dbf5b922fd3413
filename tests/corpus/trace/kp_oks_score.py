"""Rescores pose instances with a per-instance Python float read from the tensor."""
# EXPECT: diverges
import torch
from torch import nn


class PoseRescore(nn.Module):
    def forward(self, kpt_scores, box_scores):
        out = []
        for i in range(kpt_scores.size(0)):
            mean_kpt = float(kpt_scores[i].mean())
            out.append(box_scores[i] * mean_kpt)
        return torch.stack(out)


def make():
    torch.manual_seed(0)
    return PoseRescore().eval(), [(torch.rand(3, 17), torch.rand(3)), (torch.rand(3, 17), torch.rand(3))]
