# EXPECT: scripts
"""One step of beam search returning the surviving beams as a dict of named tensors."""
from typing import Dict

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, beam: int = 3):
        super().__init__()
        self.beam = beam
        self.proj = nn.Linear(8, 20)

    def forward(self, h: torch.Tensor, scores: torch.Tensor) -> Dict[str, torch.Tensor]:
        logp = self.proj(h).log_softmax(-1) + scores[:, None]
        top, idx = logp.flatten().topk(self.beam)
        vocab = logp.shape[1]
        return {"scores": top, "parent": torch.div(idx, vocab, rounding_mode="floor"), "token": idx % vocab}


def example_inputs():
    return [(torch.randn(3, 8), torch.zeros(3))]
