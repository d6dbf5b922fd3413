"""Detection: ranks the boxes above a score threshold and lays them out in per-detection slots."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, thresh=0.4, dim=4):
        super().__init__()
        self.thresh = thresh
        self.slot_embed = nn.Linear(dim + 1, 16)

    def forward(self, boxes, scores):
        n = (scores > self.thresh).sum()
        order = torch.argsort(scores, descending=True)
        rank = torch.arange(n, device=boxes.device)  # BREAK: GB0033
        top = boxes[order[: boxes.shape[0]]]
        slots = top.new_zeros(n, boxes.shape[1] + 1)
        slots[:, -1] = rank.float()
        return self.slot_embed(slots).mean(0) + top.mean()


def inputs():
    return [(torch.randn(10, 4), torch.rand(10)), (torch.randn(10, 4), torch.rand(10))]
