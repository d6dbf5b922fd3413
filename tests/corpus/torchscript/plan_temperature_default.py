# EXPECT: fails
"""Behaviour-prediction head whose softmax temperature has a Python default."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mode_logits = nn.Linear(32, 6)

    def forward(self, agent_feat, temperature=1.0):
        return (self.mode_logits(agent_feat) / temperature).softmax(-1)


def example_inputs():
    return [(torch.randn(4, 32),)]
