"""The LFR object: an immutable upper LFT with real parametric blocks and named signals.

    x' = A x + B [w; u],   [z; y] = C x + D [w; u],   w = Delta z,
    Delta = blockdiag(delta_1 I_{r_1}, ..., delta_k I_{r_k})   (normalised deltas)

i.e. ``y = Fu(M, diag(I/s, Delta)) u``.  Shapes: A (n, n), B (n, ndelta + m),
C (ndelta + p, n), D (ndelta + p, ndelta + m); the Delta channels come first.

Algebra follows numpy: ``@`` is the matrix product (series connection), ``*`` only
with scalars or 1x1 LFRs, ``+``/``-`` need equal shapes (scalars broadcast),
``.T``, ``.inv()``, ``x[rows, cols]`` (indices, slices, signal or group names).
``__array_ufunc__ = None`` keeps ``ndarray * LFR`` from becoming an object array.
"""

from __future__ import annotations

import numpy as np

from . import _core
from .parameters import Block, Parameter
from .signals import check_groups, default_names, expand_names, is_default, resolve, subset_groups

__all__ = ["LFR", "as_lfr"]


class LFR:
    """Upper linear fractional representation with named inputs and outputs.

    Parameters
    ----------
    A : array_like, shape (n, n)
    B : array_like, shape (n, ndelta + m)
    C : array_like, shape (ndelta + p, n)
    D : array_like, shape (ndelta + p, ndelta + m)
    blocks : sequence of Block or (Parameter, size)
        The Delta blocks in channel order; sizes sum to ``ndelta``.
    inputs, outputs : None, str or sequence
        Signal names (see :func:`satdyn.lfr.signals.expand_names`); items
        ``(group, k)`` define named groups (a TITOP port is a group of 6).
    """

    __array_ufunc__ = None

    def __init__(self, A, B, C, D, blocks=(), *, inputs=None, outputs=None):
        A = _matrix(A, "A")
        n = A.shape[0]
        if A.shape != (n, n):
            raise ValueError(f"`A` must be square; got shape {A.shape}")
        B, C, D = _matrix(B, "B"), _matrix(C, "C"), _matrix(D, "D")
        if n == 0:
            B = B.reshape(0, D.shape[1]) if B.size == 0 else B
            C = C.reshape(D.shape[0], 0) if C.size == 0 else C
        blist = []
        for b in blocks:
            if isinstance(b, Block):
                blist.append(b)
            elif isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], Parameter):
                blist.append(Block(b[0], int(b[1])))
            else:
                raise TypeError(f"`blocks` items must be Block or (Parameter, size); got {b!r}")
        if any(b.size < 1 for b in blist):
            raise ValueError("`blocks`: every size must be >= 1")
        nd = sum(b.size for b in blist)
        if B.shape[0] != n or C.shape[1] != n:
            raise ValueError(f"`B` must have {n} rows and `C` {n} columns; got {B.shape}, {C.shape}")
        if D.shape != (C.shape[0], B.shape[1]):
            raise ValueError(f"`D` must have shape {(C.shape[0], B.shape[1])}; got {D.shape}")
        m, p = B.shape[1] - nd, C.shape[0] - nd
        if m < 0 or p < 0:
            raise ValueError(f"`blocks` declare {nd} Delta channels but B has {B.shape[1]} columns, C {C.shape[0]} "
                             "rows")
        M = np.block([[A, B], [C, D]])
        labels = [None] * n + [b.parameter for b in blist for _ in range(b.size)]
        M, nx, blocks_c, labels_c = _core.canonical(M, labels)
        ins, igroups = expand_names(inputs, m, "u", "inputs")
        outs, ogroups = expand_names(outputs, p, "y", "outputs")
        self._set(M, nx, blocks_c, labels_c, ins, outs, igroups, ogroups)

    # --- internal construction -----------------------------------------------------
    def _set(self, M, nx, blocks, labels, inputs, outputs, igroups, ogroups):
        M = np.array(M, dtype=float)
        M.setflags(write=False)
        self._M, self._nx, self._blocks, self._labels = M, nx, tuple(blocks), tuple(labels)
        self._inputs, self._outputs = tuple(inputs), tuple(outputs)
        self._igroups, self._ogroups = dict(igroups or {}), dict(ogroups or {})
        self._cache = {}

    @classmethod
    def _make(cls, M, labels, inputs, outputs, igroups=None, ogroups=None, canonical=True, simplify=True,
              renumber_defaults=True):
        obj = cls.__new__(cls)
        if canonical:
            M, nx, blocks, labels = _core.canonical(M, list(labels))
        if simplify:
            # Every operation that builds an LFR ends here: dead and duplicated Delta
            # channels are removed (exact; states untouched, see simplify.py).
            from .simplify import auto_simplify_enabled, simplify_matrix

            simplify = auto_simplify_enabled()
            if simplify:
                M, labels = simplify_matrix(M, labels)
        if simplify or not canonical:
            nx = sum(1 for lab in labels if lab is None)
            blocks = _blocks_of(labels[nx:])
        inputs, outputs = tuple(inputs), tuple(outputs)
        # Operations renumber default names (selecting y[1], y[2] gives y[0], y[1], as
        # python-control does); names a user chose by `rename` are kept as given.
        if renumber_defaults:
            if len(set(inputs)) != len(inputs) or (is_default(inputs) and inputs != default_names("u", len(inputs))):
                inputs, igroups = default_names("u", len(inputs)), None
            if (len(set(outputs)) != len(outputs)
                    or (is_default(outputs) and outputs != default_names("y", len(outputs)))):
                outputs, ogroups = default_names("y", len(outputs)), None
        obj._set(M, nx, blocks, labels, inputs, outputs, igroups, ogroups)
        return obj

    def _with_names(self, inputs=None, outputs=None, igroups=None, ogroups=None):
        return LFR._make(
            self._M, self._labels,
            self._inputs if inputs is None else inputs, self._outputs if outputs is None else outputs,
            self._igroups if inputs is None else igroups, self._ogroups if outputs is None else ogroups,
            canonical=False, simplify=False,
        )

    @classmethod
    def _from_parameter(cls, parameter: Parameter) -> "LFR":
        return cls._make(parameter.lfr_matrix, [parameter], ("u[0]",), ("y[0]",), canonical=False, simplify=False)

    @classmethod
    def _from_array(cls, value) -> "LFR":
        D = np.atleast_2d(np.asarray(value, dtype=float))
        p, m = D.shape
        return cls._make(D, [], default_names("u", m), default_names("y", p), canonical=False, simplify=False)

    # --- contract attributes ----------------------------------------------------------
    @property
    def A(self) -> np.ndarray:
        return self._M[: self._nx, : self._nx]

    @property
    def B(self) -> np.ndarray:
        return self._M[: self._nx, self._nx:]

    @property
    def C(self) -> np.ndarray:
        return self._M[self._nx:, : self._nx]

    @property
    def D(self) -> np.ndarray:
        return self._M[self._nx:, self._nx:]

    @property
    def M(self) -> np.ndarray:
        """Full matrix ``[[A, B], [C, D]]`` (loop channels: states, then Delta)."""
        return self._M

    @property
    def nstates(self) -> int:
        return self._nx

    @property
    def ndelta(self) -> int:
        return len(self._labels) - self._nx

    @property
    def _nloop(self) -> int:
        return len(self._labels)

    @property
    def ninputs(self) -> int:
        return self._M.shape[1] - len(self._labels)

    @property
    def noutputs(self) -> int:
        return self._M.shape[0] - len(self._labels)

    @property
    def shape(self) -> tuple[int, int]:
        """``(noutputs, ninputs)``."""
        return (self.noutputs, self.ninputs)

    @property
    def input_names(self) -> tuple[str, ...]:
        return self._inputs

    @property
    def output_names(self) -> tuple[str, ...]:
        return self._outputs

    @property
    def input_groups(self) -> dict:
        return dict(self._igroups)

    @property
    def output_groups(self) -> dict:
        return dict(self._ogroups)

    @property
    def blocks(self) -> tuple[Block, ...]:
        return self._blocks

    @property
    def occurrences(self) -> dict[str, int]:
        """``{name: number of Delta channels}`` (MATLAB's "occurrences"), in block order."""
        return {b.name: b.size for b in self._blocks}

    @property
    def parameters(self) -> dict[str, Parameter]:
        """``{name: Parameter}`` in block order."""
        cached = self._cache.get("parameters")
        if cached is None:
            cached = self._cache["parameters"] = {b.name: b.parameter for b in self._blocks}
        return dict(cached)

    @property
    def is_static(self) -> bool:
        return self._nx == 0

    def __repr__(self) -> str:
        blocks = ", ".join(f"{b.name}x{b.size}" for b in self._blocks) or "none"
        return (
            f"<LFR {self.noutputs}x{self.ninputs}, {self._nx} states, {self.ndelta} Delta channels "
            f"[{blocks}], inputs {list(self._inputs[:6])}{'...' if self.ninputs > 6 else ''}, "
            f"outputs {list(self._outputs[:6])}{'...' if self.noutputs > 6 else ''}>"
        )

    # --- renaming -------------------------------------------------------------------
    def rename(self, inputs=None, outputs=None) -> "LFR":
        """Copy with new input and/or output names (same specification as the constructor)."""
        ins, ig = (self._inputs, self._igroups) if inputs is None else expand_names(inputs, self.ninputs, "u", "inputs")
        outs, og = ((self._outputs, self._ogroups) if outputs is None
                    else expand_names(outputs, self.noutputs, "y", "outputs"))
        return LFR._make(self._M, self._labels, ins, outs, ig, og, canonical=False, simplify=False,
                         renumber_defaults=False)

    def with_groups(self, inputs: dict | None = None, outputs: dict | None = None) -> "LFR":
        """Copy with additional named groups ``{group: [signal names]}``."""
        ig = {**self._igroups, **{k: tuple(v) for k, v in (inputs or {}).items()}}
        og = {**self._ogroups, **{k: tuple(v) for k, v in (outputs or {}).items()}}
        check_groups(self._inputs, ig, "input groups")
        check_groups(self._outputs, og, "output groups")
        return LFR._make(self._M, self._labels, self._inputs, self._outputs, ig, og, canonical=False, simplify=False)

    def input_index(self, key) -> list[int]:
        """Input indices of an int, slice, name, group name or list of these."""
        return resolve(key, self._inputs, self._igroups, "input")

    def output_index(self, key) -> list[int]:
        """Output indices of an int, slice, name, group name or list of these."""
        return resolve(key, self._outputs, self._ogroups, "output")

    # --- selection --------------------------------------------------------------------
    def __getitem__(self, key) -> "LFR":
        rows, cols = key if isinstance(key, tuple) and len(key) == 2 else (key, slice(None))
        r, c = self.output_index(rows), self.input_index(cols)
        q = self._nloop
        M = self._M[np.ix_(list(range(q)) + [q + i for i in r], list(range(q)) + [q + j for j in c])]
        outs, og = subset_groups(self._outputs, self._ogroups, r)
        ins, ig = subset_groups(self._inputs, self._igroups, c)
        return LFR._make(M, self._labels, ins, outs, ig, og, canonical=False)

    # --- algebra ----------------------------------------------------------------------
    def __add__(self, other):
        other = _coerce_like(other, self)
        if other is NotImplemented:
            return NotImplemented
        return _add(self, other)

    def __radd__(self, other):
        other = _coerce_like(other, self)
        if other is NotImplemented:
            return NotImplemented
        return _add(other, self)

    def __sub__(self, other):
        other = _coerce_like(other, self)
        if other is NotImplemented:
            return NotImplemented
        return _add(self, -other)

    def __rsub__(self, other):
        other = _coerce_like(other, self)
        if other is NotImplemented:
            return NotImplemented
        return _add(other, -self)

    def __neg__(self):
        return _scale(self, -1.0)

    def __pos__(self):
        return self

    def __matmul__(self, other):
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        return _series(self, other)

    def __rmatmul__(self, other):
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        return _series(other, self)

    def __mul__(self, other):
        return _multiply(self, other)

    def __rmul__(self, other):
        return _multiply(other, self)

    def __truediv__(self, other):
        if _is_scalar(other):
            return _scale(self, 1.0 / float(np.asarray(other).reshape(())))
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        if other.shape != (1, 1):
            raise TypeError(f"LFR / x needs x scalar or 1x1; got shape {other.shape} (use @ with .inv())")
        return _multiply(self, other.inv(), divisor_last=True)

    def __rtruediv__(self, other):
        if self.shape != (1, 1):
            raise TypeError(f"x / LFR needs a 1x1 LFR; got shape {self.shape} (use .inv())")
        return _multiply(other, self.inv(), divisor_last=True)

    def __pow__(self, exponent):
        if not isinstance(exponent, (int, np.integer)):
            raise TypeError(f"LFR ** k needs an integer k; got {exponent!r}")
        if self.noutputs != self.ninputs:
            raise ValueError(f"LFR ** k needs a square LFR; got shape {self.shape}")
        base = self if exponent >= 0 else self.inv()
        out = LFR._from_array(np.eye(self.ninputs))._with_names(self._inputs, self._inputs,
                                                                self._igroups, self._igroups)
        for _ in range(abs(int(exponent))):
            out = base @ out
        return out

    @property
    def T(self) -> "LFR":
        """Transpose (``G(s)^T``; input and output names swap)."""
        return LFR._make(self._M.T, self._labels, self._outputs, self._inputs, self._ogroups, self._igroups,
                         canonical=False, simplify=False)  # the rules are symmetric: stays simplified

    def transpose(self) -> "LFR":
        return self.T

    def inv(self) -> "LFR":
        """Inverse ``u = X^{-1} y`` (needs a square, invertible feedthrough ``D_yu``).

        The inverse's inputs are this LFR's outputs and vice versa.
        """
        if self.noutputs != self.ninputs:
            raise ValueError(f"inverse needs a square LFR; got shape {self.shape}")
        q = self._nloop
        P, Q, R, S = self._M[:q, :q], self._M[:q, q:], self._M[q:, :q], self._M[q:, q:]
        if S.size and np.linalg.cond(S) > 1e12:
            raise ValueError("inverse: the feedthrough D_yu is singular (cond > 1e12); not invertible as an LFR")
        Si = np.linalg.inv(S) if S.size else S
        M = np.block([[P - Q @ Si @ R, Q @ Si], [-Si @ R, Si]])
        return LFR._make(M, self._labels, self._outputs, self._inputs, self._ogroups, self._igroups, canonical=False)

    # --- evaluation (see evaluate.py) --------------------------------------------------
    def evaluate(self, values=None, *, strict: bool = True):
        """Value at one parameter point (physical values; missing ones at nominal):
        ``control.StateSpace`` (ndarray (p, m) when static).  Unknown names raise
        unless ``strict=False``."""
        from .evaluate import evaluate

        return evaluate(self, values, strict=strict)

    def evaluate_batch(self, values=None, *, chunk: int | None = None, strict: bool = True, progress=None,
                       reduce: bool = True):
        """Values at N points (dict of arrays (N,)): ``StateSpaceBatch`` or (N, p, m) array.
        ``reduce=True`` first removes Delta channels that do not change A, B, C, D."""
        from .evaluate import evaluate_batch

        return evaluate_batch(self, values, chunk=chunk, strict=strict, progress=progress, reduce=reduce)

    def nominal(self):
        """Value at the nominal point (all deltas 0)."""
        return self.evaluate({})

    def subs(self, values, *, strict: bool = True) -> "LFR":
        """Partial substitution: LFR without the blocks of the given parameters."""
        from .evaluate import subs

        return subs(self, values, strict=strict)

    def sample(self, n: int, rng=None, *, kinds=None, reduce: bool = True):
        """``n`` uniform random samples in the parameter box (see :func:`satdyn.lfr.evaluate.sample`)."""
        from .evaluate import sample

        return sample(self, n, rng, kinds=kinds, reduce=reduce)

    def freqresp(self, omega, values=None, *, strict: bool = True):
        """Frequency response at ``omega`` [rad/s] (see :func:`satdyn.lfr.evaluate.freqresp`)."""
        from .evaluate import freqresp

        return freqresp(self, omega, values, strict=strict)

    def reduce(self, tol: float = 1e-10, *, method: str = "nd", states: bool = True) -> "LFR":
        """Remove uncontrollable/unobservable Delta channels and states (see reduce.py)."""
        from .reduce import reduce

        return reduce(self, tol, method=method, states=states)

    def to_statespace(self, values=None):
        """``control.StateSpace`` at ``values`` (default nominal), also for a static LFR."""
        from .convert import to_statespace

        values = dict(values or {})
        closed = self.subs({**{b.name: b.nominal for b in self._blocks}, **values})
        return to_statespace(closed.A, closed.B, closed.C, closed.D, self._inputs, self._outputs)


