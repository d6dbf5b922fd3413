"""Control: one denoising step of a diffusion policy, with its own seeded noise generator for repeatable rollouts."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, act=6, obs=10, seed=1234):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(act + obs + 1, 64), nn.SiLU(), nn.Linear(64, act))
        self.noise_gen = torch.Generator().manual_seed(seed)
        self.register_buffer("sigmas", torch.linspace(1.0, 0.02, 10))

    def forward(self, action, obs, step: int):
        sigma = self.sigmas[step]
        t = sigma.expand(action.shape[0], 1)
        eps = self.net(torch.cat([action, obs, t], dim=-1))
        z = torch.randn(action.shape, generator=self.noise_gen)  # BREAK: GB0055
        return action - sigma * eps + 0.1 * sigma * z


def inputs():
    return [(torch.randn(4, 6), torch.randn(4, 10), 3), (torch.randn(4, 6), torch.randn(4, 10), 3)]
