"""Control: damped least-squares inverse kinematics that iterates until the error is small."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, links=(1.0, 0.8), iters=5, tol=1e-2):
        super().__init__()
        self.register_buffer("links", torch.tensor(links))
        self.iters, self.tol = iters, tol

    def fk(self, q):
        a = torch.cumsum(q, dim=-1)
        return torch.stack([(self.links * torch.cos(a)).sum(-1), (self.links * torch.sin(a)).sum(-1)], -1)

    def forward(self, target, q0):
        q = q0
        for _ in range(self.iters):
            err = target - self.fk(q)
            if err.norm() < self.tol:  # BREAK: GB0170
                break
            q = q + 0.1 * torch.stack([err.sum(-1), err[..., 1]], -1)
        return q


def inputs():
    return [(torch.tensor([[1.0, 1.0]]), torch.zeros(1, 2)), (torch.tensor([[1.2, 0.5]]), torch.zeros(1, 2))]
