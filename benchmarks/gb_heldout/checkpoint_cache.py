"""Feature extractor that caches its outputs to disk, keyed by a hash of the config."""
import hashlib
import os

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8, cache_dir="/nonexistent/cache"):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.cache_dir = cache_dir

    def forward(self, x):
        key = hashlib.sha1(b"body-v1").hexdigest()
        path = os.path.join(self.cache_dir, key + ".pt")
        if os.path.exists(path):
            return torch.load(path)
        return self.body(x)


def inputs():
    return [(torch.randn(2, 8),), (torch.randn(2, 8),)]
