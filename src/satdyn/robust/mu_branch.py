"""Branch and bound on the parameter box to tighten the mu upper bound of purely real structures.

Arguments:
    M : complex ndarray (n, n), one matrix.
    structure : BlockStructure with repeated real scalar blocks only.
    lower : float, a lower bound of mu achieved by a known Delta (1/lower is an achievable
            destabilising size).
    gaps : relative gaps to try to certify, e.g. (0.008, 0.018).

The D-G bound is conservative for real parameters. To prove mu <= 1/k we show that
I - M Delta(delta) is non-singular on the box |delta_i| <= k: a sub-box with centre c and
half-widths h is safe when I - M Delta_c is invertible and the D-G bound of
M_c H is below 1, where M_c = (I - M Delta_c)^-1 M and H = diag(h_i I_{r_i}), because
I - M Delta = (I - M Delta_c)(I - M_c Delta') with Delta' = Delta - Delta_c. Boxes that are
not proved safe are split in half along their widest side. All open boxes are bounded in
one batched call of the D-G descent (with an early stop at 1).
"""

from __future__ import annotations

import numpy as np

from .mu_upper import mu_upper_bound

__all__ = ["certify_real_margin", "tighten_real_upper"]


def certify_real_margin(M, structure, k: float, max_boxes: int = 256) -> bool:
    """True when det(I - M Delta(delta)) != 0 for every |delta_i| <= k (proved by B&B)."""
    sizes = np.array([b.z_size for b in structure.blocks])
    n = M.shape[0]
    centres = np.zeros((1, len(sizes)))
    halves = np.full((1, len(sizes)), float(k))
    visited = 0
    while centres.shape[0]:
        visited += centres.shape[0]
        if visited > max_boxes:
            return False
        dc = np.repeat(centres, sizes, axis=1)  # (B, n)
        I_minus = np.eye(n) - M[None] * dc[:, None, :]
        if np.any(np.linalg.svd(I_minus, compute_uv=False)[:, -1] < 1e-12):
            return False  # a centre is (nearly) singular: the margin is not k
        Mc = np.linalg.solve(I_minus, np.broadcast_to(M, I_minus.shape))
        scaled = Mc * np.repeat(halves, sizes, axis=1)[:, None, :]
        upper, _, _ = mu_upper_bound(scaled, structure, target=0.999, iterations=40)
        open_ = upper >= 0.999
        if not np.any(open_):
            return True
        c, h = centres[open_], halves[open_]
        # split along the side with the largest half-width (ties: first)
        axis = np.argmax(h, axis=1)
        rows = np.arange(c.shape[0])
        h = h.copy()
        h[rows, axis] /= 2
        left, right = c.copy(), c.copy()
        left[rows, axis] -= h[rows, axis]
        right[rows, axis] += h[rows, axis]
        centres = np.concatenate([left, right])
        halves = np.concatenate([h, h])
    return True


def tighten_real_upper(M, structure, upper: float, lower: float, gaps=(0.008, 0.018),
                       max_boxes: int = 256) -> float:
    """Smaller certified upper bound of mu (or ``upper`` unchanged when B&B cannot prove it)."""
    if lower <= 0 or upper <= lower * (1 + min(gaps)):
        return upper
    for gap in gaps:
        candidate = lower * (1 + gap)
        if candidate >= upper:
            break
        if certify_real_margin(M, structure, 1.0 / candidate, max_boxes=max_boxes):
            return candidate
    return upper
