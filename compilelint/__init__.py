"""compilelint: find PyTorch code that will not compile (TorchScript, trace, Dynamo, export) and prove it."""

__version__ = "0.2.0"
