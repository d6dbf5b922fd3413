"""Calls Dynamo does not trace, and the graph break each gives (its id in torch/_dynamo/graph_break_registry.json).

Each table was verified with torch.compile(backend="eager") and the graph-break log, through the examples of
the GB rule that reads it; `verified_on` names the releases. Ids that differ on an older release are noted
here and kept by the rule as `older_gb_ids`.
"""

from __future__ import annotations

from compilelint.torchapi import Names, Table

# -- Python's standard library ---------------------------------------------------------------------------------

# `logger.<method>(...)` on a logging.Logger breaks (GB0291) even when listed in reorderable_logging_functions; the
# module functions `logging.<method>(...)` break with GB4841 unless listed there (2.11: GB0156, inside logging).
LOGGER_METHODS = Names({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"},
                       verified_on=("2.13",))
LOGGING_FUNCTIONS = Names({f"logging.{m}" for m in LOGGER_METHODS}, verified_on=("2.13",))

# Debuggers: breakpoint() GB0059, the pdb/ipdb functions GB0007 (pdb.set_trace by a manual probe).
DEBUGGER_CALLS = Names({"breakpoint", "pdb.set_trace", "ipdb.set_trace", "pdb.post_mortem"}, verified_on=("2.13",))

# warnings.warn and warn_explicit: GB0007, none where listed in reorderable_logging_functions.
WARNINGS_FUNCTIONS = Names({"warnings.warn", "warnings.warn_explicit"}, verified_on=("2.13",))

# The clocks and time.sleep: GB0007.
TIME_FUNCTIONS = Names({f"time.{n}" for n in ("time", "perf_counter", "monotonic", "process_time", "time_ns",
                                              "perf_counter_ns", "monotonic_ns", "process_time_ns", "sleep",
                                              "thread_time")},
                       verified_on=("2.13",))

# Wall-clock timestamps: GB0156 (2.11: GB0007).
DATETIME_NOW = Names({"datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
                      "datetime.date.today"}, verified_on=("2.13", "2.11"))

# The `random` module functions Dynamo does not trace: GB0007. random.randint, randrange and uniform are traced.
RANDOM_FUNCTIONS = Names({f"random.{n}" for n in (
    "random", "choice", "choices", "gauss", "sample", "shuffle", "seed", "getrandbits", "normalvariate",
    "betavariate", "triangular", "expovariate", "lognormvariate", "vonmisesvariate", "gammavariate",
    "paretovariate", "weibullvariate", "randbytes")}, verified_on=("2.13",))

# C functions of the standard library: each call breaks (GB0007), with constant arguments too; every function of
# `hashlib` as well (HASHLIB).
C_BUILTINS = Names({"zlib.crc32", "zlib.adler32", "zlib.compress", "zlib.decompress", "pickle.dumps", "pickle.loads",
                    "pickle.dump", "pickle.load", "os.getpid", "os.urandom", "os.getcwd", "socket.gethostname",
                    "binascii.crc32", "marshal.dumps", "marshal.loads", "bisect.bisect", "bisect.bisect_left",
                    "bisect.bisect_right", "bisect.insort", "bisect.insort_left", "bisect.insort_right",
                    "heapq.heappush", "heapq.heappop", "heapq.heapify", "heapq.heappushpop", "heapq.heapreplace",
                    "gc.collect", "gc.disable", "gc.enable", "threading.get_ident", "uuid.uuid4", "uuid.uuid1"},
                   verified_on=("2.13", "2.11"))
HASHLIB = "hashlib"

# json: GB0156 at the call (2.11 breaks inside the json module, GB0007).
JSON_FUNCTIONS = Names({"json.dumps", "json.loads", "json.dump", "json.load"}, verified_on=("2.13",))

# Files: open() GB0059 (then GB0142 on its `with`).
OPEN_FUNCTIONS = Names({"open", "io.open"}, verified_on=("2.13",))

# The file system: GB0007.
FILESYSTEM_FUNCTIONS = Names({"os.path.exists", "os.path.isfile", "os.path.isdir", "os.path.getsize",
                              "os.path.getmtime", "os.listdir", "os.makedirs", "os.mkdir", "os.remove", "os.stat",
                              "os.scandir", "os.rename", "os.unlink", "os.walk"}, verified_on=("2.13",))

# sys.stdout / sys.stderr writes: GB0156.
STD_STREAMS = Names({"sys.stdout.write", "sys.stderr.write", "sys.stdout.flush", "sys.stderr.flush"},
                    verified_on=("2.13",))

# threading's synchronisation primitives: `with lock:` in compiled code makes Dynamo skip the whole function
# (GB0142, "Unsupported context manager"; building one in place, `with threading.Lock():`, breaks first with
# GB0007); `lock.acquire()` / `lock.release()` break the graph (GB0156, "Unsupported method call").
THREAD_LOCKS = Names({"threading.Lock", "threading.RLock", "threading.Semaphore", "threading.BoundedSemaphore",
                      "threading.Condition"}, verified_on=("2.13", "2.11"))
LOCK_METHODS = Names({"acquire", "release"}, verified_on=("2.13", "2.11"))

# Network I/O (each left the frame uncompiled): requests' calls GB0156, urllib's urlopen GB0059, socket
# connections GB0007, http.client GB0156.
REQUESTS_CALLS = Names({"get", "post", "put", "delete", "head", "patch", "request", "Session"}, verified_on=("2.13",))
URLLIB_OPEN = Names({"urllib.request.urlopen", "urllib.request.urlretrieve"}, verified_on=("2.13",))
SOCKET_CONNECT = Names({"socket.create_connection", "socket.socket", "socket.getaddrinfo", "socket.gethostbyname"},
                       verified_on=("2.13",))
NETWORK_PACKAGES = Names({"requests", "urllib", "socket", "http"}, verified_on=("2.13",))

# -- other libraries -----------------------------------------------------------------------------------------------

# Packages whose functions Dynamo does not trace: scipy GB0156 (verified), the others GB0007 (C functions outside
# what Dynamo traces; not installed where the rule was verified).
THIRD_PARTY_PACKAGES = Names({"scipy", "cv2", "PIL", "pandas", "sklearn", "skimage"}, verified_on=("2.13",))

# NumPy arrays made from tensors are traced as tensors (trace_numpy); reading a value into Python is not:
# float()/int()/bool()/round() and math.* of one and `.item()` GB0033, `.tolist()` GB0109, a branch on one
# GB0170, these functions of one and indexing one with a mask GB0036.
ARRAY_TO_PYTHON = Names({"float", "int", "bool", "round"}, verified_on=("2.13",))
ARRAY_DYNAMIC_SIZE = Names({"numpy.nonzero", "numpy.argwhere", "numpy.flatnonzero", "numpy.unique"},
                           verified_on=("2.13",))

# NumPy functions torch._numpy does not implement, called on an array made from a tensor: GB0294 ("attempted to
# trace numpy function unsupported by PyTorch"); np.linalg.lstsq has no meta kernel (GB0036, as torch.linalg.lstsq);
# np.pad reads its pad widths as data (GB0033). Others tried (histogram, searchsorted, convolve, cumsum, diff,
# arctan2, einsum, median, round, meshgrid, argsort, nan_to_num, linalg.svd) are traced.
UNTRACEABLE_NUMPY = Table({"numpy.polyfit": "GB0294", "numpy.polyval": "GB0294", "numpy.interp": "GB0294",
                           "numpy.lexsort": "GB0294", "numpy.unravel_index": "GB0294", "numpy.linalg.lstsq": "GB0036",
                           "numpy.pad": "GB0033"}, verified_on=("2.13", "2.11"))

# Where numpy.random functions take `size` positionally. With a size they return an ndarray, which Dynamo traces
# through torch's numpy support (no break); without one they return a Python scalar, which breaks (GB0033).
# `permutation` breaks with GB0294.
NUMPY_RANDOM_SIZE_AT = Table({
    "rand": 0, "randn": 0, "random": 0, "random_sample": 0, "ranf": 0, "sample": 0, "standard_normal": 0,
    "poisson": 1, "exponential": 1, "chisquare": 1, "standard_gamma": 1, "rayleigh": 1, "geometric": 1,
    "choice": 1, "normal": 2, "uniform": 2, "randint": 2, "binomial": 2, "beta": 2, "gamma": 2,
    "lognormal": 2, "laplace": 2, "logistic": 2, "gumbel": 2,
}, verified_on=("2.13",))

# -- torch itself --------------------------------------------------------------------------------------------------

# Global state: saving, loading and seeding break (GB0007).
TORCH_GLOBAL_STATE = Names({"torch.save", "torch.load", "torch.manual_seed", "torch.seed", "torch.set_rng_state",
                            "torch.get_rng_state", "torch.random.manual_seed"}, verified_on=("2.13", "2.11"))
# Thread-pool settings: setting breaks (GB0007), reading breaks (GB0208).
TORCH_THREADS = Table({"torch.set_num_threads": "GB0007", "torch.set_num_interop_threads": "GB0007",
                       "torch.get_num_threads": "GB0208", "torch.get_num_interop_threads": "GB0208"},
                      verified_on=("2.13", "2.11"))

# torch.jit.isinstance (TorchScript's refinement of container types) is on Dynamo's skip list: each call breaks
# (GB0007, "Attempted to call function marked as skipped"), with a tensor or None argument alike.
JIT_ISINSTANCE = Names({"torch.jit.isinstance"}, verified_on=("2.13",))

# Calling an nn.LSTM / nn.GRU / nn.RNN submodule: GB0014.
RNN_MODULES = Names({"torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN", "torch.nn.modules.rnn.LSTM",
                     "torch.nn.modules.rnn.GRU", "torch.nn.modules.rnn.RNN"}, verified_on=("2.13",))

# torch.nn.utils.rnn's packing helpers are on Dynamo's skip list (GB0007, "Attempted to call function marked as
# skipped"); pack_sequence breaks inside torch, on its call to pack_padded_sequence.
PACKED_SEQUENCE = Names({"torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pad_packed_sequence",
                         "torch.nn.utils.rnn.pack_sequence"}, verified_on=("2.13", "2.11"))

# Calling a TorchScript module (torch.jit.script of a module, torch.jit.load, torch.jit.freeze) makes Dynamo skip
# the whole function (GB4695, "torch.jit.script/freeze modules unsupported"; 2.11: GB0357); a traced module breaks
# the graph inside torch (GB0008, "Attempted to inline function marked as skipped"); a scripted function is traced
# through. Keyed by how the module was built (compilelint.analysis.tensors.jit_module_kind).
JIT_MODULE_CALL = Table({"script": "GB4695", "trace": "GB0008"}, verified_on=("2.13",))

# Building a torch.Generator breaks (GB0363, "an opaque object was created in the middle of the program"), so does
# any `generator=` argument that is a Generator (GB0055) and seeding one (GB7650; 2.11: GB0156).
TORCH_GENERATOR = "torch.Generator"
GENERATOR_SEEDING = Names({"manual_seed", "seed"}, verified_on=("2.13",))

# Storage queries: `t.data_ptr()` compared GB5976, these methods GB0208, `t.untyped_storage()` GB0156.
STORAGE_QUERIES = Names({"storage_offset", "is_pinned", "is_shared", "storage"}, verified_on=("2.13",))

# torch._check* functions and the position of their message argument (also `message=`): a message that is not a
# function breaks (GB9840), so does a lambda reading the enclosing function's variables (GB9158; 2.11: GB0288).
# torch._check_is_size breaks with any function as its message (GB0055) and takes a string without a break.
CHECK_MESSAGE_POSITION = Table({"torch._check": 1, "torch._check_index": 1, "torch._check_value": 1,
                                "torch._check_type": 1, "torch._check_not_implemented": 1, "torch._check_with": 2},
                               verified_on=("2.13",))
CHECK_IS_SIZE = "torch._check_is_size"
