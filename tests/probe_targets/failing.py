"""Targets whose factories fail in the ways the probe must survive: abort, hang, unbounded allocation,
and an exception in the model's own code."""

import os
import time

import torch


def make_abort():
    os.abort()


def make_hang():
    while True:
        time.sleep(1)


def make_alloc():
    chunks = []
    while True:
        chunks.append(torch.ones(16 << 20))  # 64 MB each, touched


class Raises(torch.nn.Module):
    def forward(self, x):
        return x @ torch.ones(3, 5)  # shape mismatch on purpose: (4, 8) @ (3, 5)


def make_raises():
    return Raises(), [(torch.randn(4, 8),)]