# --- helpers for the algebra -------------------------------------------------------------
def _matrix(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a numeric matrix; got {type(value).__name__}") from None
    if arr.ndim != 2:
        if arr.size == 0:
            return arr.reshape(0, 0)
        raise ValueError(f"`{name}` must be 2-D; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must be finite")
    return arr


def _blocks_of(labels) -> tuple[Block, ...]:
    blocks: list[Block] = []
    for lab in labels:
        if blocks and blocks[-1].parameter is lab:
            blocks[-1] = Block(lab, blocks[-1].size + 1)
        elif blocks and blocks[-1].parameter == lab:
            blocks[-1] = Block(blocks[-1].parameter, blocks[-1].size + 1)
        else:
            blocks.append(Block(lab, 1))
    return tuple(blocks)


def _is_scalar(x) -> bool:
    """A real number (Python, numpy scalar, or a size-1 numeric array)."""
    if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool):
        return True
    return isinstance(x, np.ndarray) and x.size == 1 and x.dtype.kind in "iuf"


def as_lfr(value) -> LFR:
    """Convert numbers, 2-D arrays (possibly with LFR / Parameter entries), Parameters,
    ``control.StateSpace`` / ``TransferFunction`` to an LFR."""
    out = _coerce(value)
    if out is NotImplemented:
        raise TypeError(f"cannot convert {type(value).__name__} to an LFR")
    return out


