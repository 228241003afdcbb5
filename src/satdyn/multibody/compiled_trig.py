"""Sine and cosine of joint angles for the compiled kernels (numba): a polynomial, not libm.

LLVM vectorises the polynomial in the lane kernel (:mod:`~satdyn.multibody.compiled_lanes`),
where one libm call per lane and joint cost about 15 % of a call at 30 joints; the single-state
kernel uses the same function, so both kernels stay equal bit for bit, on every platform.
Reduction (Cody and Waite): r = x - k pi/2 with pi/2 = _PIO2_1 + _PIO2_2 + _PIO2_3 (pi/2 cut
into 33-bit parts: k * _PIO2_1 and k * _PIO2_2 are exact for |k| < 2^20, residual 1e-37), then
the Taylor series on |r| <= pi/4 to r^17 / r^18 (truncation < 1e-19, below half an ulp): at
most ~2 ulp from the correctly rounded values. Beyond |x| = _SINCOS_MAX: libm.
"""

from __future__ import annotations

import math

import numpy as np

from .kernel_cache import cached_njit

__all__ = []  # kernel helpers: _sin_cos, _sin_cos_reduced, _SINCOS_MAX

_PIO2_1 = float.fromhex("0x1.921fb544p+0")
_PIO2_2 = float.fromhex("0x1.0b4611a6p-34")
_PIO2_3 = float.fromhex("0x1.3198a2e037073p-69")
_TWO_OVER_PI = 2.0 / np.pi
_SINCOS_MAX = 2.0 ** 19 * _PIO2_1
_SIN_TAYLOR = tuple((-1.0) ** k / math.factorial(2 * k + 1) for k in range(1, 9))   # r^3 .. r^17
_COS_TAYLOR = tuple((-1.0) ** k / math.factorial(2 * k) for k in range(2, 10))      # r^4 .. r^18


_inline_jit = cached_njit(fastmath=False, nogil=True, inline="always")


@_inline_jit
def _sin_cos_reduced(x):
    """(sin x, cos x) for |x| <= _SINCOS_MAX, branch-free (see above)."""
    k = np.rint(x * _TWO_OVER_PI)
    r = ((x - k * _PIO2_1) - k * _PIO2_2) - k * _PIO2_3
    z = r * r
    s0, s1, s2, s3, s4, s5, s6, s7 = _SIN_TAYLOR
    c0, c1, c2, c3, c4, c5, c6, c7 = _COS_TAYLOR
    ps = s0 + z * (s1 + z * (s2 + z * (s3 + z * (s4 + z * (s5 + z * (s6 + z * s7))))))
    pc = c0 + z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * (c6 + z * c7))))))
    sr = r + r * (z * ps)
    cr = (1.0 - 0.5 * z) + z * (z * pc)
    quadrant = k - 4.0 * np.floor(0.25 * k)   # k mod 4, exact
    odd = quadrant == 1.0 or quadrant == 3.0
    sine = cr if odd else sr
    cosine = sr if odd else cr
    if quadrant >= 2.0:
        sine = -sine
    if quadrant == 1.0 or quadrant == 2.0:
        cosine = -cosine
    return sine, cosine


@_inline_jit
def _sin_cos(x):
    """(sin x, cos x) of any finite x: the polynomial, or libm beyond _SINCOS_MAX."""
    if abs(x) <= _SINCOS_MAX:
        return _sin_cos_reduced(x)
    return np.sin(x), np.cos(x)
