"""Seeded test systems with repeated real parameters (shared by the mu and worst-case-gain tests)."""

import numpy as np


def lightly_damped_system(n, parameters, repeat, seed, *, damping=(0.01, 0.1), input_gain=0.3,
                          output_gain=0.3, performance=False):
    """Stable n-state system with light modes and Delta channels B (n, p r), C (p r, n).

    The modes (0.5 to 20 rad/s, damping ratios drawn in ``damping``) are mixed by a random
    similarity. ``performance=True`` appends one performance input and output.
    """
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    for i, w in enumerate(np.geomspace(0.5, 20, n // 2)):
        zeta = rng.uniform(*damping)
        A[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[0, 1], [-w * w, -2 * zeta * w]]
    T = np.eye(n) + 0.1 * rng.standard_normal((n, n))
    A = T @ A @ np.linalg.inv(T)
    nd = parameters * repeat
    B = input_gain * rng.standard_normal((n, nd))
    if performance:
        B = np.hstack([B, rng.standard_normal((n, 1))])
    C = output_gain * rng.standard_normal((nd, n))
    if performance:
        C = np.vstack([C, rng.standard_normal((1, n))])
    return A, B, C
