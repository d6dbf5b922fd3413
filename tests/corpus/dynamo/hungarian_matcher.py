"""Tracking: DETR-style Hungarian matching with scipy on the cost matrix."""
import torch
import torch.nn as nn
from scipy.optimize import linear_sum_assignment


class Model(nn.Module):
    def __init__(self, w_cls=1.0, w_box=5.0):
        super().__init__()
        self.w_cls, self.w_box = w_cls, w_box

    def forward(self, logits, pred_boxes, tgt_labels, tgt_boxes):
        prob = logits.softmax(-1)
        cost = -self.w_cls * prob[:, tgt_labels] + self.w_box * torch.cdist(pred_boxes, tgt_boxes, p=1)
        rows, cols = linear_sum_assignment(cost.detach().numpy())  # BREAK: GB0007
        return torch.as_tensor(rows), torch.as_tensor(cols)


def inputs():
    return [(torch.randn(6, 4), torch.rand(6, 4), torch.tensor([0, 2, 1]), torch.rand(3, 4))] * 2
