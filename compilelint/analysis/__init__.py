"""Facts shared by all rules: the repo index, which code is compiled (scope), and which values are tensors."""
