"""mu-synthesis by D-K iteration: hinfsyn on the D-scaled plant, mu upper-bound scalings fitted.

Arguments:
    P : ``control.StateSpace`` (continuous time), the open-loop interconnection
            [z_Delta; z_perf; y] = P [w_Delta; w_perf; u],
        with the uncertainty channels first (in the order of ``structure``), then the
        performance channels, then the measurements (last ``nmeas`` outputs) and controls
        (last ``ncon`` inputs), as MATLAB's ``musyn`` with an explicit M-Delta split.
    structure : the uncertainty blocks (satdyn.robust block structure or MATLAB rows),
        complex scalars of size 1 and full complex blocks; the robust-performance block
        (a full complex block from w_perf to z_perf, of the sizes left over) is appended.

Iteration (Doyle 1985, "Structured uncertainty in control system design", doi:10.1109/CDC.1985.268842;
the procedure of Skogestad and Postlethwaite, "Multivariable Feedback Control", 2nd ed. 2005, §8.12):

- K-step: K = hinfsyn(D_l P D_r^-1) with D_l = diag(d_i(s) I_{z_i}, I_perf, I_y),
  D_r = diag(d_i(s) I_{w_i}, I_perf, I_u) (the first step has d_i = 1);
- mu-step: the closed loop lft(P, K) on the frequency grid, the mu upper bound of
  :func:`satdyn.robust.mussv` and its scalings D_i(w) = delta_i(w) I, normalised so the
  performance block's is 1: d_i(w) = sqrt(delta_i(w) / delta_perf(w));
- D-fit: each |d_i(jw)| is fitted by a stable minimum-phase transfer function of the given
  order, by least squares on the log-magnitude over the grid (:func:`fit_magnitude`).
  Parameterisation: d(s) = g prod (s^2 + b_k s + c_k) / (s^2 + e_k s + f_k) (and a first-order
  factor (s + z)/(s + p) for odd orders) with b, c, e, f, z, p = exp(parameters): every
  factor is Hurwitz, so the fit is stable and minimum phase by construction (its inverse
  is stable too) and the log-magnitude is a smooth function of the parameters; solved by
  scipy's trust-region least squares from log-spaced starts.

Each iteration reports the peak mu upper bound on the grid, gamma of the K-step and
``fit_level``: ||D_fit M D_fit^-1||_inf of the closed loop the fit was made on (computed
by :func:`satdyn.robust.hinfnorm`, over all frequencies). The next K-step's gamma, and so
the next mu peak, cannot exceed it (the previous K is a candidate), which is the precise
sense in which D-K iteration is monotone "up to the fit".
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np
import scipy.optimize

from ..robust import hinfnorm, mussv
from ..robust.structure import BlockStructure, full_block

from .hinfsyn import SynthesisFailure, SynthesisInputError, hinfsyn

__all__ = ["DScaleFit", "MusynIteration", "MusynResult", "fit_magnitude", "musyn"]


@dataclass(frozen=True)
class DScaleFit:
    """A fitted scaling d(s) for one uncertainty block.

    Attributes
    ----------
    system : control.StateSpace   (1 x 1, stable, minimum phase)
    frequencies : ndarray (F,)    rad/s
    data : ndarray (F,)           |d(jw)| from the mu bound
    fitted : ndarray (F,)         |system(jw)|
    rms_log_error : float         rms of log(fitted / data) (natural log)
    """

    system: control.StateSpace
    frequencies: np.ndarray
    data: np.ndarray
    fitted: np.ndarray
    rms_log_error: float


@dataclass(frozen=True)
class MusynIteration:
    """One D-K iteration: K-step on the scaled plant, then mu of the true closed loop.

    Attributes
    ----------
    K : control.StateSpace
    gamma : float                 level of the K-step (scaled plant)
    mu_peak : float               max over the grid of the mu upper bound of lft(P, K)
    mu : ndarray (F,)             the mu upper bound per frequency
    fits : tuple of DScaleFit     the D fits made from this iteration's mu scalings
    fit_level : float             ||D_fit lft(P, K) D_fit^-1||_inf (>= mu_peak up to the fit)
    """

    K: control.StateSpace
    gamma: float
    mu_peak: float
    mu: np.ndarray
    fits: tuple
    fit_level: float


@dataclass(frozen=True)
class MusynResult:
    """Result of :func:`musyn`.

    Attributes
    ----------
    K : control.StateSpace          the controller of the iteration with the smallest mu peak
    mu_peak : float                 its peak mu upper bound over ``frequencies``
    CL : control.StateSpace         lft(P, K)
    frequencies : ndarray (F,)      rad/s
    structure : BlockStructure      uncertainty blocks plus the performance block
    iterations : tuple of MusynIteration
    best_iteration : int
    stopped : str
        "" when all iterations ran; otherwise why a later K-step failed (the D-scaled plant
        was infeasible numerically), the result then holds the iterations done before.
    """

    K: control.StateSpace
    mu_peak: float
    CL: control.StateSpace
    frequencies: np.ndarray
    structure: BlockStructure
    iterations: tuple
    best_iteration: int
    stopped: str = ""

    @property
    def mu_history(self):
        return np.array([it.mu_peak for it in self.iterations])

    @property
    def gamma_history(self):
        return np.array([it.gamma for it in self.iterations])

    def to_dict(self) -> dict:
        return {"mu_peak": self.mu_peak, "mu_history": self.mu_history.tolist(),
                "gamma_history": self.gamma_history.tolist(), "best_iteration": self.best_iteration,
                "frequencies": self.frequencies}


# --------------------------------------------------------------------------- D fit

def _log_magnitude(params, omega, order):
    """log|d(jw)| and its Jacobian for the Hurwitz-factor parameterisation (see module doc)."""
    w2 = omega ** 2
    logmag = np.full(omega.shape, params[0])
    jac = np.zeros((omega.size, params.size))
    jac[:, 0] = 1.0
    k = 1
    for _ in range(order // 2):
        for sign in (1.0, -1.0):          # numerator factor, then denominator factor
            b, c = np.exp(params[k]), np.exp(params[k + 1])
            q = (c - w2) ** 2 + b * b * w2
            logmag += sign * 0.5 * np.log(q)
            jac[:, k] = sign * (b * b * w2) / q
            jac[:, k + 1] = sign * (c * (c - w2)) / q
            k += 2
    if order % 2:
        for sign in (1.0, -1.0):
            a = np.exp(params[k])
            q = w2 + a * a
            logmag += sign * 0.5 * np.log(q)
            jac[:, k] = sign * a * a / q
            k += 1
    return logmag, jac


def _system_from_params(params, order):
    num, den = np.array([np.exp(params[0])]), np.array([1.0])
    k = 1
    for _ in range(order // 2):
        num = np.polymul(num, [1.0, np.exp(params[k]), np.exp(params[k + 1])])
        den = np.polymul(den, [1.0, np.exp(params[k + 2]), np.exp(params[k + 3])])
        k += 4
    if order % 2:
        num = np.polymul(num, [1.0, np.exp(params[k])])
        den = np.polymul(den, [1.0, np.exp(params[k + 1])])
    return control.ss(control.tf(num, den))


def _starts(omega, order):
    """Log-spaced starting points: corner frequencies spread over the grid, unit damping."""
    lo, hi = np.log(omega[omega > 0].min()), np.log(omega.max())
    starts = []
    for shift in (-0.5, 0.0, 0.5):
        corners = np.linspace(lo, hi, order + 2)[1:-1] + shift * (hi - lo) / (order + 1)
        p = [0.0]
        c = 0
        for _ in range(order // 2):
            for _ in range(2):   # numerator then denominator: the same corners (d = 1 start)
                wn = np.exp(corners[min(c, order - 1)])
                p += [np.log(1.4 * wn), np.log(wn * wn)]
            c += 2
        if order % 2:
            p += [corners[-1], corners[-1]]
        starts.append(np.array(p))
    return starts


def fit_magnitude(omega, magnitude, order: int, weights=None):
    """Stable minimum-phase d(s) of McMillan degree ``order`` with |d(jw)| ~ magnitude.

    Least squares on log|d(jw)| - log(magnitude) (see the module docstring for the
    parameterisation). ``order=0`` fits a constant (the weighted geometric mean).
    (Weighting the D-K fits by mu(w) / max mu, to favour the peak, changed the Skogestad-
    Postlethwaite example's iterates by < 0.2 %, so musyn fits unweighted.)

    Parameters
    ----------
    omega : ndarray (F,), rad/s, > 0
    magnitude : ndarray (F,), > 0
    order : int >= 0
    weights : ndarray (F,), optional
        Non-negative weights of the log-magnitude residuals (default 1).

    Returns
    -------
    DScaleFit
    """
    omega = np.asarray(omega, dtype=float)
    magnitude = np.asarray(magnitude, dtype=float)
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 0:
        raise SynthesisInputError(f"`order` must be an integer >= 0; got {order!r}")
    if omega.ndim != 1 or magnitude.shape != omega.shape:
        raise SynthesisInputError(
            f"`omega` and `magnitude` must be 1-D arrays of the same length; got {omega.shape}, {magnitude.shape}")
    if not (np.all(np.isfinite(omega)) and np.all(omega > 0)):
        raise SynthesisInputError("`omega` must contain finite positive frequencies (rad/s)")
    if not (np.all(np.isfinite(magnitude)) and np.all(magnitude > 0)):
        raise SynthesisInputError("`magnitude` must contain finite positive values")
    if omega.size < 2 * order + 1:
        raise SynthesisInputError(
            f"`omega` has {omega.size} points: a fit of order {order} has {2 * order + 1} parameters")
    target = np.log(magnitude)
    weights = np.ones_like(omega) if weights is None else np.asarray(weights, dtype=float)
    if order == 0:
        params = np.array([np.sum(weights * target) / np.sum(weights)])
    else:
        best = None
        for start in _starts(omega, order):
            start[0] = target.mean() - _log_magnitude(start, omega, order)[0].mean() + start[0]
            sol = scipy.optimize.least_squares(
                lambda p: weights * (_log_magnitude(p, omega, order)[0] - target), start,
                jac=lambda p: weights[:, None] * _log_magnitude(p, omega, order)[1],
                bounds=(-60.0, 60.0), method="trf", x_scale="jac", max_nfev=400)
            if best is None or sol.cost < best.cost:
                best = sol
        params = best.x
    system = _system_from_params(params, order) if order else control.ss([], [], [], [[np.exp(params[0])]])
    fitted = np.exp(_log_magnitude(params, omega, order)[0])
    rms = float(np.sqrt(np.mean((np.log(fitted) - target) ** 2)))
    return DScaleFit(system, omega, magnitude, fitted, rms)


# --------------------------------------------------------------------------- helpers

def _parse_structure(structure, P, nmeas, ncon):
    if structure is None:
        raise SynthesisInputError("`structure` is required: the uncertainty blocks of P (e.g. [[1, 1], [1, 1]])")
    try:
        unc = BlockStructure.parse(structure)
    except (TypeError, ValueError) as exc:
        raise SynthesisInputError(f"`structure`: {exc}") from None
    for blk in unc.blocks:
        if blk.kind == "real" or (blk.kind == "complex" and blk.z_size > 1):
            raise SynthesisInputError(
                f"`structure`: musyn handles complex scalars of size 1 and full complex blocks; got a "
                f"{blk.kind} block of size {blk.z_size} (real blocks need D-G-K iteration, "
                f"repeated scalars full-matrix D fits, neither implemented)")
    p_perf = P.noutputs - nmeas - unc.n
    m_perf = P.ninputs - ncon - unc.m
    if p_perf < 1 or m_perf < 1:
        raise SynthesisInputError(
            f"`P` ({P.noutputs} outputs, {P.ninputs} inputs) leaves {p_perf} performance outputs and "
            f"{m_perf} performance inputs after the uncertainty channels ({unc.n} z, {unc.m} w) "
            f"and nmeas={nmeas}, ncon={ncon}; at least one of each is needed")
    return BlockStructure(unc.blocks + (full_block(m_perf, p_perf),)), unc


def _diag_scalings(fits, unc, extra, side):
    """diag(d_i I_{z_i or w_i}, I_extra) as a StateSpace (side 'z' or 'w'); inverse for 'w'."""
    parts = []
    for fit, blk in zip(fits, unc.blocks):
        size = blk.z_size if side == "z" else blk.w_size
        d = fit.system if side == "z" else _inverse(fit.system)
        parts += [d] * size
    parts.append(control.ss([], [], [], np.eye(extra)))
    return control.append(*parts)


def _inverse(sys):
    """Inverse of a biproper 1 x 1 StateSpace (D invertible)."""
    A, B, C, D = (np.asarray(M, float) for M in (sys.A, sys.B, sys.C, sys.D))
    Di = np.linalg.inv(D)
    return control.ss(A - B @ Di @ C, B @ Di, -Di @ C, Di)


def _responses(sys, omega):
    return np.moveaxis(np.asarray(sys.frequency_response(omega).complex).reshape(
        sys.noutputs, sys.ninputs, omega.size), -1, 0)


# --------------------------------------------------------------------------- public function

def musyn(P, structure, nmeas: int, ncon: int, *, frequencies=None, order: int = 4,
          iterations: int = 6, tol: float = 1e-3, mu_accuracy: float = 1e-4,
          name: str = "P") -> MusynResult:
    """mu-synthesis of a full-order controller by D-K iteration.

    Parameters
    ----------
    P : control.StateSpace
        Open-loop interconnection [z_Delta; z_perf; y] = P [w_Delta; w_perf; u].
    structure : block structure or MATLAB rows
        The uncertainty blocks (complex scalars of size 1, full complex blocks), in the
        order of P's first channels; the performance block is appended.
    nmeas, ncon : int
        Sizes of y (last outputs) and u (last inputs).
    frequencies : array_like (F,), optional
        Grid of the mu analysis and the D fits, rad/s (default logspace(-3, 3, 61)).
    order : int
        McMillan degree of each D fit (default 4, as Skogestad and Postlethwaite).
    iterations : int
        Number of D-K iterations (K-steps), the first with D = I.
    tol : float
        hinfsyn's gamma tolerance.
    mu_accuracy : float
        Relative accuracy of the mu upper bound's descent.
    name : str
        Name of the plant in messages.

    Returns
    -------
    MusynResult
    """
    if not isinstance(P, control.StateSpace):
        raise TypeError(f"`{name}` must be a control.StateSpace; got {type(P).__name__}")
    for label, value, low in (("order", order, 0), ("iterations", iterations, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise SynthesisInputError(f"`{label}` must be an integer >= {low}; got {value!r}")
    if frequencies is None:
        frequencies = np.logspace(-3, 3, 61)
    omega = np.asarray(frequencies, dtype=float)
    if omega.ndim != 1 or omega.size < 2 * order + 2 or not np.all(np.isfinite(omega)) or np.any(omega <= 0):
        raise SynthesisInputError(
            f"`frequencies` must be a 1-D array of > 2*order+1 = {2 * order + 1} positive frequencies (rad/s)")
    omega = np.sort(omega)
    for label, value in (("nmeas", nmeas), ("ncon", ncon)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise SynthesisInputError(f"`{label}` must be a positive integer; got {value!r}")
    full, unc = _parse_structure(structure, P, nmeas, ncon)
    perf_z = P.noutputs - nmeas - unc.n
    perf_w = P.ninputs - ncon - unc.m
    history = []
    fits = None
    stopped = ""
    for _ in range(iterations):
        if fits is None:
            scaled = P
        else:
            Dl = _diag_scalings(fits, unc, perf_z + nmeas, "z")
            Dr_inv = _diag_scalings(fits, unc, perf_w + ncon, "w")
            scaled = control.series(Dr_inv, P, Dl)
        try:
            syn = hinfsyn(scaled, nmeas, ncon, tol=tol, name=name if fits is None else f"D-scaled {name}")
        except SynthesisFailure as exc:
            if fits is None:
                raise
            stopped = f"iteration {len(history) + 1}: {exc}"   # keep what the earlier steps found
            break
        CL = P.lft(syn.K, nu=ncon, ny=nmeas)
        M = _responses(CL, omega)
        bounds = mussv(M, full, omega, lower=False, accuracy=mu_accuracy)
        mu = np.asarray(bounds.upper, float)
        # d_i(w)^2 = delta_i / delta_perf: the scalings are defined up to a common factor
        Dz = np.real(np.einsum("fii->fi", bounds.scalings.Dz))
        perf = Dz[:, full.z_slices[-1]].mean(axis=1)
        new_fits = []
        for zs in full.z_slices[:-1]:
            mag = np.sqrt(np.maximum(Dz[:, zs].mean(axis=1), 1e-300) / perf)
            new_fits.append(fit_magnitude(omega, mag, order))
        new_fits = tuple(new_fits)
        Dl = _diag_scalings(new_fits, unc, perf_z, "z")
        Dr_inv = _diag_scalings(new_fits, unc, perf_w, "w")
        level = float(hinfnorm(control.series(Dr_inv, CL, Dl)).value)
        history.append(MusynIteration(syn.K, syn.gamma, float(mu.max()), mu, new_fits, level))
        fits = new_fits
    best = int(np.argmin([it.mu_peak for it in history]))
    K = history[best].K
    return MusynResult(K=K, mu_peak=history[best].mu_peak, CL=P.lft(K, nu=ncon, ny=nmeas),
                       frequencies=omega, structure=full, iterations=tuple(history),
                       best_iteration=best, stopped=stopped)
