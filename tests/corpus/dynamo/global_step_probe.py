"""Training: a module that counts its calls in a module-level global for periodic diagnostics."""
import torch
import torch.nn as nn

GLOBAL_STEP = 0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        global GLOBAL_STEP
        GLOBAL_STEP += 1
        return torch.tanh(self.fc(x))


def inputs():
    return [(torch.randn(3, 6),) for _ in range(5)]
