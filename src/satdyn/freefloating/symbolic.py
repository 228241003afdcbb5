"""Symbolic back-end (optional ``sympy`` extra): partial- and full-symbolic equations of motion.

Paper Front. Robot. AI 5:41 (2018) §"implementation" / implementation notes §7.1 (Figure 3 of the paper):

* **partial symbolic**: H₀, H₀ₘ, Hₘ (and their ∂/∂qₖ, plus the EE kinematics needed by J*)
  are closed-form sympy expressions of q, compiled once; H, C = Ḣq̇ + c and J* are then
  combined *numerically* (the variant the paper's examples used).
* **full symbolic**: H(q), C(q, q̇) and J*(q) are each one closed-form function, H₀⁻¹ included
  (Schur/adjugate form, eqs. 52-61), ∂H/∂qₖ by forward-mode differentiation of the program.

Expressions are generated as a straight-line program with common-subexpression elimination
built in (:class:`_Tape`: every matrix entry becomes a named intermediate), then compiled
with ``sympy.lambdify``.  A naive sympy build (whole trees, ``diff`` of H, ``cse`` at the
end) does not finish for N = 2 in minutes on dense random systems, because sympy
distributes float coefficients over sums and loses all sharing.  Measured with the tape
(random dense systems, one core): build 1.4 s / 2.8 s / 6.6 s and 5 300 / 10 500 / 18 600
operations for N = 2 / 3 / 4 (full).  As the issue asks, full-symbolic is documented as
practical for **N <= 3** and larger N needs ``allow_large=True``; partial-symbolic has no limit.

The model's numbers (masses, placements) are embedded as floats; only q (and q̇) are symbols.
Everything is built with the base at the identity pose: H and C do not depend on the base
pose (implementation notes §4.2), and J* at base attitude R₀ is diag(R₀, R₀) J*(identity).  Compiled
functions are cached per model (:meth:`SpacecraftManipulator.fingerprint`) and variant.
sympy is imported lazily, inside these functions only.

Arguments (dimensions): ``model`` (N joints); ``q``, ``qdot`` (N,); ``base_attitude`` (3, 3).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._validation import as_batch_of
from .derivatives import coriolis_terms

__all__ = ["SymbolicModel", "symbolic_model", "clear_symbolic_cache"]

_CACHE: dict = {}


def _sympy():
    try:
        import sympy
    except ImportError as exc:  # pragma: no cover - sympy is a declared optional extra
        raise ImportError("the symbolic back-end needs sympy: pip install 'satdyn[symbolic]'") from exc
    return sympy


class _Tape:
    """Straight-line program of sympy assignments with forward-mode ∂/∂qₖ of every variable.

    Each non-trivial matrix entry becomes a fresh symbol ``xₙ = expr`` (this *is* the common-
    subexpression elimination: sympy would otherwise distribute float coefficients over sums
    and destroy the sharing, and the trees would swell beyond reach).  The derivative of a new
    variable follows from the chain rule over the variables it uses (small local ``diff`` calls).
    """

    def __init__(self, sp, q):
        self.sp, self.q = sp, list(q)
        self.assignments = []
        self.grad = {}

    def var(self, expr, track=True):
        sp = self.sp
        expr = sp.sympify(expr)
        if expr.is_Number or expr.is_Symbol:
            return expr
        x = sp.Symbol(f"x{len(self.assignments)}")
        self.assignments.append((x, expr))
        if track:
            self.grad[x] = [self.var(self._chain(expr, k), track=False) for k in range(len(self.q))]
        return x

    def _chain(self, expr, k):
        """∂expr/∂qₖ by the chain rule over the tape variables in ``expr``."""
        free = expr.free_symbols
        g = expr.diff(self.q[k]) if self.q[k] in free else self.sp.S.Zero
        for y in free:
            dy = self.grad.get(y)
            if dy is not None and dy[k] != 0:
                g = g + expr.diff(y) * dy[k]
        return g

    def mat(self, M, track=True):
        return M.applyfunc(lambda e: self.var(e, track))

    def d(self, M, k):
        """∂M/∂qₖ of a matrix of expressions in tape variables."""
        return M.applyfunc(lambda e: self.grad[e][k] if e in self.grad else self._chain(self.sp.sympify(e), k))


def _build_blocks(sp, tape, model):
    """Symbolic kinematics and inertia blocks (eqs. 1-36) with the base at the identity pose."""
    n = model.n_joints
    M = sp.Matrix
    q = tape.q

    def skew(v):
        return M([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])

    R_prev, o_prev = sp.eye(3), sp.zeros(3, 1)
    p, k, rc, inertia = [], [], [], []
    for i in range(n):
        P = model.joint_placements[i]
        RJ = tape.mat(R_prev * M(P[:3, :3]))
        pi = tape.mat(o_prev + R_prev * M(P[:3, 3]))
        c, s = tape.var(sp.cos(q[i])), tape.var(sp.sin(q[i]))
        RK = tape.mat(RJ * M([[c, -s, 0], [s, c, 0], [0, 0, 1]]))
        p.append(pi)
        k.append(RJ[:, 2])
        rc.append(tape.mat(pi + RK * M(model.link_coms[i])))
        inertia.append(tape.mat(tape.mat(RK * M(model.link_inertias[i])) * RK.T))
        R_prev, o_prev = RK, pi
    E = model.ee_placement
    ee = tape.mat(o_prev + R_prev * M(E[:3, 3]))
    m = [float(x) for x in model.link_masses]
    mt = float(model.total_mass)
    r0C = tape.mat(sum((m[i] * rc[i] for i in range(n)), sp.zeros(3, 1)) / mt)   # base CoM at the origin
    HS = M(model.base_inertia)
    JT, JR = [], []
    for i in range(n):
        X = skew(rc[i])
        HS = tape.mat(HS + inertia[i] - m[i] * (X * X))
        JT.append(tape.mat(M.hstack(*[k[l].cross(rc[i] - p[l]) if l <= i else sp.zeros(3, 1) for l in range(n)])))
        JR.append(M.hstack(*[k[l] if l <= i else sp.zeros(3, 1) for l in range(n)]))
    C = skew(r0C)
    H0 = M.vstack(M.hstack(mt * sp.eye(3), -mt * C), M.hstack(mt * C, HS))
    JTS = tape.mat(sum((m[i] * JT[i] for i in range(n)), sp.zeros(3, n)))
    HSq = sp.zeros(3, n)
    Hm = sp.zeros(n, n)
    for i in range(n):
        IJR = tape.mat(inertia[i] * JR[i])
        HSq = tape.mat(HSq + IJR + m[i] * (skew(rc[i]) * JT[i]))
        Hm = tape.mat(Hm + JR[i].T * IJR + m[i] * (JT[i].T * JT[i]))
    H0m = M.vstack(JTS, HSq)
    Jm = tape.mat(M.vstack(M.hstack(*[k[l].cross(ee - p[l]) for l in range(n)]), M.hstack(*k)))
    J0 = M.vstack(M.hstack(sp.eye(3), -skew(ee)), M.hstack(sp.zeros(3, 3), sp.eye(3)))
    return {"H0": H0, "H0m": H0m, "Hm": Hm, "Jm": Jm, "J0": J0, "r0C": r0C, "HS": HS, "skew": skew}


def _schur_inverse(sp, tape, blocks, mt):
    """Symbolic H₀⁻¹ by eqs. (52)-(53), (60)-(61)."""
    C = blocks["skew"](blocks["r0C"])
    S = tape.mat(blocks["HS"] + mt * (C * C))
    s11, s12, s13, s22, s23, s33 = S[0, 0], S[0, 1], S[0, 2], S[1, 1], S[1, 2], S[2, 2]
    det = tape.var(s11 * s22 * s33 + 2 * s12 * s13 * s23 - s11 * s23**2 - s22 * s13**2 - s33 * s12**2)
    adj = sp.Matrix([[s22 * s33 - s23**2, s13 * s23 - s12 * s33, s12 * s23 - s13 * s22],
                     [s13 * s23 - s12 * s33, s11 * s33 - s13**2, s12 * s13 - s11 * s23],
                     [s12 * s23 - s13 * s22, s12 * s13 - s11 * s23, s11 * s22 - s12**2]])
    Si = tape.mat(adj / det)
    CSi = tape.mat(C * Si)
    return sp.Matrix.vstack(sp.Matrix.hstack(tape.mat(sp.eye(3) / mt - CSi * C), CSi),
                            sp.Matrix.hstack(tape.mat(-Si * C), Si))


def _needed(assignments, expr):
    """The assignments an output depends on, in program order."""
    needed = set()
    stack = list(getattr(expr, "free_symbols", set())) if not isinstance(expr, list) else \
        [s for e in expr for row in (e if isinstance(e, list) else [e]) for s in row.free_symbols]
    index = {x: i for i, (x, _) in enumerate(assignments)}
    while stack:
        x = stack.pop()
        if x in index and x not in needed:
            needed.add(x)
            stack.extend(assignments[index[x]][1].free_symbols)
    return [(x, e) for x, e in assignments if x in needed]


@dataclasses.dataclass(frozen=True)
class SymbolicModel:
    """Compiled symbolic equations of one model in one variant.

    Attributes
    ----------
    variant : str
        "partial" or "full".
    n_joints : int
    operations : int
        Operation count of the generated expressions after CSE (size indicator).
    build_seconds : float
    """

    variant: str
    n_joints: int
    operations: int
    build_seconds: float
    _functions: dict = dataclasses.field(repr=False)

    def evaluate(self, q, qdot, base_attitude=None):
        """H (N, N), C = Ḣq̇ + c (N,) and the end-effector GJM J* (6, N) at one configuration.

        J* is for zero momentum in the floating mode and refers to the paper's inertial-frame twists.
        """
        n = self.n_joints
        q = as_batch_of(q, (n,), "q")
        qd = as_batch_of(qdot, (n,), "qdot")
        if q.ndim != 1 or qd.ndim != 1:
            raise ValueError("the symbolic back-end evaluates one configuration at a time: q, qdot of shape (N,)")
        f = self._functions
        if self.variant == "full":
            H = np.asarray(f["H"](*q), dtype=float)
            C = np.asarray(f["C"](*q, *qd), dtype=float).reshape(n)
            J = np.asarray(f["J"](*q), dtype=float)
        else:
            H0, H0m, Hm, J0, Jm = (np.asarray(x, dtype=float) for x in f["blocks"](*q))
            dH0, dH0m, dHm = (np.asarray(x, dtype=float) for x in f["derivatives"](*q))
            G = np.linalg.solve(H0, H0m)
            H = Hm - H0m.T @ G
            u = np.swapaxes(dH0m, -1, -2) @ G
            dH = dHm - u - np.swapaxes(u, -1, -2) + G.T @ dH0 @ G          # eq. (81)
            C = coriolis_terms(dH, qd)
            J = Jm - J0 @ G                                                 # eq. (110)
        if base_attitude is not None:
            R0 = as_batch_of(base_attitude, (3, 3), "base_attitude")
            J = np.concatenate([R0 @ J[:3], R0 @ J[3:]])
        return H, C, J


def symbolic_model(model, variant: str = "partial", allow_large: bool = False) -> SymbolicModel:
    """Generate, compile (``lambdify`` of a CSE'd straight-line program) and cache the symbolic equations of ``model``.

    Parameters
    ----------
    model : SpacecraftManipulator
    variant : {"partial", "full"}
    allow_large : bool
        Allow the full-symbolic variant for N > 3 (very slow to generate).

    Returns
    -------
    SymbolicModel
    """
    import time

    if variant not in ("partial", "full"):
        raise ValueError(f"`variant` must be 'partial' or 'full'; got {variant!r}")
    n = model.n_joints
    if variant == "full" and n > 3 and not allow_large:
        raise ValueError(f"full-symbolic H, C, J* is practical for N <= 3 only (N = {n}); use variant='partial' "
                         "or pass allow_large=True")
    key = (model.fingerprint(), variant)
    if key in _CACHE:
        return _CACHE[key]
    sp = _sympy()
    start = time.perf_counter()
    q = sp.symbols(f"q1:{n + 1}")
    qd = sp.symbols(f"qd1:{n + 1}")
    tape = _Tape(sp, q)
    b = _build_blocks(sp, tape, model)
    if variant == "partial":
        d = [[tape.d(blk, k) for k in range(n)] for blk in (b["H0"], b["H0m"], b["Hm"])]
        outputs = {"blocks": (list(q), [b["H0"], b["H0m"], b["Hm"], b["J0"], b["Jm"]]),
                   "derivatives": (list(q), d)}
    else:
        # H, C and J* each in closed form; ∂H/∂qₖ comes from the tape's forward-mode derivatives.
        H0inv = _schur_inverse(sp, tape, b, float(model.total_mass))
        G = tape.mat(H0inv * b["H0m"])
        H = tape.mat(b["Hm"] - b["H0m"].T * G)
        qdv = sp.Matrix(qd)
        dHq = [tape.mat(tape.d(H, k) * qdv, track=False) for k in range(n)]       # (∂H/∂qₖ) q̇
        C = sum((dHq[k] * qd[k] for k in range(n)), sp.zeros(n, 1))
        C = C + sp.Matrix([-sp.Rational(1, 2) * (qdv.T * dHq[k])[0, 0] for k in range(n)])
        J = b["Jm"] - b["J0"] * G
        outputs = {"H": (list(q), H), "C": (list(q) + list(qd), C), "J": (list(q), J)}
    funcs, ops = {}, 0
    for name, (args, expr) in outputs.items():
        needed = _needed(tape.assignments, expr)
        ops += int(sum(sp.count_ops(e) for _, e in needed) + sp.count_ops(expr))
        funcs[name] = sp.lambdify(args, expr, "numpy", cse=lambda e, r=needed: (r, e))
    result = SymbolicModel(variant, n, ops, time.perf_counter() - start, funcs)
    _CACHE[key] = result
    return result


def clear_symbolic_cache() -> None:
    """Forget every compiled symbolic model."""
    _CACHE.clear()
