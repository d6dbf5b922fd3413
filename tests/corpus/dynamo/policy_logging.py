"""Control: a policy network that logs its action statistics through the logging module."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 3))

    def forward(self, obs):
        action = torch.tanh(self.net(obs))
        logger.info("policy step: batch=%d", obs.shape[0])  # BREAK: GB0291
        return action


def inputs():
    return [(torch.randn(4, 10),), (torch.randn(4, 10),)]
