# EXPECT: fails
"""Text normaliser in front of an embedding-bag classifier; the text arrives as a Python str."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(128, 8)

    def forward(self, text):
        text = text.lower().strip()
        ids = torch.tensor([ord(c) % 128 for c in text]).unsqueeze(0)
        return self.emb(ids)


def example_inputs():
    return [("Hello World ",)]
