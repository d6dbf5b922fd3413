# EXPECT: scripts
"""Message passing over an edge list (GNN layer for agent interaction)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.msg = nn.Linear(16, 8)
        self.upd = nn.GRUCell(8, 8)

    def forward(self, x: torch.Tensor, edges: torch.Tensor):
        src, dst = edges[0], edges[1]
        m = self.msg(torch.cat([x[src], x[dst]], -1))
        agg = torch.zeros_like(x).index_add_(0, dst, m)
        return self.upd(agg, x)


def example_inputs():
    return [(torch.randn(5, 8), torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]))]
