"""Flexible body: the TITOP N-port model from clamped-free modal data (arXiv:2409.06017).

``flexible_body(name, D_P, frequencies, damping, L_P, children, ...)``

Arguments
---------
D_P : (6, 6)                  rigid mass matrix at the parent port P, body frame (the full
                              matrix tau_GP^T D_G tau_GP, erratum T1 / E000-1; build it with
                              :func:`satdyn.spatial.rigid_mass_matrix`)
frequencies : (n,)            clamped-free modal frequencies omega_j [rad/s]; an entry may be a
                              Parameter (uncertain/varying omega_j, 2 occurrences)
damping : (n,) or float       modal damping ratios xi_j (constant when omega_j varies)
L_P : (n, 6)                  modal participation factors at P (rows = modes)
children : dict name -> (r_PC (3,), Phi_C (6, n))
                              child ports: vector from P to C [m] and modal shapes at C
parent : str                  name of the parent port (default "P"), direct
frame : str                   frame label (default: the model name)
strict : bool                 residual mass D_P - L_P^T L_P not positive definite -> error
                              (default: warning naming the body and its smallest eigenvalue)

Model (modal force f_j = omega_j^2 eta_j + 2 xi_j omega_j eta_j'):

    eta''  = -f + sum_k Phi_k^T W_k - L_P x''_P
    x''_Ck = -Phi_k f + sum_l Phi_k Phi_l^T W_l + (tau_{Ck P} - Phi_k L_P) x''_P
    W_P    =  L_P^T f + sum_l (tau_{Cl P} - Phi_l L_P)^T W_l - (D_P - L_P^T L_P) x''_P

States [eta; eta'] (2n).  With n = 0 it is the rigid two-port [[0, tau_CP], [tau_CP^T, -D_P]].
"""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import as_batch_of, as_float_array
from ..lfr import LFR, Parameter
from ..spatial import tau
from ._lfrtools import close_raw
from .ports import ACC, WRENCH, make_port_model

__all__ = ["flexible_body", "ResidualMassWarning", "residual_mass"]


class ResidualMassWarning(UserWarning):
    """The residual mass D_P - L_P^T L_P of a flexible body is not positive definite."""


def residual_mass(D_P, L_P) -> np.ndarray:
    """``R_P = D_P - L_P^T L_P`` (eq. 6); ``D_P`` (6, 6), ``L_P`` (n, 6)."""
    D_P = as_batch_of(D_P, (6, 6), "D_P")
    L_P = as_batch_of(L_P, (6,), "L_P")
    if D_P.shape != (6, 6) or L_P.ndim != 2:
        raise ValueError(f"`D_P` must be (6, 6) and `L_P` (n, 6); got {D_P.shape} and {L_P.shape}")
    return D_P - L_P.T @ L_P


def _split_frequencies(frequencies, n):
    omega0, params = np.zeros(n), {}
    for j, w in enumerate(frequencies):
        if isinstance(w, Parameter):
            if w.transform is not None:
                raise ValueError(f"frequency parameter {w.name!r} must have no transform")
            omega0[j], params[j] = w.nominal, w
        else:
            omega0[j] = float(w)
    if np.any(omega0 <= 0) or not np.all(np.isfinite(omega0)):
        raise ValueError(f"`frequencies` must be positive and finite [rad/s]; got {omega0}")
    return omega0, params


def _check_mass_matrix(D_P) -> np.ndarray:
    D_P = as_batch_of(D_P, (6, 6), "D_P")
    if D_P.shape != (6, 6):
        raise ValueError(f"`D_P` must be one (6, 6) rigid mass matrix; got shape {D_P.shape}")
    scale = max(np.abs(D_P).max(), 1e-300)
    if not np.allclose(D_P, D_P.T, rtol=0.0, atol=1e-9 * scale):
        raise ValueError("`D_P` must be symmetric (a rigid mass matrix at P)")
    if np.linalg.eigvalsh(0.5 * (D_P + D_P.T))[0] <= 1e-12 * scale:
        raise ValueError("`D_P` must be positive definite (positive mass and inertia)")
    return D_P


