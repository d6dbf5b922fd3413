"""Planner: scores candidate trajectories and picks the best with argmax + gather."""
# EXPECT: stable
import torch
from torch import nn


class TrajectorySelector(nn.Module):
    def __init__(self, w_progress=1.0, w_comfort=0.3):
        super().__init__()
        self.w_progress = w_progress
        self.w_comfort = w_comfort

    def forward(self, trajs, obstacles):
        progress = trajs[:, :, -1, 0]
        jerk = trajs[:, :, 2:] - 2 * trajs[:, :, 1:-1] + trajs[:, :, :-2]
        comfort = jerk.norm(dim=-1).mean(-1)
        d = torch.cdist(trajs.flatten(1, 2), obstacles).view(trajs.shape[0], trajs.shape[1], trajs.shape[2], -1)
        collision = (d.min(-1).values < 0.5).any(-1).float()
        cost = -self.w_progress * progress + self.w_comfort * comfort + 100 * collision
        best = cost.argmin(1)
        idx = best.view(-1, 1, 1, 1).expand(-1, 1, trajs.shape[2], trajs.shape[3])
        return trajs.gather(1, idx).squeeze(1)


def make():
    torch.manual_seed(0)
    return TrajectorySelector().eval(), [(torch.randn(2, 5, 6, 2), torch.randn(2, 3, 2)),
                                         (torch.randn(3, 7, 6, 2), torch.randn(3, 4, 2))]
