"""Prediction: encodes agents' past trajectories of different lengths, packed so padding costs no compute."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence


class Model(nn.Module):
    def __init__(self, dim=4, hidden=32):
        super().__init__()
        self.step = nn.Linear(dim, hidden)
        self.head = nn.Linear(hidden, 2)

    def forward(self, tracks, lengths):
        packed = pack_padded_sequence(tracks, lengths, batch_first=True, enforce_sorted=False)  # BREAK: GB0007
        steps = PackedSequence(torch.relu(self.step(packed.data)), packed.batch_sizes, packed.sorted_indices,
                               packed.unsorted_indices)
        padded, _ = pad_packed_sequence(steps, batch_first=True, total_length=tracks.shape[1])  # BREAK: GB0007
        summary = padded.sum(1) / lengths[:, None].to(padded.dtype)
        return self.head(summary)


def inputs():
    return [(torch.randn(5, 9, 4), torch.tensor([9, 3, 6, 9, 1])), (torch.randn(5, 9, 4), torch.tensor([2, 9, 9, 4, 5]))]
