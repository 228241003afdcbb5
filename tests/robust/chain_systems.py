"""TEST-ONLY mass-spring-damper chains with uncertain real parameters, and their brute-force margin.

A chain of N masses on a line: spring k_1 and damper c_1 tie mass 1 to the wall, k_i and
c_i tie mass i-1 to mass i. A force on mass ``actuator`` is fed back from the position and
velocity of mass ``sensor`` (non-collocated: sensor != actuator), through a static gain
or a first-order dynamic controller. Some masses, stiffnesses and dampers are uncertain.

Two independent descriptions of the same closed loop:

- ``chain_lfr``: written entry by entry as a user writes it, with ``satdyn.lfr.ureal``
  (``percent=``, ``plusminus=`` or ``range=``), ``ss`` with LFR entries and ``feedback``;
- ``chain_A``: the closed-loop state matrix built in numpy from physical values, and the
  parameter normalisation written out here from its definition (the Moebius map through
  (-1, low), (0, nominal), (1, high), docs/lfr.md), not taken from satdyn.

``brute_force_margin`` computes the robust stability margin of ``chain_A`` without any mu
code: the smallest k such that some delta with ||delta||_inf <= k gives a closed-loop
eigenvalue in the closed right half-plane.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from satdyn.lfr import feedback, ss, ureal


@dataclass(frozen=True)
class Uncertain:
    """One uncertain physical parameter: kind in {"m", "k", "c"}, index (0-based), how its range is given."""

    kind: str
    index: int
    how: str          # "percent" | "plusminus" | "range"
    value: object     # the keyword's value


@dataclass(frozen=True)
class Chain:
    masses: tuple
    springs: tuple
    dampers: tuple
    actuator: int
    sensor: int
    kp: float
    kd: float
    uncertain: tuple = field(default=())
    tau: float | None = None     # None: static controller u = -(kp q + kd v); else K(s) = (kp + kd s)/(tau s + 1)

    @property
    def n(self):
        return len(self.masses)


def parameter_range(chain: Chain, u: Uncertain):
    """(nominal, low, high) of one uncertain parameter, from the keyword's definition."""
    nominal = {"m": chain.masses, "k": chain.springs, "c": chain.dampers}[u.kind][u.index]
    if u.how == "percent":
        half = abs(nominal) * u.value / 100.0
        return nominal, nominal - half, nominal + half
    if u.how == "plusminus":
        if np.ndim(u.value) == 0:
            return nominal, nominal - abs(u.value), nominal + abs(u.value)
        return nominal, nominal + u.value[0], nominal + u.value[1]
    return nominal, u.value[0], u.value[1]


def denormalize(nominal, low, high, delta):
    """Physical value at normalised delta: v = (a delta + nominal) / (c delta + 1), through the three points."""
    c = (2 * nominal - high - low) / (high - low)
    a = high * (c + 1) - nominal
    return (a * delta + nominal) / (c * delta + 1)


def physical(chain: Chain, deltas):
    """Masses, springs, dampers (S, N) at normalised parameter values deltas (S, len(uncertain))."""
    deltas = np.atleast_2d(deltas)
    S = deltas.shape[0]
    values = {kind: np.tile(np.asarray(v, float), (S, 1))
              for kind, v in (("m", chain.masses), ("k", chain.springs), ("c", chain.dampers))}
    for j, u in enumerate(chain.uncertain):
        values[u.kind][:, u.index] = denormalize(*parameter_range(chain, u), deltas[:, j])
    return values["m"], values["k"], values["c"]


def _stiffness_matrices(values):
    """Chain stiffness-like matrices (S, N, N) from element values (S, N) (element 0 to the wall)."""
    S, N = values.shape
    K = np.zeros((S, N, N))
    for i in range(N):
        K[:, i, i] += values[:, i]
        if i > 0:
            K[:, i - 1, i - 1] += values[:, i]
            K[:, i - 1, i] -= values[:, i]
            K[:, i, i - 1] -= values[:, i]
    return K


def chain_A(chain: Chain, deltas):
    """Closed-loop state matrices (S, nx, nx) at normalised parameter values (S, p), in numpy."""
    return closed_loop_A(chain, *physical(chain, deltas))


