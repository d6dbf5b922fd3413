# EXPECT: fails
"""Image classifier that returns the predicted class names alongside probabilities."""
from typing import List, Tuple

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.names = ["cat", "dog", "bird"]
        self.fc = nn.Linear(12, 3)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, List[str]]:
        probs = self.fc(x).softmax(-1)
        labels: List[str] = []
        for i in probs.argmax(-1).tolist():
            labels.append(self.names[i])
        return probs, labels


def example_inputs():
    return [(torch.randn(2, 12),)]
