"""What torch.export needs declared."""

from __future__ import annotations

from compilelint.torchapi import Names

# Registering a class as a pytree node (a call with the class first, or a class decorator): export then accepts
# it as an output; an unregistered dataclass output fails after tracing (EX708).
PYTREE_REGISTER = Names({"torch.export.register_dataclass", "torch.utils._pytree.register_dataclass",
                         "torch.utils._pytree.register_pytree_node", "torch.utils._pytree._register_pytree_node",
                         "torch.utils._pytree.register_constant"}, verified_on=("2.13",))
