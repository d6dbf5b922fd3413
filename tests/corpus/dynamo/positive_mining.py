"""Detection: hard negative mining that selects the indices of positive anchors."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, ratio=3):
        super().__init__()
        self.ratio = ratio

    def forward(self, loss, labels):
        pos_idx = torch.where(labels > 0)[0]  # BREAK: GB0036
        neg_loss = loss.clone()
        neg_loss[labels > 0] = 0
        return loss[pos_idx].sum(), neg_loss.topk(6).values.sum()


def inputs():
    return [(torch.rand(20), torch.randint(0, 3, (20,)))] * 2
