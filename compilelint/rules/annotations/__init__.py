"""annotations rules: one rule per file."""