def values_of(chain: Chain, values: dict):
    """Masses, springs, dampers (1, N) with the named physical values ({"m2": ..., "k1": ...}) substituted."""
    table = {kind: np.array([v], float) for kind, v in (("m", chain.masses), ("k", chain.springs),
                                                       ("c", chain.dampers))}
    for name, value in values.items():
        table[name[0]][0, int(name[1:]) - 1] = value
    return table["m"], table["k"], table["c"]


def closed_loop_A(chain: Chain, m, k, c):
    """Closed-loop state matrices (S, nx, nx) from physical masses, springs, dampers (S, N)."""
    S, N = m.shape
    Minv = 1.0 / m
    Kmat = _stiffness_matrices(k)
    Cmat = _stiffness_matrices(c)
    e_a = np.zeros(N)
    e_a[chain.actuator] = 1.0
    nx = 2 * N + (0 if chain.tau is None else 1)
    A = np.zeros((S, nx, nx))
    A[:, :N, N:2 * N] = np.eye(N)
    A[:, N:2 * N, :N] = -Minv[:, :, None] * Kmat
    A[:, N:2 * N, N:2 * N] = -Minv[:, :, None] * Cmat
    s = chain.sensor
    force_rows = Minv[:, :, None] * e_a[None, :, None]          # (S, N, 1): B = M^-1 e_a
    if chain.tau is None:
        # u = -(kp q_s + kd v_s)
        A[:, N:2 * N, s] -= chain.kp * force_rows[:, :, 0]
        A[:, N:2 * N, N + s] -= chain.kd * force_rows[:, :, 0]
    else:
        # K(s) = (kp + kd s)/(tau s + 1) on y = q_s, u = -K y: xc' = (-xc + q_s)/tau,
        # u = -(kd/tau q_s + (kp - kd/tau) xc)
        tau = chain.tau
        A[:, -1, -1] = -1.0 / tau
        A[:, -1, s] = 1.0 / tau
        A[:, N:2 * N, s] -= (chain.kd / tau) * force_rows[:, :, 0]
        A[:, N:2 * N, -1] -= (chain.kp - chain.kd / tau) * force_rows[:, :, 0]
    return A


def chain_lfr(chain: Chain):
    """The same closed loop as an LFR, written entry by entry with ureal / ss / feedback."""
    N = chain.n
    m = list(chain.masses)
    k = list(chain.springs)
    c = list(chain.dampers)
    table = {"m": m, "k": k, "c": c}
    for u in chain.uncertain:
        name = f"{u.kind}{u.index + 1}"
        table[u.kind][u.index] = ureal(name, table[u.kind][u.index], **{u.how: u.value})
    zero = [0.0] * N
    rows_q = [[1.0 if j == i else 0.0 for j in range(N)] for i in range(N)]
    A = [zero + rows_q[i] for i in range(N)]
    for i in range(N):
        # m_i a_i = -k_i (q_i - q_{i-1}) - k_{i+1} (q_i - q_{i+1}) - (same with c and v) + u
        row_q, row_v = [0.0] * N, [0.0] * N
        row_q[i] = -k[i] / m[i]
        row_v[i] = -c[i] / m[i]
        if i > 0:
            row_q[i - 1] = k[i] / m[i]
            row_v[i - 1] = c[i] / m[i]
        if i + 1 < N:
            row_q[i] = -(k[i] + k[i + 1]) / m[i]
            row_v[i] = -(c[i] + c[i + 1]) / m[i]
            row_q[i + 1] = k[i + 1] / m[i]
            row_v[i + 1] = c[i + 1] / m[i]
        A.append(row_q + row_v)
    B = [[0.0] for _ in range(N)] + [[1 / m[i] if i == chain.actuator else 0.0] for i in range(N)]
    C = [[1.0 if j == chain.sensor else 0.0 for j in range(2 * N)]]
    plant = ss(A, B, C, [[0.0]])
    if chain.tau is None:
        # y = q_s; the velocity feedback through a second output
        Cv = [[1.0 if j == N + chain.sensor else 0.0 for j in range(2 * N)]]
        plant2 = ss(A, B, C + Cv, [[0.0], [0.0]])
        controller = ss(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((1, 0)), [[chain.kp, chain.kd]])
        return feedback(plant2, controller)
    tau = chain.tau
    controller = ss([[-1 / tau]], [[1 / tau]], [[chain.kp - chain.kd / tau]], [[chain.kd / tau]])
    return feedback(plant, controller)


