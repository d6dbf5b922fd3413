# EXPECT: scripts
"""Sigmoid focal loss as a module (RetinaNet), with train/eval-agnostic reduction."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, alpha: float = 0.25, gamma: float = 2.0, reduction: str = "mean"):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p = logits.sigmoid()
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce * ((1 - p_t) ** self.gamma)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        loss = alpha_t * loss
        if self.reduction == "mean":
            return loss.mean()
        return loss.sum()


def example_inputs():
    return [(torch.randn(6, 3), torch.randint(0, 2, (6, 3)).float())]
