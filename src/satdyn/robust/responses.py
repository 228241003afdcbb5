"""Frequency and time responses of an uncertain LFR: samples, nominal, worst case, envelopes.

The counterparts of MATLAB's ``bode`` / ``sigma`` / ``step`` on a ``uss`` and of ``wcgain``
per frequency:

* :func:`uncertain_frequency_response` -- N random samples, the nominal and, per frequency,
  the worst-case gain bounds from :func:`satdyn.robust.worst_case_gain` (``gain_upper``
  certified on the grid by skew-mu; the largest sampled gain is a lower bound);
* :func:`uncertain_time_response` -- step / impulse / initial-condition / arbitrary-input
  responses of the sampled models, computed in one batch by exact discretisation
  (piecewise-linear input, as python-control's ``forced_response``), with envelopes and the
  worst sample.

Arguments shared by both
------------------------
lfr : satdyn LFR (continuous time, at least one state for time responses)
inputs, outputs : None, str or list of str
    Channel selection by signal or group names (default: all).
n_samples : int
    Random points drawn uniformly in the normalised box of the *uncertain* parameters; the
    nominal is always computed as well.
at : dict, optional
    Values of the varying (scheduling) parameters, physical units (default: their nominal
    values). They are substituted first, as MATLAB's ``usubs`` on a gridded model: the
    samples, the nominal and the worst case all refer to this frozen schedule.
seed : int
    Seed of the sampling (results are reproducible).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

__all__ = ["UncertainFrequencyResponse", "UncertainTimeResponse", "uncertain_frequency_response",
           "uncertain_time_response"]


@dataclass(frozen=True)
class UncertainFrequencyResponse:
    """Frequency responses of an uncertain LFR.

    Attributes
    ----------
    frequencies : (K,) rad/s
    nominal : (K, p, m) complex
    samples : (N, K, p, m) complex        (NaN rows for ill-posed samples)
    sample_values : dict name -> (N,)     physical parameter values of the samples
    nominal_sv, samples_sv : (K, r), (N, K, r)   singular values, r = min(p, m), descending
    worst_case_upper : (K,) or None       certified upper bound of max_Delta sigma_max(G(j w))
                                          over the uncertain parameters' box
    worst_case_lower : (K,)               max over the nominal and the samples of sigma_max
    input_names, output_names : tuple of str
    input_unit, output_unit : str         units of the selected channels (for the figures)
    """

    frequencies: np.ndarray
    nominal: np.ndarray = field(repr=False)
    samples: np.ndarray = field(repr=False)
    sample_values: dict = field(repr=False)
    nominal_sv: np.ndarray = field(repr=False)
    samples_sv: np.ndarray = field(repr=False)
    worst_case_upper: np.ndarray | None = field(repr=False)
    worst_case_lower: np.ndarray = field(repr=False)
    input_names: tuple = ()
    output_names: tuple = ()
    input_unit: str = ""
    output_unit: str = ""

    def to_dict(self) -> dict:
        return {"frequencies": self.frequencies, "nominal_sv": self.nominal_sv,
                "samples_sv_max": self.samples_sv[..., 0], "worst_case_upper": self.worst_case_upper,
                "worst_case_lower": self.worst_case_lower, "input_names": list(self.input_names),
                "output_names": list(self.output_names), "sample_values": self.sample_values}


@dataclass(frozen=True)
class UncertainTimeResponse:
    """Time responses of sampled models.

    Attributes
    ----------
    kind : "step", "impulse", "initial" or "input"
    time : (T,) s
    nominal : (T, p)
    samples : (N, T, p)
    sample_values : dict name -> (N,)
    envelope_low, envelope_high : (T, p)   pointwise min / max over nominal and samples
    worst_index : int                      sample with the largest peak |y| (over time and outputs)
    worst_values : dict                    its parameter values
    worst_peak, nominal_peak : float
    output_names : tuple; output_unit : str
    """

    kind: str
    time: np.ndarray
    nominal: np.ndarray = field(repr=False)
    samples: np.ndarray = field(repr=False)
    sample_values: dict = field(repr=False)
    envelope_low: np.ndarray = field(repr=False)
    envelope_high: np.ndarray = field(repr=False)
    worst_index: int = -1
    worst_values: dict = field(default_factory=dict)
    worst_peak: float = float("nan")
    nominal_peak: float = float("nan")
    output_names: tuple = ()
    output_unit: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "time": self.time, "nominal": self.nominal,
                "envelope_low": self.envelope_low, "envelope_high": self.envelope_high,
                "worst_index": self.worst_index, "worst_values": self.worst_values,
                "worst_peak": self.worst_peak, "nominal_peak": self.nominal_peak,
                "output_names": list(self.output_names)}


def _select(lfr, inputs, outputs, at=None):
    if not (hasattr(lfr, "blocks") and hasattr(lfr, "evaluate_batch")):
        raise TypeError(f"`lfr` must be a satdyn LFR; got {type(lfr).__name__}")
    at = dict(at or {})
    varying = {b.name: b.parameter.nominal for b in lfr.blocks if b.parameter.kind == "varying"}
    unknown = sorted(set(at) - set(varying))
    if unknown:
        raise ValueError(f"`at` must give values of varying parameters {sorted(varying)}; got {unknown}")
    varying.update({k: float(v) for k, v in at.items()})
    if varying:
        lfr = lfr.subs(varying)
    rows = slice(None) if outputs is None else ([outputs] if isinstance(outputs, str) else list(outputs))
    cols = slice(None) if inputs is None else ([inputs] if isinstance(inputs, str) else list(inputs))
    try:
        return lfr[rows, cols]
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"`inputs`/`outputs` must name signals or groups of the LFR: {exc}") from None


def _check_int(value, name, minimum):
    if not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value!r}")
    return int(value)


def _draw(lfr, n, seed):
    rng = np.random.default_rng(seed)
    values = {}
    for b in lfr.blocks:
        if b.name not in values:
            values[b.name] = b.parameter.denormalize(rng.uniform(-1.0, 1.0, size=n))
    return values


def uncertain_frequency_response(lfr, frequencies, *, inputs=None, outputs=None, n_samples: int = 20,
                                 seed: int = 0, at=None, worst_case: bool = True, input_unit: str = "",
                                 output_unit: str = "") -> UncertainFrequencyResponse:
    """Samples, nominal and per-frequency worst-case gain of an LFR (module docstring).

    Parameters
    ----------
    frequencies : (K,) rad/s, positive
    worst_case : bool
        Compute ``worst_case_upper`` with :func:`satdyn.robust.worst_case_gain` on exactly these
        frequencies (``inf`` when the box contains a destabilising point).
    """
    w = np.asarray(frequencies, dtype=float)
    if w.ndim != 1 or w.size == 0 or np.any(~np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("`frequencies` must be a non-empty 1-D array of positive finite values [rad/s]")
    n = _check_int(n_samples, "n_samples", 0)
    sub = _select(lfr, inputs, outputs, at)
    nominal = sub.freqresp(w)
    values = _draw(sub, n, seed) if n else {}
    samples = sub.freqresp(w, values) if n and values else np.broadcast_to(nominal, (n, *nominal.shape)).copy()
    nom_sv = np.linalg.svd(nominal, compute_uv=False)
    smp_sv = np.linalg.svd(np.nan_to_num(samples, nan=0.0), compute_uv=False) if n else np.zeros((0, *nom_sv.shape))
    if n:
        bad = ~np.all(np.isfinite(samples.reshape(n, -1)), axis=1)
        smp_sv[bad] = np.nan
    lower = np.nanmax(np.concatenate([nom_sv[None, :, 0], smp_sv[..., 0]]), axis=0)
    upper = None
    if worst_case and any(b.parameter.kind == "uncertain" for b in sub.blocks):
        upper = _worst_case_curve(sub, w)
    elif worst_case:
        upper = nom_sv[:, 0].copy() if not sub.blocks else None
    return UncertainFrequencyResponse(w, nominal, samples, values, nom_sv, smp_sv, upper, lower,
                                      tuple(sub.input_names), tuple(sub.output_names), input_unit, output_unit)


def _worst_case_curve(sub, w):
    from .wcgain import worst_case_gain

    res = worst_case_gain(sub, frequencies=w)
    if res.destabilizing:
        return np.full(w.size, np.inf)
    pick = np.searchsorted(res.frequencies, w)
    pick = np.clip(pick, 0, res.frequencies.size - 1)
    if not np.allclose(res.frequencies[pick], w, rtol=1e-12):
        raise RuntimeError("worst_case_gain did not evaluate the requested frequencies")
    return np.asarray(res.gain_upper, float)[pick]


# ------------------------------------------------------------------------------ time
def _check_time(t):
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or t[0] != 0 or np.any(~np.isfinite(t)):
        raise ValueError("`time` must be a 1-D array of at least 2 finite values starting at 0 [s]")
    dt = np.diff(t)
    if np.any(dt <= 0) or not np.allclose(dt, dt[0], rtol=1e-9, atol=0):
        raise ValueError("`time` must be uniformly spaced and increasing [s]")
    return t, float(dt[0])


def _discretise(A, B, dt):
    """Exact discretisation for a piecewise-linear input (first-order hold), batched:
    x_{k+1} = Ad x_k + B0 u_k + B1 (u_{k+1} - u_k)  from expm of [[A, B, 0], [0, 0, I], [0, 0, 0]] dt."""
    N, nx, m = B.shape
    Z = np.zeros((N, nx + 2 * m, nx + 2 * m))
    Z[:, :nx, :nx] = A * dt
    Z[:, :nx, nx:nx + m] = B * dt
    Z[:, nx:nx + m, nx + m:] = np.eye(m)
    E = sla.expm(Z)
    return E[:, :nx, :nx], E[:, :nx, nx:nx + m], E[:, :nx, nx + m:]


def _simulate(A, B, C, D, u, x0, dt):
    """Batched linear simulation: A (N, n, n) ..., u (T, m), x0 (N, n) -> y (N, T, p)."""
    Ad, B0, B1 = _discretise(A, B, dt)
    T = u.shape[0]
    N, p = C.shape[0], C.shape[1]
    y = np.empty((N, T, p))
    x = x0.copy()
    for k in range(T):
        y[:, k] = np.einsum("npi,ni->np", C, x) + np.einsum("npm,m->np", D, u[k])
        if k + 1 < T:
            x = (np.einsum("nij,nj->ni", Ad, x) + np.einsum("nim,m->ni", B0, u[k])
                 + np.einsum("nim,m->ni", B1, u[k + 1] - u[k]))
    return y


def uncertain_time_response(lfr, time, *, kind: str = "step", inputs=None, outputs=None, u=None, x0=None,
                            input_index: int = 0, n_samples: int = 20, seed: int = 0, at=None,
                            output_unit: str = "") -> UncertainTimeResponse:
    """Time responses of the nominal and N sampled models (module docstring).

    Parameters
    ----------
    time : (T,) s, uniform, starting at 0
    kind : "step" (unit step on input ``input_index``), "impulse" (unit impulse there; the
        feedthrough's Dirac part is not shown, as python-control), "initial" (``x0``, no
        input) or "input" (``u``: (T, m) or (T,) for one input, piecewise linear)
    x0 : (n,) initial state (kind "initial"; default zero otherwise)
    """
    kinds = ("step", "impulse", "initial", "input")
    if kind not in kinds:
        raise ValueError(f"`kind` must be one of {kinds}; got {kind!r}")
    t, dt = _check_time(time)
    n = _check_int(n_samples, "n_samples", 0)
    sub = _select(lfr, inputs, outputs, at)
    nx, m = sub.nstates, sub.shape[1]
    if nx == 0:
        raise ValueError("`lfr` has no states: its time response is its static gain")
    if kind in ("step", "impulse") and not 0 <= int(input_index) < m:
        raise ValueError(f"`input_index` must be in 0..{m - 1}; got {input_index!r}")
    if kind == "input":
        if u is None:
            raise ValueError("`u` is required for kind='input': (T, m) [input units]")
        u = np.asarray(u, float)
        u = u[:, None] if u.ndim == 1 else u
        if u.shape != (t.size, m):
            raise ValueError(f"`u` must have shape ({t.size}, {m}); got {np.shape(u)}")
    else:
        u = np.zeros((t.size, m))
        if kind == "step":
            u[:, input_index] = 1.0
    if kind == "initial":
        if x0 is None or np.shape(x0) != (nx,):
            raise ValueError(f"`x0` must have shape ({nx},) for kind='initial'; "
                             f"got {np.shape(x0) if x0 is not None else None}")
        x0 = np.asarray(x0, float)
    elif x0 is not None:
        raise ValueError("`x0` is only used with kind='initial'")
    values = _draw(sub, n, seed) if n else {}
    nominal = sub.evaluate_batch({b.name: np.array([b.parameter.nominal]) for b in sub.blocks}) if sub.blocks \
        else None
    A, B, C, D = _stack(sub, nominal, values, n)
    if kind == "impulse":
        start = B[:, :, input_index].copy()      # x(0+) = B e_i; no input afterwards
        D = np.zeros_like(D)
    else:
        start = np.broadcast_to(np.zeros(nx) if x0 is None else x0, (A.shape[0], nx)).copy()
    ok = np.all(np.isfinite(A.reshape(A.shape[0], -1)), axis=1)
    y = np.full((A.shape[0], t.size, sub.shape[0]), np.nan)
    if ok.any():
        y[ok] = _simulate(A[ok], B[ok], C[ok], D[ok], u, start[ok], dt)
    nom, smp = y[0], y[1:]
    stack = y[ok]
    peaks = np.nanmax(np.abs(smp), axis=(1, 2)) if n else np.zeros(0)
    worst = int(np.nanargmax(peaks)) if n and np.isfinite(peaks).any() else -1
    return UncertainTimeResponse(kind, t, nom, smp, values, stack.min(axis=0), stack.max(axis=0), worst,
                                 {k: float(v[worst]) for k, v in values.items()} if worst >= 0 else {},
                                 float(peaks[worst]) if worst >= 0 else float("nan"),
                                 float(np.abs(nom).max()), tuple(sub.output_names), output_unit)


def _stack(sub, nominal, values, n):
    """A, B, C, D stacked as [nominal, samples...]."""
    if not sub.blocks:
        ss = sub.evaluate({})
        mats = [np.asarray(getattr(ss, k), float)[None] for k in "ABCD"]
        return [np.repeat(M, n + 1, axis=0) for M in mats]
    parts = [nominal]
    if n:
        parts.append(sub.evaluate_batch(values))
    return [np.concatenate([getattr(p, k) for p in parts]) for k in "ABCD"]
