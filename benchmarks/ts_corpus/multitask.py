import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import Dict, List

NUM_CLASSES = 10


class MultiTaskHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Linear(16, 10)
        self.reg = nn.Linear(16, 4)

    def forward(self, x) -> Dict[str, torch.Tensor]:
        return {"cls": self.cls(x), "reg": self.reg(x)}


class DynamicHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.tasks = ["seg", "depth"]
        self.seg = nn.Conv2d(8, 3, 1)
        self.depth = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        outs = []
        for t in self.tasks:
            outs.append(getattr(self, t)(x))
        return outs


class HeadDict(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"seg": nn.Conv2d(8, 3, 1), "depth": nn.Conv2d(8, 1, 1)})

    def forward(self, x) -> Dict[str, torch.Tensor]:
        out: Dict[str, torch.Tensor] = {}
        for name, head in self.heads.items():
            out[name] = head(x)
        return out


class LossWeighting(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(2))

    def forward(self, losses: List[torch.Tensor]):
        total = torch.zeros(())
        for i, l in enumerate(losses):
            total = total + torch.exp(-self.log_vars[i]) * l + self.log_vars[i]
        return total


class SumOfHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(16, 4) for _ in range(3)])

    def forward(self, x):
        return sum(h(x) for h in self.heads)


class NumpyCalibrated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y = self.fc(x)
        return y * float(np.exp(0.5))


class GlobalClassCount(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, NUM_CLASSES)

    def forward(self, x):
        return self.fc(x).view(-1, NUM_CLASSES)


class SharedTrunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(16, 16), nn.ReLU())
        self.a = nn.Linear(16, 2)
        self.b = nn.Linear(16, 3)

    def forward(self, x):
        h = self.trunk(x)
        return self.a(h), self.b(h)


class BaseTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


class RefinedTask(BaseTask):
    def forward(self, x):
        return super().forward(x).relu()


class TaskGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Linear(16, 2)

    def forward(self, x):
        w = F.softmax(self.g(x), dim=-1)
        active = {i for i in range(2)}
        return w


class UncertaintyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(16, 1)
        self.logvar = nn.Linear(16, 1)

    def forward(self, x):
        mu, logvar = self.mu(x), self.logvar(x)
        if (var := logvar.exp()).numel() > 0:
            return mu, var
        return mu, logvar


class KwargsHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x, **extra):
        return self.fc(x)


class FilteredFeatures(nn.Module):
    def forward(self, feats: List[torch.Tensor]):
        kept = [f for f in feats if f.numel() > 0]
        return torch.cat(kept)
