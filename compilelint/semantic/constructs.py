"""What a finding is about: the construct or value a rule reports, as one vocabulary for every target.

One construct often fails under several compilers at once: `if x.sum() > 0:` breaks Dynamo's graph, stops
torch.export and is frozen by torch.jit.trace, and a rule of each family reports it. A rule names the construct
its findings are about (`Rule.construct`, in its own file); the reporters show the findings of rules for other
targets that name the same construct at the same node as one result with all their targets
(compilelint/report/merge.py). A rule whose findings are about several things names none, and stays a result of
its own.
"""

from __future__ import annotations

from enum import Enum


class Construct(str, Enum):
    # Python reads a value that depends on tensor data: the data itself (`.item()`, `.tolist()`, `int(t)`,
    # `if t:`, `a if t else b`, an index read from data) or the size of a tensor whose size depends on it
    # (`len(x.nonzero())`, `x[mask].shape[0]`).
    DATA_DEPENDENT_VALUE = "data-dependent-value"
    # A Python loop whose trip count is a tensor's size (`for i in range(x.shape[0])`, `for row in x`).
    LOOP_OVER_TENSOR_SIZE = "loop-over-tensor-size"
    # NumPy in compiled code: a tensor or a size handed to NumPy, or a NumPy function called.
    NUMPY = "numpy"
    # Python's clocks and random numbers (`time.time()`, `datetime.now()`, `random.random()`).
    HOST_CLOCK_OR_RANDOM = "host-clock-or-random"
    # Python's logging (`logger.info(...)`, `logging.warning(...)`).
    PYTHON_LOGGING = "python-logging"
    # A call into a Python library the compilers cannot follow (`os.path.exists`, `json.dumps`, C builtins).
    PYTHON_LIBRARY_CALL = "python-library-call"
    # Python state that compiled code updates on every call (`self.calls += 1`, a global).
    PYTHON_STATE_UPDATE = "python-state-update"
