"""Detection post-processing with boolean masks only: filter by score, rescale to image size."""
# EXPECT: stable
import torch
from torch import nn


class ScoreFilter(nn.Module):
    def __init__(self, score_thresh=0.3):
        super().__init__()
        self.score_thresh = score_thresh

    def forward(self, boxes, logits, image_size):
        probs = logits.softmax(-1)
        scores, labels = probs[:, 1:].max(-1)
        keep = scores > self.score_thresh
        scale = torch.cat([image_size.flip(0), image_size.flip(0)]).float()
        out = boxes[keep] * scale
        return out, scores[keep], labels[keep] + 1


def make():
    torch.manual_seed(0)
    size = torch.tensor([480, 640])
    return ScoreFilter().eval(), [(torch.rand(10, 4), torch.randn(10, 4), size),
                                  (torch.rand(12, 4), torch.randn(12, 4) * 3, torch.tensor([600, 800]))]