def _coerce(value):
    if isinstance(value, LFR):
        return value
    if isinstance(value, Parameter):
        return value.lfr
    try:
        import control
    except ImportError:  # pragma: no cover - control is a hard dependency
        control = None
    if control is not None:
        if isinstance(value, control.TransferFunction):
            value = control.ss(value)
        if isinstance(value, control.StateSpace):
            from .convert import from_statespace

            return from_statespace(value)
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.dtype == object):
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return _from_nested(value)
        if arr.ndim > 2 and isinstance(value, (list, tuple)):
            arr = np.block(value)  # a nested list of blocks, as np.block
        value = arr
    if _is_scalar(value) or isinstance(value, np.ndarray):
        arr = np.asarray(value, dtype=float)
        if arr.ndim > 2 or arr.ndim == 1:
            raise ValueError(f"an array used as an LFR must be a scalar or 2-D; got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("an array used as an LFR must be finite")
        return LFR._from_array(arr)
    return NotImplemented


def _from_nested(value) -> LFR:
    rows = [list(r) if isinstance(r, (list, tuple, np.ndarray)) else [r] for r in value]
    from .algebra import hstack, vstack

    return vstack([hstack([as_lfr(e) for e in row]) for row in rows])


def _coerce_like(value, like: LFR):
    """Coerce for + / -: a scalar (or 1x1) broadcasts to ``like``'s shape."""
    if _is_scalar(value):
        return LFR._from_array(np.full(like.shape, float(np.asarray(value).reshape(()))))
    out = _coerce(value)
    if out is NotImplemented:
        return out
    if out.shape == (1, 1) and like.shape != (1, 1):
        p, m = like.shape
        out = LFR._from_array(np.ones((p, 1))) @ out @ LFR._from_array(np.ones((1, m)))
    return out


def _pick_names(first: LFR, second: LFR, side: str):
    a, b = (first, second)
    if side == "in":
        if is_default(a._inputs) and not is_default(b._inputs):
            return b._inputs, b._igroups
        return a._inputs, a._igroups
    if is_default(a._outputs) and not is_default(b._outputs):
        return b._outputs, b._ogroups
    return a._outputs, a._ogroups


def _add(x: LFR, y: LFR) -> LFR:
    if x.shape != y.shape:
        raise ValueError(f"cannot add LFRs of shapes {x.shape} and {y.shape}")
    M, labels, p_all, m_all = _core.blockdiag_open([x, y])
    p, m = x.shape
    K = np.zeros((m_all, p_all))
    E = np.vstack([np.eye(m), np.eye(m)])
    F = np.hstack([np.eye(p), np.eye(p)])
    out = _core.close(M, len(labels), K, E, F, np.zeros((p, m)))
    ins, ig = _pick_names(x, y, "in")
    outs, og = _pick_names(x, y, "out")
    return LFR._make(out, labels, ins, outs, ig, og)


def _series(x: LFR, y: LFR) -> LFR:
    """``x @ y``: y's outputs feed x's inputs."""
    if x.ninputs != y.noutputs:
        raise ValueError(f"matmul: shapes {x.shape} and {y.shape} do not align (x.ninputs != y.noutputs)")
    M, labels, p_all, m_all = _core.blockdiag_open([x, y])
    (px, mx), (py, my) = x.shape, y.shape
    K = np.zeros((m_all, p_all))
    K[:mx, px:] = np.eye(mx)
    E = np.vstack([np.zeros((mx, my)), np.eye(my)])
    F = np.hstack([np.eye(px), np.zeros((px, py))])
    out = _core.close(M, len(labels), K, E, F, np.zeros((px, my)))
    return LFR._make(out, labels, y._inputs, x._outputs, y._igroups, x._ogroups)


def _scale(x: LFR, factor: float) -> LFR:
    M = np.array(x._M)
    M[x._nloop:, :] *= factor
    return LFR._make(M, x._labels, x._inputs, x._outputs, x._igroups, x._ogroups, canonical=False)


def _right_outermost(a: LFR, b: LFR, divisor_last: bool) -> bool:
    """Nesting of a product of two 1x1 LFRs ``a * b`` (default: ``a`` outermost).

    * ``a / b``: the divisor's inverse outermost, so a common denominator written last
      (``k/m1 x1 - k/m1 x2 + u/m1``) folds into one channel;
    * two factors of one parameter each: the parameter whose name sorts first outermost,
      so ``omega * omega`` and ``2 zeta * omega`` share their outer ``omega``.
    """
    if divisor_last:
        return True
    if len(a._blocks) == 1 and len(b._blocks) == 1:
        return b._blocks[0].name < a._blocks[0].name
    return False


def _multiply(a, b, divisor_last: bool = False) -> LFR:
    if _is_scalar(a) and isinstance(b, LFR):
        return _scale(b, float(np.asarray(a).reshape(())))
    if _is_scalar(b) and isinstance(a, LFR):
        return _scale(a, float(np.asarray(b).reshape(())))
    ca, cb = _coerce(a), _coerce(b)
    if ca is NotImplemented or cb is NotImplemented:
        return NotImplemented
    if ca.shape == (1, 1) and cb.shape == (1, 1) and _right_outermost(ca, cb, divisor_last):
        # Scalars commute: realise the product so that equal expressions get equal
        # nesting, which the automatic simplification can then share (see _right_outermost).
        return (cb @ ca)._with_names(ca._inputs, cb._outputs, ca._igroups, cb._ogroups)
    if ca.shape == (1, 1):
        scalar, other = ca, cb
    elif cb.shape == (1, 1):
        scalar, other = cb, ca
    else:
        raise TypeError(
            f"`*` is defined only with scalars or 1x1 LFRs; got shapes {ca.shape} and {cb.shape} "
            "(use `@` for the matrix product)"
        )
    from .algebra import blockdiag

    p, m = other.shape
    # Repeat the scalar on the smaller side: min(p, m) copies of its Delta channels.
    if m < p:
        out = other @ blockdiag([scalar] * m)
    else:
        out = blockdiag([scalar] * p) @ other
    return out._with_names(other._inputs, other._outputs, other._igroups, other._ogroups)
