"""Serving: writes each batch's predicted labels to a log file for auditing."""
import os
import tempfile

import torch
import torch.nn as nn

LOG_PATH = os.path.join(tempfile.gettempdir(), "compilelint_corpus_predictions.log")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Linear(8, 3)

    def forward(self, x):
        labels = self.cls(x).argmax(-1)
        with open(LOG_PATH, "a") as fh:  # BREAK: GB0059 GB0142
            fh.write("batch\n")
        return labels


def inputs():
    return [(torch.randn(2, 8),), (torch.randn(2, 8),)]
