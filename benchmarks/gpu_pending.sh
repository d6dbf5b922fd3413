#!/usr/bin/env bash
# What is ready to run on the GPU machine and has not run there yet (session 8 ran out of device time).
# One call of the device tool, about 4 minutes, from the repository root, with the wheels in .whl carried:
#   run(command="bash benchmarks/gpu_pending.sh", carry=[".whl"])
# Each step has its own time limit, and output goes through grep --line-buffered, so a killed step still
# shows what it printed. Raw output also lands in $OUT (when the device tool sets it).
set -u
OUT=${OUT:-/tmp}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/libcst*.whl .whl/sarif*.whl .whl/pbr*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
echo "== voxel scatter without a sort (benchmarks/voxel_experiments.py) =="
timeout -s KILL 150 python3 benchmarks/voxel_experiments.py 2>&1 | grep --line-buffered -v Warn | tee "$OUT/voxel_slots.txt"
echo "== softmax, persistent over rows (benchmarks/wide_rows_tma.py --only persistent) =="
timeout -s KILL 120 python3 benchmarks/wide_rows_tma.py --only persistent 2>&1 | grep --line-buffered -v Warn \
    | tee "$OUT/softmax_persistent.txt"
echo "== EX717's examples through the harness on this torch (2.11) =="
timeout -s KILL 60 python3 -m pytest -q -p no:logging -p no:cacheprovider tests/test_rule_examples.py -k EX717 -rs \
    2>&1 | grep --line-buffered -E "passed|failed|FAILED|SKIPPED|Error"
