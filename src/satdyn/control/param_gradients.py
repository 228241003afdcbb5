"""Analytic gradients of a goal's peak value with respect to the LFR parameters.

The worst-case search of the robust loop maximises a goal's value over the normalised
parameter box ``delta`` in [-1, 1]^k. The plant (and the generalized plant of each goal) is
an upper LFT ``F(delta) = M22 + M21 Delta (I - M11 Delta)^-1 M12`` of the system matrix
``[[A, B], [C, D]]`` in ``Delta = diag(delta_i I)``; its derivative is

    dF / d delta_i = L[:, ch_i] R[ch_i, :],   L = M21 (I - Delta M11)^-1,   R = (I - M11 Delta)^-1 M12

(``ch_i`` the channels of parameter ``i``). For a ``vreal`` scheduling the controller
``S(tau) = M0 + sum_j tau_j M_j`` with ``tau_j = (v_j - c_j) / h_j`` and ``v_j`` the LFR
variable (the Moebius image of ``delta_j``, ``v = (a0 + b0 delta) / (1 + c0 delta)``), the
controller contributes ``dK = M_j (b0 - a0 c0) / ((1 + c0 delta)^2 h_j)``.

The closed-loop system matrix is ``Scl = S0 + Bu K Cy`` (``S0 = [[A, B1], [C1, D11]]``,
``Bu = [B2; D12]``, ``Cy = [C2, D21]``); at a peak ``sigma = sigma_max(T(jw))`` with
singular vectors (u, v) and ``p = R Bcl v``, ``q = u^H Ccl R`` (``R = (jw - Acl)^-1``):

    d sigma / d delta_i = Re( [q, u^H] dScl_i [p; v] )

at the fixed peak frequency (envelope theorem: the peak is a local maximum in ``w``).
"""

from __future__ import annotations

import numpy as np

from .blocks import ScheduledBlock
from .evaluation import _transfer, evaluate

__all__ = ["lfr_derivatives", "peak_parameter_gradient"]


def lfr_derivatives(L, values: dict, names):
    """System matrix ``[[A, B], [C, D]]`` of an LFR at ``values`` and its derivatives with
    respect to the normalised ``delta`` of each parameter in ``names``.

    Parameters
    ----------
    L : satdyn.lfr.LFR
    values : dict {name: float}
        Physical values (missing parameters: nominal).
    names : sequence of str

    Returns
    -------
    S : ndarray (nx + p, nx + m)
    dS : dict {name: ndarray (nx + p, nx + m)} (zero for a parameter the LFR does not have)
    """
    from ..lfr.evaluate import _delta_reduced

    L = _delta_reduced(L) if L.ndelta else L
    M = np.asarray(L._M, float)
    nx, nd, p, m = L.nstates, L.ndelta, L.noutputs, L.ninputs
    q = nx + nd
    rows, cols = np.r_[0:nx, q:q + p], np.r_[0:nx, q:q + m]
    S0 = M[np.ix_(rows, cols)]
    dS = {n: np.zeros_like(S0) for n in names}
    if nd == 0:
        return S0, dS
    d = np.zeros(nd)
    channels = {}
    row = 0
    for b in L.blocks:
        par = b.parameter
        d[row:row + b.size] = par.normalize(values.get(b.name, par.nominal), warn=False)
        channels.setdefault(b.name, []).extend(range(row, row + b.size))
        row += b.size
    M11 = M[nx:q, nx:q]
    Lm = np.linalg.solve((np.eye(nd) - d[:, None] * M11).T, M[rows][:, nx:q].T).T  # M21 (I - Delta M11)^-1
    Rm = np.linalg.solve(np.eye(nd) - M11 * d[None, :], M[nx:q][:, cols])  # (I - M11 Delta)^-1 M12
    S = S0 + Lm @ (d[:, None] * M[nx:q][:, cols])
    for n in names:
        ch = channels.get(n)
        if ch:
            dS[n] = Lm[:, ch] @ Rm[ch, :]
    return S, dS