def max_growth(chain, deltas):
    """Largest real part of the closed-loop eigenvalues (S,); +inf where a parameter is not finite."""
    with np.errstate(all="ignore"):   # a mass through zero: the loop is not defined (counted unstable)
        A = chain_A(chain, deltas)
    bad = ~np.all(np.isfinite(A), axis=(1, 2))
    A[bad] = 0.0
    out = np.linalg.eigvals(A).real.max(axis=1)
    out[bad] = np.inf
    return out


def _first_crossing(chain, q, t_max, steps, bisections=50):
    """Smallest t in (0, t_max] with max_growth(t q) >= 0 for each direction q (S, p); inf if none.

    A uniform scan of ``steps`` points, then bisection between the last stable and the
    first unstable point (accuracy t_max / steps / 2^bisections).
    """
    q = np.atleast_2d(q)
    S, p = q.shape
    ts = t_max * np.arange(1, steps + 1) / steps
    growth = max_growth(chain, (ts[None, :, None] * q[:, None, :]).reshape(-1, p)).reshape(S, steps)
    unstable = growth >= 0
    has = unstable.any(axis=1)
    first = np.argmax(unstable, axis=1)
    hi = np.where(has, ts[first], np.inf)
    lo = np.where(first > 0, ts[np.maximum(first - 1, 0)], 0.0)
    rows = np.flatnonzero(has)
    a, b = lo[rows], hi[rows]
    for _ in range(bisections):
        mid = 0.5 * (a + b)
        u = max_growth(chain, mid[:, None] * q[rows]) >= 0
        b = np.where(u, mid, b)
        a = np.where(u, a, mid)
    hi[rows] = b
    return hi


def surface_directions(p, points):
    """Directions on the surface of the unit box [-1, 1]^p: a grid of ``points``^(p-1) on each of the 2p faces."""
    axes = np.linspace(-1.0, 1.0, points)
    grid = np.array(np.meshgrid(*[axes] * (p - 1), indexing="ij")).reshape(p - 1, -1).T if p > 1 \
        else np.zeros((1, 0))
    out = []
    for i in range(p):
        for s in (-1.0, 1.0):
            d = np.insert(grid, i, s, axis=1)
            out.append(d)
    return np.unique(np.concatenate(out), axis=0)


def brute_force_margin(chain, t_max=3.0, points=None, steps=120, starts=2):
    """Robust stability margin of ``chain_A`` by search of the box surface: (margin, delta).

    1. rays from the origin towards a grid of the box surface (``surface_directions``),
       the first crossing on each by scan + bisection (``_first_crossing``);
    2. local refinement of the best ``starts`` rays: Nelder-Mead on the direction y
       (q = y / ||y||_inf, so every face and edge is reachable and a minimum interior to a
       face is found), minimising the first crossing t(q), which is ||t q||_inf.
    Every value returned is a destabilising point found by eigenvalues, so the result is an
    upper bound on the true margin; the dense surface grid plus the local refinement is
    what makes it the minimum (up to the bisection accuracy, ~1e-12 relative).
    """
    p = len(chain.uncertain)
    if points is None:
        points = {1: 1, 2: 41, 3: 11, 4: 6}[p]
    dirs = surface_directions(p, points)
    t = _first_crossing(chain, dirs, t_max, steps)
    order = np.argsort(t)[:starts]
    best_t, best_q = np.inf, None
    for i in order:
        if not np.isfinite(t[i]):
            continue
        ti = t[i]

        def objective(y, ti=ti):
            norm = np.max(np.abs(y))
            if norm == 0:
                return np.inf
            return float(_first_crossing(chain, y / norm, min(t_max, 1.5 * ti), 48, bisections=42)[0])

        res = minimize(objective, dirs[i], method="Nelder-Mead",
                       options={"xatol": 1e-7, "fatol": 1e-10 * ti, "maxfev": 250})
        cand = [(ti, dirs[i]), (res.fun, res.x / np.max(np.abs(res.x)))]
        for tc, qc in cand:
            if tc < best_t:
                best_t, best_q = tc, qc
    if best_q is None:
        return np.inf, np.full(p, np.nan)
    return best_t, best_t * best_q


