"""Helpers shared by the recompile rules (no rule here)."""
from __future__ import annotations

from compilelint.analysis.dynamo import ENTRY_DECORATORS, is_frame_entry  # noqa: F401 - re-exported for the rules
