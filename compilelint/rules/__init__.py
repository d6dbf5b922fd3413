"""Rules: base framework, registry, and one file per rule grouped by family."""