def random_chain(seed: int) -> Chain:
    """A seeded random chain: 2-4 masses, 2-4 uncertain parameters, a stabilising controller.

    Masses and stiffnesses in [0.5, 2], dampers in [0.02, 0.12]; the uncertain parameters'
    ranges are drawn as users give them (``percent=`` 20-40, ``plusminus=`` symmetric or
    not, ``range=`` asymmetric). The controller (static PD, or a first-order lead when
    ``tau`` is set) on a non-collocated sensor/actuator pair is drawn until the nominal loop
    is stable (decay rate >= 1e-3) and some vertex of the box scaled by 2
    destabilises it (so the margin is finite and of order one).
    """
    rng = np.random.default_rng(seed)
    for _attempt in range(50):   # a chain no controller of the family stabilises: draw another
        N = int(rng.integers(2, 5))
        masses = tuple(np.round(rng.uniform(0.5, 2.0, N), 3))
        springs = tuple(np.round(rng.uniform(0.5, 2.0, N), 3))
        dampers = tuple(np.round(rng.uniform(0.02, 0.12, N), 4))
        p = int(rng.integers(2, 5))
        slots = rng.choice(3 * N, size=p, replace=False)
        uncertain = []
        for slot in sorted(slots):
            kind, index = "mkc"[slot // N], int(slot % N)
            nominal = {"m": masses, "k": springs, "c": dampers}[kind][index]
            how = ("percent", "plusminus", "range")[int(rng.integers(3))]
            if how == "percent":
                value = float(rng.choice([20, 25, 30, 40]))
            elif how == "plusminus":
                if rng.uniform() < 0.5:
                    value = round(float(nominal * rng.uniform(0.2, 0.4)), 4)
                else:
                    value = (-round(float(nominal * rng.uniform(0.15, 0.35)), 4),
                             round(float(nominal * rng.uniform(0.2, 0.4)), 4))
            else:
                value = (round(float(nominal * (1 - rng.uniform(0.15, 0.35))), 4),
                         round(float(nominal * (1 + rng.uniform(0.2, 0.4))), 4))
            uncertain.append(Uncertain(kind, index, how, value))
        actuator, sensor = (int(i) for i in rng.choice(N, size=2, replace=False))
        dynamic = bool(rng.uniform() < 0.5)
        for _ in range(100):
            kp = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-1.5, 0.3))
            kd = float(10 ** rng.uniform(-1.5, 0.0))
            tau = float(10 ** rng.uniform(-1.0, 0.3)) if dynamic else None
            chain = Chain(masses, springs, dampers, actuator, sensor, kp, kd, tuple(uncertain), tau)
            if max_growth(chain, np.zeros((1, p)))[0] >= -1e-3:
                continue
            probe = 2.0 * np.sign(rng.uniform(-1, 1, (64, p)))
            if np.any(max_growth(chain, probe) >= 0):
                return chain
    raise RuntimeError(f"no stabilising controller found for chain seed {seed}")


# The chain of issue 25: three masses, the first to the wall, a static non-collocated
# controller (force on mass 1 from mass 3), a mass, a stiffness and a damper uncertain by
# +-30 %, +-20 %, +-40 %. Before the method of docs/robust.md, robust_stability returned
# [0.10, inf] on it (no destabilising point found) where the margin is 1.5157.
THREE_MASS = Chain(masses=(1.0, 1.0, 1.0), springs=(1.0, 1.0, 1.0), dampers=(0.05, 0.05, 0.05),
                   actuator=0, sensor=2, kp=0.2, kd=0.1,
                   uncertain=(Uncertain("m", 1, "percent", 30), Uncertain("k", 1, "percent", 20),
                              Uncertain("c", 2, "percent", 40)))
