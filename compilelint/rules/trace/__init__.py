"""trace rules: one rule per file."""
