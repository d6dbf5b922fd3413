"""graph_breaks rules: one rule per file."""
