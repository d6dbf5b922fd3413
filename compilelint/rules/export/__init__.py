"""export rules (torch.export.export): one rule per file."""
