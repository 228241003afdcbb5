"""Tunable blocks: controller pieces that own their parameters.

Every block maps named measured signals (``inputs``) to named control signals
(``outputs``) and has ``nstates`` internal states. Its realisation is one static matrix

    Kb = [[Ak, Bk], [Ck, Dk]]      shape (nstates + len(outputs), nstates + len(inputs))

so that the whole controller folds into one static gain on an augmented plant (the plant
gets the controller's integrators; see :mod:`satdyn.control.problem`). A block owns its
parameter vector: ``names``, ``value``, ``free`` (mask of tuned entries), ``scale``
(typical magnitude, the optimiser works on ``x / scale``) and ``lower``/``upper`` bounds.

Blocks are immutable; :meth:`TunableBlock.with_value` returns a copy at new values.
The realisation is batched over scenarios because scheduled (LPV) blocks depend on the
scheduling values: ``realize(x, tau)`` -> (N or 1, r, c), ``jacobian(x, tau)`` ->
(N or 1, P, r, c) with ``tau`` (N, nsched) the normalised scheduling values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TunableBlock", "AffineBlock", "StaticGain", "PID", "TunableSS", "TunableTF", "ScheduledBlock"]


def _names(value, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    try:
        names = tuple(value)
    except TypeError:
        raise TypeError(f"`{what}` must be a signal name or a sequence of names; got {value!r}") from None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise TypeError(f"`{what}` must be a non-empty sequence of signal names; got {value!r}")
    return names


def _vector(value, size: int, what: str, default: float) -> np.ndarray:
    if value is None:
        return np.full(size, float(default))
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(size, float(arr))
    if arr.shape != (size,):
        raise ValueError(f"`{what}` must have shape ({size},); got {arr.shape}")
    return arr.copy()


class TunableBlock:
    """Base class. Subclasses define ``_realize(x, tau)`` and ``_jacobian(x, tau)``."""

    scheduling: tuple = ()

    def __init__(self, name: str, inputs, outputs, nstates: int, names, value, *, free=None,
                 scale=None, lower=None, upper=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"block `name` must be a non-empty str; got {name!r}")
        self.name = name
        self.inputs = _names(inputs, "inputs")
        self.outputs = _names(outputs, "outputs")
        if int(nstates) != nstates or nstates < 0:
            raise ValueError(f"`nstates` must be a non-negative integer; got {nstates!r}")
        self.nstates = int(nstates)
        self.names = tuple(names)
        n = len(self.names)
        self.value = _vector(value, n, "value", 0.0)
        if not np.all(np.isfinite(self.value)):
            raise ValueError(f"block {name!r}: initial `value` must be finite")
        free = np.ones(n, bool) if free is None else np.asarray(free, dtype=bool)
        if free.shape != (n,):
            raise ValueError(f"`free` must be a boolean mask of shape ({n},); got {free.shape}")
        self.free = free.copy()
        self.scale = _vector(scale, n, "scale", 1.0)
        if np.any(self.scale <= 0):
            raise ValueError("`scale` must be positive")
        self.lower = _vector(lower, n, "lower", -np.inf)
        self.upper = _vector(upper, n, "upper", np.inf)
        if np.any(self.lower > self.upper):
            raise ValueError("`lower` must not exceed `upper`")

    @property
    def shape(self) -> tuple[int, int]:
        """Shape of the static matrix [[Ak, Bk], [Ck, Dk]]."""
        return self.nstates + len(self.outputs), self.nstates + len(self.inputs)

    @property
    def nparameters(self) -> int:
        return len(self.names)

    def with_value(self, value) -> "TunableBlock":
        """Copy of the block at parameter values ``value`` (P,)."""
        import copy

        out = copy.copy(self)
        out.value = _vector(value, self.nparameters, "value", 0.0)
        return out

    def realize(self, x=None, tau=None) -> np.ndarray:
        """Static matrix (N or 1, r, c) at parameters ``x`` (default: the block's value)."""
        x = self.value if x is None else np.asarray(x, dtype=float)
        return self._realize(x, tau)

    def jacobian(self, x=None, tau=None) -> np.ndarray:
        """Derivative (N or 1, P, r, c) of :meth:`realize` with respect to the parameters."""
        x = self.value if x is None else np.asarray(x, dtype=float)
        return self._jacobian(x, tau)

    def matrices(self, x=None, tau=None, index: int = 0):
        """``(Ak, Bk, Ck, Dk)`` of scenario ``index``."""
        K = self.realize(x, tau)
        K = K[index if K.shape[0] > 1 else 0]
        n = self.nstates
        return K[:n, :n], K[:n, n:], K[n:, :n], K[n:, n:]

    def to_statespace(self, x=None, tau=None, index: int = 0):
        """The block as a ``control.StateSpace`` (named signals)."""
        import control

        A, B, C, D = self.matrices(x, tau, index)
        return control.ss(A, B, C, D, inputs=list(self.inputs), outputs=list(self.outputs))


class AffineBlock(TunableBlock):
    """A block affine in its parameters: ``Kb(x) = K0 + sum_j x_j E_j``."""

    def __init__(self, name, inputs, outputs, nstates, names, value, K0, E, **kw):
        super().__init__(name, inputs, outputs, nstates, names, value, **kw)
        self.K0 = np.asarray(K0, dtype=float)
        self.E = np.asarray(E, dtype=float)
        if self.K0.shape != self.shape or self.E.shape != (self.nparameters,) + self.shape:
            raise ValueError(f"block {name!r}: inconsistent affine structure")

    def _realize(self, x, tau):
        return (self.K0 + np.tensordot(x, self.E, axes=1))[None]

    def _jacobian(self, x, tau):
        return self.E[None]


def _unit_basis(shape, positions):
    """E (len(positions), *shape) with a 1 at each (row, col) position."""
    E = np.zeros((len(positions),) + tuple(shape))
    for k, (i, j) in enumerate(positions):
        E[k, i, j] = 1.0
    return E


class StaticGain(AffineBlock):
    """Static gain ``u = D y`` (``len(outputs) x len(inputs)``), every entry tunable.

    Parameters
    ----------
    name : str
    inputs, outputs : sequence of str
        Measured signals read and control signals driven.
    init : array_like (len(outputs), len(inputs)), optional
        Initial gain (default 0).
    free, scale, lower, upper : optional
        Per-entry mask, typical magnitude and bounds (row-major order).
    """

    def __init__(self, name, inputs, outputs, init=None, **kw):
        ins, outs = _names(inputs, "inputs"), _names(outputs, "outputs")
        shape = (len(outs), len(ins))
        D0 = np.zeros(shape) if init is None else np.asarray(init, dtype=float).reshape(shape)
        pos = [(i, j) for i in range(shape[0]) for j in range(shape[1])]
        names = [f"{name}.D[{i},{j}]" for i, j in pos]
        kw.setdefault("scale", np.maximum(np.abs(D0).ravel(), max(np.abs(D0).max(initial=0.0), 1.0) * 1e-2))
        super().__init__(name, ins, outs, 0, names, D0.ravel(), np.zeros(shape), _unit_basis(shape, pos), **kw)


class PID(TunableBlock):
    """SISO PID ``Kp + Ki/s + Kd s / (Tf s + 1)`` (parameters ``Kp, Ki, Kd, Tf``).

    Realisation (2 states: the integral and the derivative filter)::

        A = [[0, 0], [0, -1/Tf]],  B = [1; 1],  C = [Ki, -Kd/Tf^2],  D = Kp + Kd/Tf

    With ``tune_filter=False`` (default) ``Tf`` is fixed and the block is affine in
    ``(Kp, Ki, Kd)``; with ``tune_filter=True`` ``Tf`` is tuned too (bounded below by
    ``tf_min``), through the chain rule.
    """

    def __init__(self, name, input, output, Kp=1.0, Ki=0.0, Kd=0.0, Tf=0.1, *, tune_filter=False,
                 tf_min=1e-4, **kw):
        if not Tf > 0:
            raise ValueError(f"PID `Tf` must be > 0; got {Tf!r}")
        value = np.array([Kp, Ki, Kd, Tf], dtype=float)
        free = kw.pop("free", np.array([True, True, True, bool(tune_filter)]))
        scale = kw.pop("scale", np.maximum(np.abs(value), 1e-2 * max(np.abs(value[:3]).max(), 1.0)))
        lower = kw.pop("lower", np.array([-np.inf, -np.inf, -np.inf, tf_min]))
        names = [f"{name}.{k}" for k in ("Kp", "Ki", "Kd", "Tf")]
        super().__init__(name, input, output, 2, names, value, free=free, scale=scale, lower=lower, **kw)
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            raise ValueError("PID: `input` and `output` must be single signal names")

    def _realize(self, x, tau):
        Kp, Ki, Kd, Tf = x
        return np.array([[[0.0, 0.0, 1.0], [0.0, -1.0 / Tf, 1.0], [Ki, -Kd / Tf**2, Kp + Kd / Tf]]])

    def _jacobian(self, x, tau):
        Kp, Ki, Kd, Tf = x
        J = np.zeros((1, 4, 3, 3))
        J[0, 0, 2, 2] = 1.0
        J[0, 1, 2, 0] = 1.0
        J[0, 2, 2, 1], J[0, 2, 2, 2] = -1.0 / Tf**2, 1.0 / Tf
        J[0, 3, 1, 1] = 1.0 / Tf**2
        J[0, 3, 2, 1], J[0, 3, 2, 2] = 2.0 * Kd / Tf**3, -Kd / Tf**2
        return J


STRUCTURES = ("full", "tridiag", "companion")


def _balance(A, B, C):
    """Diagonal similarity making row norms of B equal column norms of C (keeps sparsity)."""
    b = np.linalg.norm(B, axis=1)
    c = np.linalg.norm(C, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where((b > 0) & (c > 0), np.sqrt(b / c), 1.0)
    t = 2.0 ** np.round(np.log2(t))  # powers of two: exact similarity
    T, Ti = np.diag(t), np.diag(1.0 / t)
    return Ti @ A @ T, Ti @ B, C @ T


def _real_modal(A, B, C):
    """Real block-diagonal (hence tridiagonal) modal form of (A, B, C)."""
    lam, V = np.linalg.eig(A)
    order = np.argsort(lam.imag < 0)  # keep pairs together: positive imaginary parts first
    cols, used = [], np.zeros(len(lam), bool)
    for i in range(len(lam)):
        if used[i]:
            continue
        used[i] = True
        if abs(lam[i].imag) <= 1e-12 * max(1.0, abs(lam[i])):
            cols.append(V[:, i].real)
        else:
            j = int(np.argmin(np.where(used, np.inf, np.abs(lam - np.conj(lam[i])))))
            used[j] = True
            v = V[:, i] if lam[i].imag > 0 else V[:, j]
            cols += [v.real, v.imag]
    del order
    T = np.column_stack(cols)
    if np.linalg.cond(T) > 1e10:
        raise ValueError("TunableSS: the initial A is (nearly) defective; use structure='full'")
    Ti = np.linalg.inv(T)
    At = Ti @ A @ T
    At[np.abs(np.subtract.outer(np.arange(len(A)), np.arange(len(A)))) > 1] = 0.0
    return At, Ti @ B, C @ T


def _companion(A, B, C):
    """Similarity to companion form (ones on the subdiagonal, free last column)."""
    n = A.shape[0]
    rng = np.random.default_rng(0)  # a fixed generic input combination
    b = B @ (1.0 + 0.1 * rng.standard_normal(B.shape[1]))
    T = np.column_stack([np.linalg.matrix_power(A, k) @ b for k in range(n)])
    if np.linalg.cond(T) > 1e12:
        raise ValueError("TunableSS: the initial realisation is not controllable enough for "
                         "structure='companion'; use 'tridiag' or 'full'")
    Ti = np.linalg.inv(T)
    At = Ti @ A @ T
    At[:, :-1] = np.eye(n, k=-1)[:, :-1]
    return At, Ti @ B, C @ T


class TunableSS(AffineBlock):
    """Fixed-order state-space block ``(Ak, Bk, Ck, Dk)`` with ``nstates`` states.

    Parameters
    ----------
    name : str
    nstates : int
    inputs, outputs : sequence of str
    structure : {"full", "tridiag", "companion"}
        Free entries of ``Ak``: all; the three diagonals (removes the similarity freedom;
        initial values are brought to real modal form, which is tridiagonal); or the last
        column of a companion matrix with fixed ones on the subdiagonal. ``Bk, Ck, Dk`` are
        full.
    init : control.StateSpace or (A, B, C, D), optional
        Initial value; it is balanced (powers-of-two diagonal similarity) and, for
        "tridiag"/"companion", transformed to that form. Default: ``Ak = -I``, small
        ``Bk, Ck`` (not zero: ``Bk = Ck = 0`` is a saddle of the H-infinity norm).
    balance : bool
        Balance the initial realisation (default); ``False`` keeps it as given (needed when
        ``free`` fixes entries whose values matter, e.g. integrator rows).
    free, scale, lower, upper : optional
        Per-parameter overrides. Default scale: the RMS of the block (A, B, C or D) the
        entry belongs to in the initial value.
    """

    def __init__(self, name, nstates, inputs, outputs, *, structure="tridiag", init=None, balance=True, **kw):
        if structure not in STRUCTURES:
            raise ValueError(f"`structure` must be one of {STRUCTURES}; got {structure!r}")
        ins, outs = _names(inputs, "inputs"), _names(outputs, "outputs")
        n, m, p = int(nstates), len(ins), len(outs)
        if n < 0 or n != nstates:
            raise ValueError(f"`nstates` must be a non-negative integer; got {nstates!r}")
        if init is None:
            A = -np.eye(n)
            B = 0.1 * np.ones((n, m))
            C = 0.1 * np.ones((p, n))
            D = np.zeros((p, m))
        else:
            A, B, C, D = (np.asarray(getattr(init, k), dtype=float) for k in "ABCD") if hasattr(init, "A") \
                else (np.asarray(v, dtype=float) for v in init)
            if A.shape != (n, n) or B.shape != (n, m) or C.shape != (p, n) or D.shape != (p, m):
                raise ValueError(f"`init` must have {n} states, {m} inputs and {p} outputs; got "
                                 f"A {A.shape}, B {B.shape}, C {C.shape}, D {D.shape}")
            if n:
                if structure == "tridiag":
                    A, B, C = _real_modal(A, B, C)
                if structure == "companion":  # a diagonal similarity would break the fixed ones
                    A, B, C = _companion(A, B, C)
                elif balance:
                    A, B, C = _balance(A, B, C)
        self.structure = structure
        r, c = n + p, n + m
        K0 = np.zeros((r, c))
        pos, names, group = [], [], []
        for i in range(n):
            for j in range(n):
                if structure == "full" or (structure == "tridiag" and abs(i - j) <= 1) or \
                        (structure == "companion" and j == n - 1):
                    pos.append((i, j))
                    names.append(f"{name}.A[{i},{j}]")
                    group.append(0)
                elif structure == "companion" and i == j + 1:
                    K0[i, j] = 1.0
        for i in range(n):
            for j in range(m):
                pos.append((i, n + j))
                names.append(f"{name}.B[{i},{j}]")
                group.append(1)
        for i in range(p):
            for j in range(n):
                pos.append((n + i, j))
                names.append(f"{name}.C[{i},{j}]")
                group.append(2)
        for i in range(p):
            for j in range(m):
                pos.append((n + i, n + j))
                names.append(f"{name}.D[{i},{j}]")
                group.append(3)
        full = np.block([[A, B], [C, D]]) if n else D
        value = np.array([full[i, j] for i, j in pos])
        if "scale" not in kw:
            group = np.array(group)
            rms = np.array([np.sqrt(np.mean(value[group == g] ** 2)) if np.any(group == g) else 0.0
                            for g in range(4)])
            floor = 1e-3 * max(rms.max(), 1e-3)
            kw["scale"] = np.maximum(rms[group], floor)
        super().__init__(name, ins, outs, n, names, value, K0, _unit_basis((r, c), pos), **kw)


class TunableTF(TunableBlock):
    """SISO transfer function ``(b_n s^n + ... + b_0) / (s^n + a_{n-1} s^{n-1} + ... + a_0)``.

    Parameters ``b_0..b_n`` (numerator) and ``a_0..a_{n-1}`` (monic denominator), realised
    in controllable companion form: last row of ``A`` is ``-a``, ``B = e_n``,
    ``C = b_{0..n-1} - b_n a``, ``D = b_n`` (nonlinear in (b_n, a): chain rule).
    """

    def __init__(self, name, input, output, num, den, **kw):
        num, den = np.atleast_1d(np.asarray(num, float)), np.atleast_1d(np.asarray(den, float))
        if den.ndim != 1 or len(den) < 1 or den[0] == 0:
            raise ValueError("TunableTF: `den` must be a 1-D coefficient array with a non-zero leading term")
        n = len(den) - 1
        if num.ndim != 1 or len(num) > n + 1:
            raise ValueError(f"TunableTF: `num` must have at most {n + 1} coefficients (proper)")
        num = np.concatenate([np.zeros(n + 1 - len(num)), num]) / den[0]
        den = den / den[0]
        b = num[::-1]  # b_0 .. b_n
        a = den[1:][::-1]  # a_0 .. a_{n-1}
        names = [f"{name}.b{k}" for k in range(n + 1)] + [f"{name}.a{k}" for k in range(n)]
        value = np.concatenate([b, a])
        kw.setdefault("scale", np.maximum(np.abs(value), 1e-2 * max(np.abs(value).max(), 1.0)))
        super().__init__(name, input, output, n, names, value, **kw)
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            raise ValueError("TunableTF: `input` and `output` must be single signal names")

    def _realize(self, x, tau):
        n = self.nstates
        b, a = x[: n + 1], x[n + 1:]
        K = np.zeros((n + 1, n + 1))
        if n:
            K[: n - 1, 1:n] = np.eye(n - 1)
            K[n - 1, :n] = -a
            K[n - 1, n] = 1.0
            K[n, :n] = b[:n] - b[n] * a
        K[n, n] = b[n]
        return K[None]

    def _jacobian(self, x, tau):
        n = self.nstates
        b, a = x[: n + 1], x[n + 1:]
        J = np.zeros((1, 2 * n + 1, n + 1, n + 1))
        for k in range(n):
            J[0, k, n, k] = 1.0
            J[0, n, n, k] = -a[k]
            J[0, n + 1 + k, n - 1, k] = -1.0
            J[0, n + 1 + k, n, k] = -b[n]
        J[0, n, n, n] = 1.0
        return J


class ScheduledBlock(TunableBlock):
    """Affine LPV surface ``S(tau) = M0 + sum_i tau_i M_i`` over an affine base block.

    ``M0`` is the base block (with its fixed structure, e.g. companion ones); each ``M_i``
    has the base block's free pattern (no constant part). The scheduling variables are
    the LFR variables ``v`` of ``vreal`` parameters (``tan(theta/2)`` for an angle with a
    ``tan_half`` transform) shared with the plant, normalised affinely to
    ``tau = (v - centre) / half_width`` in [-1, 1] (``normalize=True``, default) or raw
    (``tau = v``). Paper arXiv:2109.00407 eq. (25) is affine in ``t``; both choices span the
    same family.
    """

    def __init__(self, base: AffineBlock, scheduling, *, normalize=True, init=None):
        if not isinstance(base, AffineBlock):
            raise TypeError("ScheduledBlock: `base` must be an affine block (StaticGain, TunableSS); "
                            f"got {type(base).__name__}")
        sched = tuple(scheduling)
        if not sched or not all(hasattr(p, "variable") and getattr(p, "kind", None) == "varying" for p in sched):
            raise TypeError("ScheduledBlock: `scheduling` must be a sequence of vreal parameters")
        self.base, self.scheduling, self.normalize = base, sched, bool(normalize)
        self.parameter_names = tuple(p.name for p in sched)
        k = len(sched)
        P = base.nparameters
        names = list(base.names) + [f"{nm}@{p.name}" for p in sched for nm in base.names]
        value = np.concatenate([base.value, np.zeros(k * P) if init is None else np.asarray(init, float).ravel()])
        free = np.concatenate([base.free] * (k + 1))
        scale = np.concatenate([base.scale] * (k + 1))
        lower = np.concatenate([base.lower] + [np.full(P, -np.inf)] * k)
        upper = np.concatenate([base.upper] + [np.full(P, np.inf)] * k)
        super().__init__(base.name, base.inputs, base.outputs, base.nstates, names, value, free=free,
                         scale=scale, lower=lower, upper=upper)
        centre, half = [], []
        for p in sched:
            lo, hi = (float(v) for v in p.variable(np.array(p.range)))
            centre.append(0.5 * (lo + hi) if normalize else 0.0)
            half.append(0.5 * (hi - lo) if normalize else 1.0)
        self.centre, self.half = np.array(centre), np.array(half)

    def tau(self, values: dict, n: int) -> np.ndarray:
        """Scheduling variables (n, k) from physical values ``{name: array (n,)}`` (missing: nominal)."""
        cols = []
        for p, c, h in zip(self.scheduling, self.centre, self.half):
            v = np.broadcast_to(np.asarray(values.get(p.name, p.nominal), float), (n,))  # missing: nominal
            cols.append((p.variable(v) - c) / h)
        return np.column_stack(cols) if cols else np.zeros((n, 0))

    def _split(self, x):
        P = self.base.nparameters
        return x[:P], x[P:].reshape(len(self.scheduling), P)

    def _realize(self, x, tau):
        if tau is None:
            raise ValueError(f"scheduled block {self.name!r} needs scheduling values")
        x0, xs = self._split(x)
        coeff = x0[None, :] + tau @ xs  # (N, P)
        return self.base.K0[None] + np.tensordot(coeff, self.base.E, axes=1)

    def _jacobian(self, x, tau):
        if tau is None:
            raise ValueError(f"scheduled block {self.name!r} needs scheduling values")
        E = self.base.E
        weights = np.concatenate([np.ones((len(tau), 1)), tau], axis=1)  # (N, k+1)
        return (weights[:, :, None, None, None] * E[None, None]).reshape(len(tau), -1, *E.shape[1:])
