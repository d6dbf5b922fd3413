"""Bundled fused Triton kernels, each beside its PyTorch reference.

One module per kernel; each exposes ``reference(...)`` (plain PyTorch, the function the kernel must
compute), the fused launcher (autotuned with ``triton.autotune`` on a GPU) and ``CONFIGS``.

Importing this package imports nothing heavy: torch and triton are imported only by the kernel modules
themselves, which static mode never imports. Under ``TRITON_INTERPRET=1`` (CPU) the launchers skip
autotuning and run one fixed configuration, so correctness can be checked without a GPU.

    bn_relu          folded BatchNorm (eval) + conv bias + ReLU epilogue    (memory-bound)
    norms            LayerNorm and RMSNorm forward, row-wise                 (memory-bound)
    softmax          row-wise softmax                                        (memory-bound)
    flash_attention  attention forward, causal or not, variable key length  (matrix-bound)
    moe_gating       top-k of E gating: softmax + top-k + renormalise        (memory-bound)
    voxel_scatter    PointPillars-style scatter-mean / max of points into a BEV grid (atomics)
"""

KERNELS = ("bn_relu", "norms", "softmax", "flash_attention", "moe_gating", "voxel_scatter")
