"""torchscript rules: one rule per file."""