def _frequency_list(frequencies) -> list:
    if isinstance(frequencies, Parameter):
        return [frequencies]
    if isinstance(frequencies, (list, tuple)):
        items = list(frequencies)
    else:
        try:
            array = np.asarray(frequencies, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("`frequencies` must be a sequence of numbers or Parameters [rad/s]") from None
        if array.ndim > 1:
            raise ValueError(f"`frequencies` must be one-dimensional (n,) [rad/s]; got shape {array.shape}")
        items = list(np.atleast_1d(array))
    for j, w in enumerate(items):
        if not isinstance(w, Parameter) and np.ndim(w) != 0:
            raise ValueError(f"`frequencies[{j}]` must be a number or a Parameter [rad/s]; got {w!r}")
    return items


def _check_damping(damping, n) -> np.ndarray:
    xi = as_float_array(damping, "damping")
    if xi.ndim == 0:
        xi = np.full(n, float(xi))
    if xi.shape != (n,):
        raise ValueError(f"`damping` must be one ratio or {n} ratios (one per frequency); got shape {xi.shape}")
    if np.any(xi < 0):
        raise ValueError(f"`damping` must be >= 0; got {xi}")
    return xi


def _check_shape(value, shape, name, meaning) -> np.ndarray:
    """Exact-shape check (no silent reshape: a transposed matrix is an error, not a new matrix)."""
    array = as_float_array(value, name)
    if shape[0] == 0 or (len(shape) == 2 and shape[1] == 0):
        if array.size == 0:
            return np.zeros(shape)
    if array.shape != shape:
        hint = " (transposed?)" if array.ndim == 2 and array.shape == shape[::-1] else ""
        raise ValueError(f"`{name}` must have shape {shape} ({meaning}); got {array.shape}{hint}")
    return array


def flexible_body(name: str, D_P, frequencies, damping, L_P, children: dict | None = None, *,
                  parent: str = "P", frame: str | None = None, strict: bool = False):
    """TITOP model of a flexible body (see the module docstring). Returns a :class:`PortModel`.

    Ports: ``parent`` (direct) and one inverse port per child.
    """
    if not isinstance(name, str) or not name or "." in name:
        raise ValueError(f"`name` must be a non-empty str without '.'; got {name!r}")
    D_P = _check_mass_matrix(D_P)
    freqs = _frequency_list(frequencies)
    n = len(freqs)
    omega0, params = _split_frequencies(freqs, n)
    xi = _check_damping(damping, n)
    L = _check_shape(L_P, (n, 6), "L_P", "participation factors, rows = modes")
    if children is not None and not isinstance(children, dict):
        raise TypeError(f"`children` must be a dict {{port name: (r_PC (3,), Phi_C (6, n))}}; "
                        f"got {type(children).__name__}")
    children = {} if children is None else dict(children)
    child_names = list(children)
    if parent in children:
        raise ValueError(f"`parent` port {parent!r} is also a name in `children`")
    T, Phi = [], []
    for c in child_names:
        entry = children[c]
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise TypeError(f"`children[{c!r}]` must be a pair (r_PC (3,), Phi_C (6, {n}))")
        r_PC, phi = entry
        r_PC = _check_shape(r_PC, (3,), f"children[{c!r}] r_PC", "vector from P to C [m]")
        T.append(tau(-r_PC))
        Phi.append(_check_shape(phi, (6, n), f"children[{c!r}] Phi_C", "modal shapes at C, columns = modes"))

    R = residual_mass(D_P, L)
    lam = np.linalg.eigvalsh(0.5 * (R + R.T))
    if lam[0] <= -1e-9 * max(1.0, lam[-1]) or lam[0] == 0.0:
        msg = (f"flexible body {name!r}: residual mass D_P - L_P^T L_P is not positive definite "
               f"(smallest eigenvalue {lam[0]:.6g}); the modal data are inconsistent with D_P")
        if strict:
            raise ValueError(msg)
        warnings.warn(msg, ResidualMassWarning, stacklevel=2)

    # Open static matrix: columns [raw w (2 per parametric mode); x (2n); W_1..W_k; x''_P],
    # rows [raw z; x' (2n); x''_C1..x''_Ck; W_P].  Integrators are then closed as states.
    kc = len(child_names)
    modes_p = sorted(params)
    nr = 2 * len(modes_p)
    nx = 2 * n
    nu = 6 * kc + 6
    ny = 6 * kc + 6
    M = np.zeros((nr + nx + ny, nr + nx + nu))
    rz, rx, ry = 0, nr, nr + nx               # row offsets
    cw, cx, cu = 0, nr, nr + nx               # column offsets
    # modal force f = Fx x + Fw w (n x ...)
    Fx = np.zeros((n, nx))
    Fw = np.zeros((n, nr))
    for j in range(n):
        if j in params:
            k = modes_p.index(j)
            # z_a = eta_j, w_a = omega eta_j; z_b = 2 xi eta_j' + w_a, w_b = omega z_b = f_j
            M[rz + 2 * k, cx + j] = 1.0
            M[rz + 2 * k + 1, cx + n + j] = 2.0 * xi[j]
            M[rz + 2 * k + 1, cw + 2 * k] = 1.0
            Fw[j, 2 * k + 1] = 1.0
        else:
            Fx[j, j] = omega0[j] ** 2
            Fx[j, n + j] = 2.0 * xi[j] * omega0[j]
    PhiT_W = np.hstack([p.T for p in Phi]) if kc else np.zeros((n, 0))   # (n, 6k)
    # x' rows: eta' = eta' ; eta'' = -f + Phi^T W - L a
    M[rx:rx + n, cx + n:cx + 2 * n] = np.eye(n)
    M[rx + n:rx + 2 * n, cx:cx + nx] = -Fx
    M[rx + n:rx + 2 * n, cw:cw + nr] = -Fw
    M[rx + n:rx + 2 * n, cu:cu + 6 * kc] = PhiT_W
    M[rx + n:rx + 2 * n, cu + 6 * kc:] = -L
    for i, (Ti, Pi) in enumerate(zip(T, Phi)):
        r0 = ry + 6 * i
        M[r0:r0 + 6, cx:cx + nx] = -Pi @ Fx
        M[r0:r0 + 6, cw:cw + nr] = -Pi @ Fw
        M[r0:r0 + 6, cu:cu + 6 * kc] = Pi @ PhiT_W
        M[r0:r0 + 6, cu + 6 * kc:] = Ti - Pi @ L
    r0 = ry + 6 * kc
    M[r0:r0 + 6, cx:cx + nx] = L.T @ Fx
    M[r0:r0 + 6, cw:cw + nr] = L.T @ Fw
    for i, (Ti, Pi) in enumerate(zip(T, Phi)):
        M[r0:r0 + 6, cu + 6 * i:cu + 6 * i + 6] = (Ti - Pi @ L).T
    M[r0:r0 + 6, cu + 6 * kc:] = -R
    # Close the raw parameter channels, then make the x channels states (w = x/s): an LFR
    # whose first nx inputs/outputs are the integrator loop.
    if nr:
        lfr = _states_from_loop(close_raw(M, [params[j] for j in modes_p for _ in range(2)]), nx)
    else:
        lfr = LFR(M[:nx, :nx], M[:nx, nx:], M[nx:, :nx], M[nx:, nx:])
    ports = {parent: ("direct", name if frame is None else frame)}
    ports.update({c: ("inverse", name if frame is None else frame) for c in child_names})
    return make_port_model(
        name, lfr, ports,
        inputs=[(c, WRENCH) for c in child_names] + [(parent, ACC)],
        outputs=[(c, ACC) for c in child_names] + [(parent, WRENCH)])


def _states_from_loop(open_lfr: LFR, nx: int) -> LFR:
    """Turn the first ``nx`` inputs/outputs of a static LFR into states (x' = out, in = x)."""
    from ..lfr import integrator, lft

    return lft(open_lfr, integrator(nx), upper=True) if nx else open_lfr