def _controller_derivative(ctrl, x, box, delta):
    """Static gain K (nk + nu, nk + ny) at ``delta`` and dK / d delta_i per box parameter."""
    values = {p.name: np.atleast_1d(p.denormalize(delta[i])) for i, p in enumerate(box)}
    K = ctrl.gain(x, ctrl.taus(values, 1), 1)[0]
    dK = {p.name: np.zeros_like(K) for p in box}
    pos = {p.name: i for i, p in enumerate(box)}
    for b, r, c, sl in zip(ctrl.blocks, ctrl._rows, ctrl._cols, ctrl._slices):
        if not isinstance(b, ScheduledBlock):
            continue
        _, xs = b._split(x[sl])
        for j, (par, h) in enumerate(zip(b.scheduling, b.half)):
            if par.name not in pos:
                continue
            dl = float(delta[pos[par.name]])
            a0, b0, c0 = par.moebius
            dv = (b0 - a0 * c0) / (1.0 + c0 * dl) ** 2
            dKb = np.tensordot(xs[j], b.base.E, axes=1)
            dK[par.name][np.ix_(r, c)] += dKb * dv / h
    return K, dK


def peak_parameter_gradient(problem, x, box, delta, goal: int):
    """Value of ``goal`` at the normalised point ``delta`` and its gradient w.r.t. ``delta``.

    Parameters
    ----------
    problem : TuningProblem
        Single plant model (the robust loop's problems).
    x : ndarray (P,)
        Controller parameters.
    box : list of satdyn.lfr.Parameter
        The box coordinates (``delta[i]`` is the normalised value of ``box[i]``).
    delta : ndarray (k,)
    goal : int
        An H-infinity goal.

    Returns
    -------
    value : float
        ``+inf`` if the loop is unstable at ``delta`` (gradient zero then).
    grad : ndarray (k,)
    omega : float
        Peak frequency [rad/s].
    """
    from .problem import _augment

    delta = np.clip(np.asarray(delta, float), -1.0, 1.0)
    if problem.goals[goal].kind != "hinf":
        raise ValueError(f"`goal` must index an H-infinity goal; goal {goal} is {problem.goals[goal].kind!r}")
    k = len(box)
    values = {p.name: float(p.denormalize(delta[i])) for i, p in enumerate(box)}
    sub = problem.with_scenarios({n: np.array([v]) for n, v in values.items()})
    ev = evaluate(sub, x)
    val, omega = float(ev.values[goal, 0]), float(ev.peaks[goal, 0])
    if not np.isfinite(val):
        return val, np.zeros(k), omega
    ctrl = problem.controller
    K, dK = _controller_derivative(ctrl, x, box, delta)
    Gl = problem.goal_lfrs[goal][0]
    S, dS = lfr_derivatives(Gl, values, [p.name for p in box])
    n = Gl.nstates
    nu, ny = len(ctrl.u), len(ctrl.y)
    nz, nw = S.shape[0] - n - ny, S.shape[1] - n - nu
    nk = ctrl.nk

    def aug(Smat, derivative):
        G = _augment(Smat[None, :n, :n], Smat[None, :n, n:], Smat[None, n:, :n], Smat[None, n:, n:], nz, nw, nk,
                     problem.goals[goal].name)
        if derivative:  # the controller-state identities of the augmentation do not vary
            G.B2[:, n:, :nk] = 0.0
            G.C2[:, :nk, n:] = 0.0
        return G

    G = aug(S, False)
    cl = G.close(K[None])
    T, _, _ = _transfer(*cl, G, np.array([0]), np.array([omega]))
    U, sv, Vh = np.linalg.svd(T[0])
    u, v = U[:, 0], np.conj(Vh[0])
    Acl, Bcl, Ccl = cl[0][0], cl[1][0], cl[2][0]
    N = Acl.shape[0]
    if np.isfinite(omega):
        Rm = 1j * omega * np.eye(N) - Acl
        pv = np.linalg.solve(Rm, Bcl @ v)
        qv = np.linalg.solve(Rm.T, Ccl.T @ np.conj(u))  # (u^H Ccl R)^T
    else:
        pv = np.zeros(N, complex)
        qv = np.zeros(N, complex)
    left = np.concatenate([qv, np.conj(u)])  # [q, u^H] as a vector
    right = np.concatenate([pv, v])
    Bu = np.vstack([G.B2[0], G.D12[0]])
    Cy = np.hstack([G.C2[0], G.D21[0]])
    grad = np.zeros(k)
    for i, p in enumerate(box):
        dG = aug(dS[p.name], True)
        dS0 = np.block([[dG.A[0], dG.B1[0]], [dG.C1[0], dG.D11[0]]])
        dBu = np.vstack([dG.B2[0], dG.D12[0]])
        dCy = np.hstack([dG.C2[0], dG.D21[0]])
        dScl = dS0 + dBu @ K @ Cy + Bu @ dK[p.name] @ Cy + Bu @ K @ dCy
        grad[i] = float(np.real(left @ dScl @ right))
    return val, grad, omega
