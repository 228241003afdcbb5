"""Full-order H-infinity controller synthesis by the Riccati (DGKF) formulas, with gamma iteration.

Arguments:
    P : ``control.StateSpace`` (continuous time), the generalised plant
            [z; y] = [[P11, P12], [P21, P22]] [w; u],
        state dimension n, inputs [w (m1); u (ncon)], outputs [z (p1); y (nmeas)]: the
        measurements are the last ``nmeas`` outputs and the controls the last ``ncon``
        inputs (as MATLAB's ``hinfsyn``).
    nmeas, ncon : int, the sizes p2 and m2.

Method (Glover and Doyle 1988, doi:10.1016/0167-6911(88)90055-2; Doyle, Glover,
Khargonekar and Francis 1989, doi:10.1109/9.29425; the general case with D11 != 0 as in
Zhou, Doyle and Glover, "Robust and Optimal Control", 1996, Theorem 17.1):

1. Scaling (Safonov, Limebeer and Chiang 1989, doi:10.1080/00207178908953472): orthogonal
   changes of z and w (which keep every norm) and invertible changes of u and y bring
   D12 to [0; I] and D21 to [0, I]; the controller is mapped back at the end.
2. D22 is removed: a controller K0 for the plant with D22 = 0 gives K = K0 (I + D22 K0)^-1
   for the true plant (the same closed loop).
3. At a level gamma the two Hamiltonians of Theorem 17.1 (they carry D11, C1^T D12 and
   B1 D21^T, so no orthogonality assumption is needed) must have stabilising solutions
   X, Y >= 0 (:mod:`satdyn.control._riccati`, ordered Schur form) with rho(X Y) < gamma^2,
   and gamma must exceed the D11 bound max(||[D1111, D1112]||, ||[D1111; D1121]||).
   Bisection (geometric) on gamma between an infeasible and a feasible level until they
   are within ``tol``; the central controller of Theorem 17.1 is built at the feasible end.
4. The closed loop lft(P, K) is formed by python-control and its H-infinity norm measured
   by :func:`satdyn.robust.hinfnorm` (and its poles checked) before the result is returned.

Bad input (not a StateSpace, discrete time, sizes out of range, D12 without full column
rank, D21 without full row rank, (A, B2) not stabilisable, (C2, A) not detectable, a
transmission zero of (A, B2, C1, D12) or (A, B1, C2, D21) on the imaginary axis) raises
:class:`SynthesisInputError` naming the plant and the condition, before any iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np

from .._validation import SatdynInputError
from ..robust import hinfnorm

from ._riccati import stabilizing_solution

__all__ = ["GammaStep", "HinfsynResult", "SynthesisFailure", "SynthesisInputError", "hinfsyn"]

# Relative tolerance of the rank tests (singular values below it times the largest count as
# zero): well above eps so that data rounded to a few digits is still recognised as rank
# deficient when it is meant to be.
_RANK_TOL = 1e-9
# Highest level tried when looking for a feasible gamma (after which the problem is
# declared numerically infeasible).
_GAMMA_MAX = 1e12


class SynthesisInputError(SatdynInputError):
    """The plant or the options given to hinfsyn / musyn cannot be used (names the condition)."""


class SynthesisFailure(RuntimeError):
    """No admissible controller was found (the gamma iteration found no feasible level)."""


@dataclass(frozen=True)
class GammaStep:
    """One level tried by the gamma iteration: ``feasible`` and, if not, ``reason``."""

    gamma: float
    feasible: bool
    reason: str


@dataclass(frozen=True)
class HinfsynResult:
    """Result of :func:`hinfsyn`.

    Attributes
    ----------
    K : control.StateSpace
        The central controller (n states, nmeas inputs, ncon outputs), u = K y.
    gamma : float
        The level at which K was built (feasible end of the bisection); the optimum lies in
        [gamma_infeasible, gamma].
    gamma_infeasible : float
        Largest level found infeasible (0 when none was tried).
    CL : control.StateSpace
        The closed loop lft(P, K) from w to z.
    closed_loop_norm : float
        ||CL||_inf measured by :func:`satdyn.robust.hinfnorm` (<= gamma up to rounding).
    X, Y : ndarray (n, n)
        Stabilising solutions of the two Riccati equations at ``gamma`` (in the
        coordinates of the scaled plant: D12 = [0; I], D21 = [0, I]; x is unchanged).
    history : tuple of GammaStep
        Every level tried, in order.
    """

    K: control.StateSpace
    gamma: float
    gamma_infeasible: float
    CL: control.StateSpace
    closed_loop_norm: float
    X: np.ndarray
    Y: np.ndarray
    history: tuple

    def to_dict(self) -> dict:
        return {"gamma": self.gamma, "gamma_infeasible": self.gamma_infeasible,
                "closed_loop_norm": self.closed_loop_norm,
                "history": [(s.gamma, s.feasible, s.reason) for s in self.history]}


# --------------------------------------------------------------------------- input checks

def _plant_matrices(P, nmeas, ncon, name):
    if not isinstance(P, control.StateSpace):
        raise TypeError(f"`{name}` must be a control.StateSpace; got {type(P).__name__}")
    if P.dt not in (0, None):
        raise SynthesisInputError(f"`{name}` must be continuous-time (dt = 0); got dt = {P.dt}")
    for label, value in (("nmeas", nmeas), ("ncon", ncon)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise SynthesisInputError(f"`{label}` must be a positive integer; got {value!r}")
    A, B, C, D = (np.asarray(M, dtype=float) for M in (P.A, P.B, P.C, P.D))
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    if not all(np.all(np.isfinite(M)) for M in (A, B, C, D)):
        raise SynthesisInputError(f"`{name}` must have finite matrices (no NaN or inf)")
    if n == 0:
        raise SynthesisInputError(f"`{name}` has no states; hinfsyn needs a dynamic plant")
    m1, p1 = m - ncon, p - nmeas
    if m1 < 1 or p1 < 1:
        raise SynthesisInputError(
            f"`{name}` has {m} inputs and {p} outputs: ncon={ncon} and nmeas={nmeas} leave "
            f"{m1} disturbance inputs and {p1} error outputs (at least one of each needed)")
    if ncon > p1:
        raise SynthesisInputError(
            f"`{name}`: D12 ({p1} x {ncon}) cannot have full column rank: ncon={ncon} exceeds "
            f"the {p1} error outputs")
    if nmeas > m1:
        raise SynthesisInputError(
            f"`{name}`: D21 ({nmeas} x {m1}) cannot have full row rank: nmeas={nmeas} exceeds "
            f"the {m1} disturbance inputs")
    return A, B[:, :m1], B[:, m1:], C[:p1], C[p1:], D[:p1, :m1], D[:p1, m1:], D[p1:, :m1], D[p1:, m1:]


def _rank(M):
    s = np.linalg.svd(M, compute_uv=False)
    return int(np.sum(s > _RANK_TOL * max(s.max(initial=0.0), 1.0)))


def _pbh_fails(A, B, unstable_only):
    """Eigenvalues lambda of A (Re >= 0 if unstable_only, else on the axis) with rank[A - lambda I, B] < n."""
    n = A.shape[0]
    scale = max(np.linalg.norm(A, 1), 1.0)
    bad = []
    # the same notion of "on the axis" as the Riccati solver (satdyn.control._riccati):
    # rounding of order 1000 eps ||A||, or 1e-8 relative to |lambda|
    for lam in np.linalg.eigvals(A):
        margin = 1e-8 * abs(lam) + 1e3 * np.finfo(float).eps * scale
        if unstable_only and lam.real < -margin:
            continue
        if not unstable_only and abs(lam.real) > margin:
            continue
        s = np.linalg.svd(np.hstack([A - lam * np.eye(n), B]), compute_uv=False)
        if s[-1] <= 1e-9 * max(scale, np.linalg.norm(B, 1)):
            bad.append(lam)
    return bad


def _check_conditions(A, B1, B2, C1, C2, D12, D21, name):
    n = A.shape[0]
    if _rank(D12) < D12.shape[1]:
        raise SynthesisInputError(
            f"`{name}`: D12 ({D12.shape[0]} x {D12.shape[1]}) must have full column rank "
            f"(every control must act on the error outputs directly); its rank is {_rank(D12)}")
    if _rank(D21) < D21.shape[0]:
        raise SynthesisInputError(
            f"`{name}`: D21 ({D21.shape[0]} x {D21.shape[1]}) must have full row rank "
            f"(every measurement must carry noise); its rank is {_rank(D21)}")
    bad = _pbh_fails(A, B2, True)
    if bad:
        raise SynthesisInputError(
            f"`{name}`: (A, B2) is not stabilisable (uncontrollable mode(s) at {np.round(bad, 6)})")
    bad = _pbh_fails(A.T, C2.T, True)
    if bad:
        raise SynthesisInputError(
            f"`{name}`: (C2, A) is not detectable (unobservable mode(s) at {np.round(bad, 6)})")
    # [A - jwI, B2; C1, D12] full column rank for all w <=> (A - B2 D12^+ C1, (I - D12 D12^+) C1)
    # has no unobservable mode on the imaginary axis (D12 has full column rank).
    pinv12 = np.linalg.pinv(D12)
    bad = _pbh_fails((A - B2 @ pinv12 @ C1).T, ((np.eye(D12.shape[0]) - D12 @ pinv12) @ C1).T, False)
    if bad:
        raise SynthesisInputError(
            f"`{name}`: [A - jwI, B2; C1, D12] loses column rank at w = {np.round(np.imag(bad), 6)} "
            f"(a transmission zero of P12 on the imaginary axis)")
    pinv21 = np.linalg.pinv(D21)
    bad = _pbh_fails(A - B1 @ pinv21 @ C2, B1 @ (np.eye(D21.shape[1]) - pinv21 @ D21), False)
    if bad:
        raise SynthesisInputError(
            f"`{name}`: [A - jwI, B1; C2, D21] loses row rank at w = {np.round(np.imag(bad), 6)} "
            f"(a transmission zero of P21 on the imaginary axis)")
    del n


# --------------------------------------------------------------------------- scaling

def _normalise(B1, B2, C1, C2, D11, D12, D21, D22):
    """Bring D12 to [0; I], D21 to [0, I] (orthogonal z, w changes; invertible u, y changes).

    Returns the scaled blocks and (Tu, Ty) with u = Tu u_s, y_s = Ty y, so a controller
    u_s = K_s y_s of the scaled plant is u = Tu K_s Ty y.
    """
    p1, m2 = D12.shape
    p2, m1 = D21.shape
    U, s, Vt = np.linalg.svd(D12)                 # D12 = U[:, :m2] diag(s) Vt
    Qz = np.hstack([U[:, m2:], U[:, :m2]])         # z_s = Qz^T z: D12 rows end in diag(s) Vt
    Tu = Vt.T / s                                  # u = Tu u_s: Qz^T D12 Tu = [0; I]
    U2, s2, Vt2 = np.linalg.svd(D21)               # D21 = U2 diag(s2) Vt2[:p2]
    Qw = np.hstack([Vt2[p2:].T, Vt2[:p2].T])       # w = Qw w_s: D21 Qw = [0, U2 diag(s2)]
    Ty = (U2 / s2).T                               # y_s = Ty y: Ty D21 Qw = [0, I]
    B1s, C1s = B1 @ Qw, Qz.T @ C1
    B2s, C2s = B2 @ Tu, Ty @ C2
    D11s = Qz.T @ D11 @ Qw
    D12s, D21s = Qz.T @ D12 @ Tu, Ty @ D21 @ Qw
    D22s = Ty @ D22 @ Tu
    # the exact normal forms (the products above equal them to rounding)
    D12s = np.vstack([np.zeros((p1 - m2, m2)), np.eye(m2)]) if D12s.size else D12s
    D21s = np.hstack([np.zeros((p2, m1 - p2)), np.eye(p2)]) if D21s.size else D21s
    return B1s, B2s, C1s, C2s, D11s, D12s, D21s, D22s, Tu, Ty


# --------------------------------------------------------------------------- one level

@dataclass
class _Level:
    feasible: bool
    reason: str
    X: object = None
    Y: object = None
    K: tuple = None


def _d11_bound(D11, m2, p2):
    p1, m1 = D11.shape
    rows = D11[: p1 - m2, :]       # [D1111, D1112]
    cols = D11[:, : m1 - p2]       # [D1111; D1121]
    a = np.linalg.norm(rows, 2) if rows.size else 0.0
    b = np.linalg.norm(cols, 2) if cols.size else 0.0
    return max(a, b)


def _level(gamma, A, B1, B2, C1, C2, D11, D12, D21, build):
    """Existence test (and central controller) of Zhou-Doyle-Glover Theorem 17.1 at gamma.

    Scaled plant with D12 = [0; I], D21 = [0, I], D22 = 0.
    """
    n = A.shape[0]
    p1, m1 = D11.shape
    m2, p2 = B2.shape[1], C2.shape[0]
    g2 = gamma * gamma
    if gamma <= _d11_bound(D11, m2, p2) * (1 + 1e-12):
        return _Level(False, "gamma does not exceed the D11 bound")
    B = np.hstack([B1, B2])
    C = np.vstack([C1, C2])
    D1_ = np.hstack([D11, D12])                    # D1. (p1, m1 + m2)
    D_1 = np.vstack([D11, D21])                    # D.1 (p1 + p2, m1)
    R = D1_.T @ D1_
    R[:m1, :m1] -= g2 * np.eye(m1)
    Rt = D_1 @ D_1.T
    Rt[:p1, :p1] -= g2 * np.eye(p1)
    Rinv = np.linalg.inv(R)
    Rtinv = np.linalg.inv(Rt)
    # H_inf = [A, 0; -C1'C1, -A'] - [B; -C1'D1.] R^-1 [D1.'C1, B']
    H = np.block([[A, np.zeros((n, n))], [-C1.T @ C1, -A.T]])
    H -= np.vstack([B, -C1.T @ D1_]) @ Rinv @ np.hstack([D1_.T @ C1, B.T])
    # J_inf = [A', 0; -B1B1', -A] - [C'; -B1D.1'] Rt^-1 [D.1B1', C]
    J = np.block([[A.T, np.zeros((n, n))], [-B1 @ B1.T, -A]])
    J -= np.vstack([C.T, -B1 @ D_1.T]) @ Rtinv @ np.hstack([D_1 @ B1.T, C])
    Xs = stabilizing_solution(H)
    if Xs.X is None:
        return _Level(False, "X Riccati: " + Xs.reason)
    Ys = stabilizing_solution(J)
    if Ys.X is None:
        return _Level(False, "Y Riccati: " + Ys.reason)
    X, Y = Xs.X, Ys.X
    for label, S in (("X", X), ("Y", Y)):
        if np.linalg.eigvalsh(S).min() < -1e-9 * max(np.linalg.norm(S, 2), 1.0):
            return _Level(False, f"{label} is not positive semidefinite")
    rho = np.max(np.abs(np.linalg.eigvals(X @ Y)))
    if rho >= g2 * (1 - 1e-10):
        return _Level(False, f"coupling rho(X Y) = {rho:.6g} >= gamma^2")
    if not build:
        return _Level(True, "", X, Y)
    # central controller (Q = 0) of Theorem 17.1; the factors D^12, D^21 cancel in it
    F = -Rinv @ (D1_.T @ C1 + B.T @ X)             # (m1 + m2, n) = [F11; F12; F2]
    L = -(B1 @ D_1.T + Y @ C.T) @ Rtinv            # (n, p1 + p2) = [L11, L12, L2]
    F12, F2 = F[m1 - p2: m1], F[m1:]
    L12, L2 = L[:, p1 - m2: p1], L[:, p1:]
    D1111 = D11[: p1 - m2, : m1 - p2]
    D1112 = D11[: p1 - m2, m1 - p2:]
    D1121 = D11[p1 - m2:, : m1 - p2]
    D1122 = D11[p1 - m2:, m1 - p2:]
    Dk = -D1122
    if D1111.size:
        Dk = Dk - D1121 @ D1111.T @ np.linalg.solve(g2 * np.eye(p1 - m2) - D1111 @ D1111.T, D1112)
    Z = np.linalg.inv(np.eye(n) - (Y @ X) / g2)
    Bk = -Z @ L2 + Z @ (B2 + L12) @ Dk
    Ck = F2 - Dk @ (C2 + F12)
    Ak = A + B @ F - Bk @ (C2 + F12)
    return _Level(True, "", X, Y, (Ak, Bk, Ck, Dk))


# --------------------------------------------------------------------------- public function

def hinfsyn(P, nmeas: int, ncon: int, gamma_range=None, tol: float = 1e-3, *, name: str = "P"):
    """Full-order H-infinity synthesis: the central controller at the (near-)optimal level.

    Parameters
    ----------
    P : control.StateSpace
        Generalised plant (n states; inputs [w; u], outputs [z; y]), continuous time.
    nmeas : int
        Number of measurements y (the last outputs of P).
    ncon : int
        Number of controls u (the last inputs of P).
    gamma_range : (float, float), optional
        Bracket (gamma_min, gamma_max) for the iteration. gamma_min is raised to the D11
        bound; gamma_max is doubled until feasible (up to 1e12). ``(g, g)`` synthesises at
        the fixed level g (no iteration; error if infeasible). Default: (0, automatic).
    tol : float
        Relative accuracy of the bisection: it stops when gamma / gamma_infeasible <= 1 + tol,
        so gamma_opt <= gamma <= (1 + tol) gamma_opt.
    name : str
        Name of the plant in error messages.

    Returns
    -------
    HinfsynResult

    Raises
    ------
    SynthesisInputError
        Bad arguments or a plant violating the assumptions (named).
    SynthesisFailure
        No feasible level up to 1e12, or a fixed level that is infeasible.
    """
    A, B1, B2, C1, C2, D11, D12, D21, D22 = _plant_matrices(P, nmeas, ncon, name)
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not 0 < tol < 1:
        raise SynthesisInputError(f"`tol` must be a number in (0, 1); got {tol!r}")
    lo, hi = 0.0, None
    if gamma_range is not None:
        try:
            lo, hi = (float(g) for g in gamma_range)
        except (TypeError, ValueError):
            raise SynthesisInputError(
                f"`gamma_range` must be a pair (gamma_min, gamma_max); got {gamma_range!r}") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and 0 <= lo <= hi and hi > 0):
            raise SynthesisInputError(
                f"`gamma_range` must satisfy 0 <= gamma_min <= gamma_max, gamma_max > 0; got {gamma_range!r}")
    _check_conditions(A, B1, B2, C1, C2, D12, D21, name)
    B1s, B2s, C1s, C2s, D11s, D12s, D21s, D22s, Tu, Ty = _normalise(B1, B2, C1, C2, D11, D12, D21, D22)
    args = (A, B1s, B2s, C1s, C2s, D11s, D12s, D21s)
    history = []

    def test(g, build=False):
        level = _level(g, *args, build)
        history.append(GammaStep(float(g), level.feasible, level.reason))
        return level

    fixed = gamma_range is not None and lo == hi
    if fixed:
        best = test(hi, build=True)
        if not best.feasible:
            raise SynthesisFailure(f"hinfsyn: level gamma = {hi:g} is infeasible for `{name}`: {best.reason}")
        g_feas, g_inf = hi, 0.0
    else:
        g_inf = max(lo, _d11_bound(D11s, ncon, nmeas))
        g_feas = hi if hi is not None else max(1.0, 2 * g_inf)
        while not test(g_feas).feasible:
            g_inf = max(g_inf, g_feas)
            g_feas *= 4.0
            if g_feas > _GAMMA_MAX:
                raise SynthesisFailure(
                    f"hinfsyn: no feasible level up to {_GAMMA_MAX:g} for `{name}` "
                    f"(last reason: {history[-1].reason})")
        if g_inf == 0.0:   # search downwards for an infeasible level
            g = g_feas
            while True:
                g /= 4.0
                if not test(g).feasible:
                    g_inf = g
                    break
                g_feas = g
                if g < 1e-12:
                    g_inf = 0.0
                    break
        while g_inf > 0 and g_feas / g_inf > 1 + tol:
            mid = np.sqrt(g_feas * g_inf)
            if test(mid).feasible:
                g_feas = mid
            else:
                g_inf = mid
        best = test(g_feas, build=True)
    K = _assemble_controller(best.K, D22s, Tu, Ty, name)
    CL = P.lft(K, nu=ncon, ny=nmeas)
    poles = np.linalg.eigvals(np.asarray(CL.A))
    if poles.size and poles.real.max() >= 0:
        raise SynthesisFailure(
            f"hinfsyn: the central controller at gamma = {g_feas:g} does not stabilise `{name}` "
            f"(closed-loop pole at {poles[np.argmax(poles.real)]:.4g}); the level is too close to "
            f"the optimum for the Riccati formulas in floating point: raise tol")
    norm = hinfnorm(CL).value
    return HinfsynResult(K=K, gamma=float(g_feas), gamma_infeasible=float(g_inf), CL=CL,
                         closed_loop_norm=float(norm), X=best.X, Y=best.Y, history=tuple(history))


def _assemble_controller(Ks, D22s, Tu, Ty, name):
    """Controller of the true plant from the central one of the scaled plant with D22 = 0."""
    Ak, Bk, Ck, Dk = Ks
    # put D22 back: u_s = K0 (y_s - D22s u_s) => K = K0 (I + D22s K0)^-1
    M = np.eye(D22s.shape[0]) + D22s @ Dk
    if np.linalg.cond(M) > 1e12:
        raise SynthesisFailure(f"hinfsyn: the controller is ill-posed with D22 of `{name}` (I + D22 Dk singular)")
    Minv = np.linalg.inv(M)
    Ak2 = Ak - Bk @ D22s @ np.linalg.solve(np.eye(Dk.shape[0]) + Dk @ D22s, Ck)
    Bk2 = Bk @ Minv
    Ck2 = np.linalg.solve(np.eye(Dk.shape[0]) + Dk @ D22s, Ck)
    Dk2 = Dk @ Minv
    # map back: u = Tu u_s, y_s = Ty y
    return control.ss(Ak2, Bk2 @ Ty, Tu @ Ck2, Tu @ Dk2 @ Ty)
