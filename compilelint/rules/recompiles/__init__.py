"""recompiles rules: one rule per file."""
