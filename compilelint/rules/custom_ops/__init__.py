"""custom-op rules (torch.library ops, C++ extensions, autograd.Function under torch.compile / torch.export): one
rule per file."""
