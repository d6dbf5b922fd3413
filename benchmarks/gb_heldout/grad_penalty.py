"""WGAN-GP critic: gradient penalty computed inside forward with autograd.grad."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(dim, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, real, fake):
        eps = torch.rand(real.shape[0], 1)
        mix = (eps * real + (1 - eps) * fake).requires_grad_(True)
        score = self.critic(mix).sum()
        grad, = torch.autograd.grad(score, mix, create_graph=True)
        return ((grad.norm(dim=1) - 1) ** 2).mean()


def inputs():
    return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(3, 4), torch.randn(3, 4))]
