# Written after the rules were fixed (held-out set): segmentation, audio, attention, policies.
import math
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import List, Optional, Tuple

DROP = 0.1


class SegHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x, size: List[int]):
        return F.interpolate(self.conv(x), size=size, mode="bilinear", align_corners=False)


class SegHeadTupleSize(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        size = tuple(x.shape[-2:])
        return F.interpolate(self.conv(x), size=size, mode="nearest")


class MelFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(64))

    def forward(self, wav):
        spec = torch.stft(wav, 64, window=self.window, return_complex=True)
        return spec.abs().clamp(min=1e-5).log()


class SinusoidalPos(nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = 16

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        return torch.cat([args.sin(), args.cos()], dim=-1)


class AttentionBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.heads = 4

    def forward(self, x, mask: Optional[torch.Tensor] = None):
        b, n, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, n, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, n, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, n, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        if mask is not None:
            att = att.masked_fill(mask == 0, float("-inf"))
        return (att.softmax(-1) @ v).transpose(1, 2).reshape(b, n, c)


class DropPathGlobal(nn.Module):
    def forward(self, x):
        keep = torch.rand(x.shape[0], 1) > DROP
        return x * keep / (1 - DROP)


class PolicyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(8, 2)
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        mu = self.mu(obs)
        std = self.log_std.exp().expand_as(mu)
        return mu + std * torch.randn_like(mu)


class EpsilonGreedy(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 4)

    def forward(self, obs):
        import random
        if random.random() < 0.05:
            return torch.randint(0, 4, (obs.shape[0],))
        return self.q(obs).argmax(-1)


class WarnOnShape(nn.Module):
    def forward(self, x):
        if x.dim() != 3:
            warnings.warn("expected 3-d input")
        return x


class ChannelShuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.groups = 2

    def forward(self, x):
        b, c, h, w = x.shape
        return x.view(b, self.groups, c // self.groups, h, w).transpose(1, 2).reshape(b, c, h, w)


class ChannelShufflePermuteStar(nn.Module):
    def forward(self, x):
        dims = [0, 2, 1, 3]
        return x.permute(*dims)


class FeaturePyramidSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.lat = nn.ModuleList([nn.Conv2d(8, 8, 1) for _ in range(3)])

    def forward(self, feats: List[torch.Tensor]):
        outs = [l(f) for l, f in zip(self.lat, feats)]
        total = outs[0]
        for o in outs[1:]:
            total = total + F.interpolate(o, size=total.shape[-2:])
        return total


class CosineClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 8))

    def forward(self, x):
        x = F.normalize(x, dim=1)
        w = F.normalize(self.w, dim=1)
        return x @ w.t()


class TemperatureScaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Parameter(torch.ones(()))

    def forward(self, logits):
        print(f"temperature={float(self.t):.2f}")
        return logits / self.t


class LengthMask(nn.Module):
    def forward(self, lengths):
        max_len = int(lengths.max())
        return torch.arange(max_len)[None, :] < lengths[:, None]


class GRUEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 8, batch_first=True)

    def forward(self, x):
        out, h = self.gru(x)
        return h[-1]


class DictInputs(nn.Module):
    def forward(self, batch: dict):
        return batch["x"] * 2


class SplitHeads(nn.Module):
    def forward(self, x):
        a, b = torch.split(x, x.shape[-1] // 2, dim=-1)
        return a * b.sigmoid()


class AnchorGen(nn.Module):
    def __init__(self):
        super().__init__()
        self.sizes = (32, 64)
        self.ratios = (0.5, 1.0, 2.0)

    def forward(self, x):
        anchors = []
        for s in self.sizes:
            for r in self.ratios:
                w = s * math.sqrt(r)
                h = s / math.sqrt(r)
                anchors.append([-w / 2, -h / 2, w / 2, h / 2])
        return torch.tensor(anchors)


class SoftNMSWeights(nn.Module):
    def forward(self, ious):
        sigma = 0.5
        return torch.exp(-(ious ** 2) / sigma)
