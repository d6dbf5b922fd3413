"""GAN: WGAN-GP gradient penalty computed inside the critic's forward."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, real, fake, alpha):
        mix = (alpha * real + (1 - alpha) * fake).requires_grad_(True)  # BREAK: GB8985
        score = self.critic(mix)
        grad = torch.autograd.grad(score.sum(), mix, create_graph=True)[0]  # BREAK: GB9186
        return ((grad.norm(2, dim=1) - 1) ** 2).mean()


def inputs():
    return [(torch.randn(4, 4), torch.randn(4, 4), torch.rand(4, 1))] * 2
