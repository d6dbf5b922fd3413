"""Models for the probe's confirmation of GB437 / EX712 (torch.linalg.lstsq), EX713 (a slice assignment
bounded by a number read from tensor data), EX714 / GB404 (torch.combinations), GB438 / EX715 (one_hot
without num_classes), EX716 (Tensor.data), EX718 (a write at an index from argmax) and EX720 (a distribution that
validates its arguments; the probe compiles first, in the same process). tests/test_probe.py finds each call by
its text."""

import torch
from torch import nn


class LaneFit(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pts = nn.Linear(16, 10)

    def forward(self, feat):
        ys = torch.linspace(0, 1, 10)
        xs = self.pts(feat)
        design = torch.stack([ys ** d for d in range(3)], dim=-1)
        coeffs = torch.linalg.lstsq(design.expand(xs.shape[0], -1, -1), xs.unsqueeze(-1)).solution
        return coeffs.squeeze(-1)


class LengthMask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, lengths):
        out = self.proj(x)
        for b, n in enumerate(lengths.tolist()):
            out[b, n:] = 0
        return out


class PairDistance(nn.Module):
    def forward(self, boxes):
        pairs = torch.combinations(torch.arange(boxes.shape[0]), r=2)
        return (boxes[pairs[:, 0]] - boxes[pairs[:, 1]]).abs().sum(-1)


def make_lane_fit():
    torch.manual_seed(0)
    return LaneFit(), [(torch.randn(3, 16),), (torch.randn(5, 16),)]


def make_length_mask():
    torch.manual_seed(0)
    return LengthMask(), [(torch.randn(2, 6, 8), torch.tensor([3, 5])), (torch.randn(2, 6, 8), torch.tensor([6, 1]))]


def make_pairs():
    torch.manual_seed(0)
    return PairDistance(), [(torch.randn(6, 4),), (torch.randn(9, 4),)]


class OneHotEmbed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(5, 8)

    def forward(self, labels):
        onehot = torch.nn.functional.one_hot(labels).float()
        return self.embed(onehot[:, :5])


def make_one_hot():
    return OneHotEmbed(), [(torch.tensor([0, 4, 1, 2]),), (torch.tensor([4, 4, 3]),)]


class LegacyData(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        return h.data * 2


def make_legacy_data():
    torch.manual_seed(0)
    return LegacyData(), [(torch.randn(3, 4),), (torch.randn(5, 4),)]


class PeakSuppress(nn.Module):
    """Non-maximum suppression of one heat map's peak: zero the hottest cell (a write at an argmax index)."""

    def forward(self, heat):
        peak = heat.flatten().argmax()
        flat = heat.flatten().clone()
        flat[peak] = 0.0
        return flat.view_as(heat)


def make_peak_suppress():
    torch.manual_seed(0)
    return PeakSuppress(), [(torch.rand(4, 4),), (torch.rand(6, 6),)]


class GaussianHead(nn.Module):
    """A control policy's Gaussian head, sampled with the reparameterisation trick."""

    def __init__(self) -> None:
        super().__init__()
        self.mu = nn.Linear(6, 2)
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        dist = torch.distributions.Normal(self.mu(obs), self.log_std.exp())
        return dist.rsample().tanh()


def make_gaussian_head():
    torch.manual_seed(0)
    return GaussianHead(), [(torch.randn(3, 6),), (torch.randn(3, 6),)]
