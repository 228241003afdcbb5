"""Loop margins of a MIMO feedback loop: disk margins and classical gain/phase margins.

The loop is ``u = -K y`` around a plant ``y = P u`` (P: p outputs, m inputs; K: m outputs,
p inputs). At the plant inputs the loop transfer is ``L_i = K P`` and the sensitivity
``S_i = (I + L_i)^-1``; at the outputs ``L_o = P K``, ``S_o = (I + L_o)^-1``.

* Disk margin with skew sigma (Seiler, Packard, Gahinet, "An introduction to disk margins",
  IEEE Control Systems 2020, doi:10.1109/MCS.2020.3005277): the loop tolerates every
  multiplicative perturbation ``f`` in the disk ``{(1 + (1-sigma)/2 d) / (1 - (1+sigma)/2 d), |d| < alpha}``
  with ``alpha = 1 / sup_w mu(S + (sigma-1)/2 I)``. Loop at a time (one channel perturbed,
  the others closed): ``mu`` is ``|S_kk + (sigma-1)/2|``. Multiloop (all channels at once,
  independent complex ``d_k``): ``mu`` over diagonal complex scalars, bounded above by
  :func:`satdyn.robust.mussv` -- the reported multiloop margin is a certified *lower* bound.
  The disk's real points give the disk-based gain margins and its crossing with the unit
  circle the disk-based phase margin (:func:`disk_gain_phase`).
* Classical margins loop at a time: the SISO loop ``l_k = 1/S_kk - 1`` seen by channel k with
  the others closed; gain margin ``1/|l_k|`` at phase crossovers (``Im l = 0, Re l < 0``),
  phase margin ``180 deg + arg l_k`` at gain crossovers (``|l_k| = 1``), each crossing refined
  by root finding (the smallest margin is reported, as ``allmargin``'s summary).

All on a frequency grid (default: modes of the open and closed loops, dense near each);
nominal and over random samples of an uncertain plant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

__all__ = ["MarginSet", "LoopMarginsResult", "loop_margins", "disk_gain_phase", "margins_of_loop"]


@dataclass(frozen=True)
class MarginSet:
    """Margins of one loop (one plant model).

    Attributes
    ----------
    stable : bool                              closed loop stable
    disk_input, disk_output : (m,), (p,)       loop-at-a-time disk margins alpha
    multiloop_disk_input, multiloop_disk_output : float   certified lower bounds of alpha
    gain_margin_input, gain_margin_output : (m,), (p,)    classical, factor (inf: no crossover);
                                               the one nearest to 1 (a value < 1 is a
                                               gain-reduction margin)
    phase_margin_input, phase_margin_output : (m,), (p,)  classical, deg (inf: no gain crossover)
    gain_crossover_input : (m,) rad/s          frequency of the reported phase margin (nan if none)
    """

    stable: bool
    disk_input: np.ndarray
    disk_output: np.ndarray
    multiloop_disk_input: float
    multiloop_disk_output: float
    gain_margin_input: np.ndarray
    gain_margin_output: np.ndarray
    phase_margin_input: np.ndarray
    phase_margin_output: np.ndarray
    gain_crossover_input: np.ndarray

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class LoopMarginsResult:
    """Margins of the nominal loop and of sampled uncertain loops.

    Attributes
    ----------
    nominal : MarginSet
    samples : tuple of MarginSet              one per sample (empty for a certain plant)
    sample_values : dict name -> (N,)
    skew : float
    frequencies : (K,) rad/s                  the grid of the disk margins
    worst : dict                              smallest margin over nominal and samples, per field
    """

    nominal: MarginSet
    samples: tuple = field(repr=False)
    sample_values: dict = field(repr=False)
    skew: float
    frequencies: np.ndarray = field(repr=False)
    worst: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"nominal": self.nominal, "worst": self.worst, "skew": self.skew,
                "samples_stable": [s.stable for s in self.samples],
                "samples_multiloop_disk_input": [s.multiloop_disk_input for s in self.samples],
                "sample_values": self.sample_values}


def disk_gain_phase(alpha, skew: float = 0.0):
    """Disk-based margins of a disk margin ``alpha`` with skew ``sigma``.

    Returns ``(gain_low, gain_high, phase_deg)``: the real points of the disk of
    multiplicative perturbations and its phase margin (``inf`` where the disk is unbounded).
    """
    a = np.asarray(alpha, dtype=float)
    s = float(skew)
    lo = (1 - a * (1 - s) / 2) / (1 + a * (1 + s) / 2)
    den = 1 - a * (1 + s) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        hi = np.where(den > 0, (1 + a * (1 - s) / 2) / np.where(den > 0, den, 1), np.inf)
        c, r = (lo + hi) / 2, (hi - lo) / 2
        cosp = np.clip((1 + c * c - r * r) / (2 * c), -1, 1)
        phase = np.where(np.isfinite(hi), np.degrees(np.arccos(cosp)), 90.0 + 0 * a)
    lo = np.maximum(lo, 0.0)
    return lo, hi, phase


def _freqresp(A, B, C, D, w):
    """(N, K, p, m) responses of stacked systems A (N, n, n) at w (K,)."""
    N, n = A.shape[0], A.shape[1]
    if n == 0:
        return np.broadcast_to(D[:, None], (N, w.size, *D.shape[1:])).astype(complex)
    s = 1j * w[None, :, None, None]
    M = s * np.eye(n) - A[:, None]
    rhs = np.broadcast_to(B[:, None], (N, w.size, *B.shape[1:])).astype(complex)
    try:
        X = np.linalg.solve(M, rhs)
    except np.linalg.LinAlgError:
        # a grid point on an imaginary-axis pole: evaluate it 1e-9 (relative) beside the pole
        X = np.linalg.solve(M + (1e-9 * 1j * w[None, :, None, None]) * np.eye(n), rhs)
    return C[:, None] @ X + D[:, None]


def _abcd(sys):
    A = np.asarray(sys.A, float)
    n = A.shape[0] if A.ndim == 2 else 0
    B, C, D = (np.asarray(getattr(sys, k), float) for k in "BCD")
    D = np.atleast_2d(D)
    return A.reshape(n, n), B.reshape(n, D.shape[1]), C.reshape(D.shape[0], n), D


def _closed_loop_stable(Ap, Bp, Cp, Dp, Ak, Bk, Ck, Dk):
    p = Cp.shape[0]
    E = np.linalg.inv(np.eye(p) + Dp @ Dk)
    Y = E @ np.hstack([Cp, -Dp @ Ck])
    U = np.hstack([np.zeros((Ck.shape[0], Ap.shape[0])), -Ck]) - Dk @ Y
    A = np.block([[Ap, np.zeros((Ap.shape[0], Ak.shape[0]))], [np.zeros((Ak.shape[0], Ap.shape[0])), Ak]])
    A = A + np.vstack([Bp @ U, Bk @ Y])
    ev = np.linalg.eigvals(A) if A.size else np.zeros(0)
    return bool(np.all(ev.real < -1e-9 * np.maximum(1.0, np.abs(ev)))), A


def _classical(loop_fn, w, l_grid):
    """Smallest classical gain / phase margins of a SISO loop l(jw) given on a grid."""
    gm, pm, wc = np.inf, np.inf, np.nan
    im, mag = l_grid.imag, np.abs(l_grid)
    for k in np.flatnonzero(np.sign(im[:-1]) * np.sign(im[1:]) < 0):
        wk = brentq(lambda x: loop_fn(x).imag, w[k], w[k + 1], xtol=1e-12 * w[k + 1])
        lk = loop_fn(wk)
        if lk.real < 0:
            g = 1.0 / abs(lk)
            if abs(np.log(g)) < abs(np.log(gm)):
                gm = g
    for k in np.flatnonzero(np.sign(mag[:-1] - 1) * np.sign(mag[1:] - 1) < 0):
        wk = brentq(lambda x: abs(loop_fn(x)) - 1.0, w[k], w[k + 1], xtol=1e-12 * w[k + 1])
        ph = np.degrees(np.angle(loop_fn(wk)))
        margin = (ph + 180.0 + 180.0) % 360.0 - 180.0
        if abs(margin) < abs(pm):
            pm, wc = margin, wk
    return gm, pm, wc


def _siso_loop(Pm, Km, side, k):
    """l_k(jw) with the other loops closed, from the plant and controller at one frequency."""
    L = Km @ Pm if side == "input" else Pm @ Km
    S = np.linalg.inv(np.eye(L.shape[0]) + L)
    return 1.0 / S[k, k] - 1.0


def margins_of_loop(P, Kss, w, skew=0.0, *, mu=True) -> MarginSet:
    """Margins of one loop: ``P`` and ``Kss`` control.StateSpace-like (A, B, C, D); ``w`` (K,) rad/s."""
    from .mu_bounds import mussv
    from .structure import complex_block

    Ap, Bp, Cp, Dp = _abcd(P)
    Ak, Bk, Ck, Dk = _abcd(Kss)
    stable, _ = _closed_loop_stable(Ap, Bp, Cp, Dp, Ak, Bk, Ck, Dk)
    Pw = _freqresp(Ap[None], Bp[None], Cp[None], Dp[None], w)[0]
    Kw = _freqresp(Ak[None], Bk[None], Ck[None], Dk[None], w)[0]
    c = (skew - 1.0) / 2.0
    out = {}
    for side, L in (("input", Kw @ Pw), ("output", Pw @ Kw)):
        n = L.shape[-1]
        S = np.linalg.inv(np.eye(n) + L)
        Sc = S + c * np.eye(n)
        diag = np.abs(np.diagonal(Sc, axis1=-2, axis2=-1))          # (K, n)
        out[f"disk_{side}"] = 1.0 / diag.max(axis=0)
        if mu and n > 1:
            res = mussv(Sc, [complex_block(1)] * n, lower=False, refine=False)
            out[f"multiloop_{side}"] = float(1.0 / np.max(res.upper))
        else:
            out[f"multiloop_{side}"] = float(out[f"disk_{side}"].min())
        gms, pms, wcs = [], [], []
        for k in range(n):
            l_grid = 1.0 / S[:, k, k] - 1.0

            def loop_fn(x, k=k, side=side):
                Pm = _freqresp(Ap[None], Bp[None], Cp[None], Dp[None], np.array([x]))[0, 0]
                Km = _freqresp(Ak[None], Bk[None], Ck[None], Dk[None], np.array([x]))[0, 0]
                return _siso_loop(Pm, Km, side, k)

            gm, pm, wc = _classical(loop_fn, w, l_grid)
            gms.append(gm)
            pms.append(pm)
            wcs.append(wc)
        out[f"gm_{side}"], out[f"pm_{side}"], out[f"wc_{side}"] = np.array(gms), np.array(pms), np.array(wcs)
    return MarginSet(stable, out["disk_input"], out["disk_output"], out["multiloop_input"], out["multiloop_output"],
                     out["gm_input"], out["gm_output"], out["pm_input"], out["pm_output"], out["wc_input"])


def _as_ss(obj, name):
    import control

    if isinstance(obj, control.TransferFunction):
        obj = control.ss(obj)
    if not all(hasattr(obj, k) for k in "ABCD"):
        raise TypeError(f"`{name}` must be a control.StateSpace / TransferFunction or a satdyn LFR; "
                        f"got {type(obj).__name__}")
    if getattr(obj, "dt", 0) not in (0, None):
        raise ValueError(f"`{name}` must be continuous-time")
    return obj


def loop_margins(plant, controller, *, frequencies=None, n_samples: int = 0, seed: int = 0, at=None,
                 skew: float = 0.0, multiloop: bool = True) -> LoopMarginsResult:
    """Disk and classical margins of ``u = -K y`` around ``plant`` (module docstring).

    Parameters
    ----------
    plant : satdyn LFR (uncertain/varying) or control.StateSpace, p x m
    controller : control.StateSpace or TransferFunction, m x p (continuous)
    frequencies : (K,) rad/s, optional
    n_samples, seed, at : sampling of the uncertain parameters (varying ones at ``at`` or nominal)
    skew : float in [-1, 1]      0: balanced disk (gain increase and decrease alike)
    multiloop : bool             compute the multiloop (simultaneous) disk margins (mu)
    """
    K = _as_ss(controller, "controller")
    if not -1.0 <= float(skew) <= 1.0:
        raise ValueError(f"`skew` must be in [-1, 1]; got {skew!r}")
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
        raise ValueError(f"`n_samples` must be an integer >= 0; got {n_samples!r}")
    values = {}
    if hasattr(plant, "blocks") and hasattr(plant, "evaluate_batch"):      # a satdyn LFR (contract)
        from .responses import _draw, _select

        plant = _select(plant, None, None, at)
        nominal = plant.evaluate({})
        if n_samples and plant.blocks:
            values = _draw(plant, int(n_samples), seed)
            batch = plant.evaluate_batch(values)
            sampled = [batch[i] for i in range(len(batch)) if batch.valid[i]]
            values = {k: v[batch.valid] for k, v in values.items()}
        else:
            sampled = []
    else:
        nominal, sampled = _as_ss(plant, "plant"), []
    p, m = np.shape(nominal.D)
    if np.shape(K.D) != (m, p):
        raise ValueError(f"`controller` must be {m} x {p} (plant inputs x plant outputs); got {np.shape(K.D)}")
    if frequencies is None:
        from .frequency_grid import modal_frequency_grid

        _, Acl = _closed_loop_stable(*_abcd(nominal), *_abcd(K))
        w = modal_frequency_grid(Acl, points=400)
        w = w[w > 0]
    else:
        w = np.asarray(frequencies, float)
        if w.ndim != 1 or w.size < 2 or np.any(w <= 0) or np.any(np.diff(w) <= 0):
            raise ValueError("`frequencies` must be increasing positive values [rad/s] (at least 2)")
    nom = margins_of_loop(nominal, K, w, skew, mu=multiloop)
    samples = tuple(margins_of_loop(s, K, w, skew, mu=multiloop) for s in sampled)
    worst = {}
    for key in ("disk_input", "disk_output", "multiloop_disk_input", "multiloop_disk_output",
                "phase_margin_input", "phase_margin_output"):
        vals = [np.min(np.abs(getattr(s, key))) for s in (nom, *samples)]
        worst[key] = float(np.min(vals))
    worst["gain_margin_input"] = float(min((np.min(np.abs(np.log(s.gain_margin_input))) for s in (nom, *samples))))
    worst["gain_margin_input"] = float(np.exp(worst["gain_margin_input"]))
    worst["all_stable"] = bool(nom.stable and all(s.stable for s in samples))
    return LoopMarginsResult(nom, samples, values, float(skew), w, worst)
