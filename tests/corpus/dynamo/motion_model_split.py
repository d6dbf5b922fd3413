"""Tracking: motion model whose author split the graph on purpose before the association step."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.motion = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, states):
        pred = states + self.motion(states)
        torch._dynamo.graph_break()  # BREAK: GB0025
        return pred.clamp(-100, 100)


def inputs():
    return [(torch.randn(5, 4),), (torch.randn(5, 4),)]
