"""TEST-ONLY contract fixture: a duck-typed object with exactly the LFR contract's attributes.

satdyn.robust reads an LFR only through a small contract (A, B, C, D, blocks[i].parameter /
.size, parameter .name,
.nominal, .range, .kind, .normalize/.denormalize, and lfr.subs). This fixture carries those
attributes for an explicit M-Delta system so the adapters' unpacking, gridding and
unit conversion can be tested. It is NOT a model of satdyn.lfr and lives only in tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ContractParameter:
    """Parameter with an affine map per side: delta = -1 at range[0], 0 at nominal, +1 at range[1]."""

    name: str
    nominal: float
    range: tuple
    kind: str = "uncertain"
    transform: str | None = None

    def normalize(self, value):
        v = np.asarray(value, dtype=float)
        lo, hi = self.range
        return np.where(v >= self.nominal, (v - self.nominal) / (hi - self.nominal),
                        (v - self.nominal) / (self.nominal - lo))

    def denormalize(self, delta):
        d = np.asarray(delta, dtype=float)
        lo, hi = self.range
        return np.where(d >= 0, self.nominal + d * (hi - self.nominal), self.nominal + d * (self.nominal - lo))


@dataclass(frozen=True)
class ContractBlock:
    parameter: ContractParameter
    size: int


class ContractLFR:
    """Upper LFT x' = A x + B [w; u], [z; y] = C x + D [w; u], w = Delta z, Delta channels first."""

    def __init__(self, A, B, C, D, blocks, dt=0):
        self.A, self.B, self.C, self.D = (np.asarray(X, dtype=float) for X in (A, B, C, D))
        self.blocks = tuple(blocks)
        self.dt = dt

    @property
    def nstates(self):
        return self.A.shape[0]

    @property
    def ndelta(self):
        return sum(b.size for b in self.blocks)

    def subs(self, values):
        """Close the Delta channels of the named parameters (physical values)."""
        n = self.nstates
        P = np.block([[self.A, self.B], [self.C, self.D]])
        offsets = np.cumsum([0] + [b.size for b in self.blocks])
        closed, deltas, kept = [], [], []
        for b, start in zip(self.blocks, offsets[:-1]):
            if b.parameter.name in values:
                closed.extend(range(start, start + b.size))
                deltas.extend([float(b.parameter.normalize(values[b.parameter.name]))] * b.size)
            else:
                kept.append(b)
        zc = [n + i for i in closed]  # rows of the closed z channels
        wc = [n + i for i in closed]  # columns of the closed w channels
        rows = [i for i in range(P.shape[0]) if i not in zc]
        cols = [j for j in range(P.shape[1]) if j not in wc]
        Dl = np.diag(deltas)
        K = Dl @ np.linalg.solve(np.eye(len(closed)) - P[np.ix_(zc, wc)] @ Dl, P[np.ix_(zc, cols)])
        Pn = P[np.ix_(rows, cols)] + P[np.ix_(rows, wc)] @ K
        return ContractLFR(Pn[:n, :n], Pn[:n, n:], Pn[n:, :n], Pn[n:, n:], kept, self.dt)


def two_mass_lfr(with_varying_gain=False):
    """Two masses, spring k and damper c uncertain, non-collocated velocity feedback gain g.

    Physical model (also built directly by ``two_mass_A``):
        m1 x1'' = -k0 x1 - k (x1 - x2) - c x1' - g x2' + u,   m2 x2'' = k (x1 - x2) - c2 x2',
        y = x2.
    k = 1 +- 20 %, c = 0.05 +- 50 % (uncertain); g = 0.02 fixed, or varying in [0, 0.04]. The
    non-collocated feedback g makes the loop lose stability within about twice the box.
    Each parameter enters A affinely through one rank-one term, so the LFR is exact.
    """
    m1, m2 = 1.0, 0.5   # c2 = 0.01 enters A0 only, through two_mass_A's default
    k = ContractParameter("k", 1.0, (0.8, 1.2))
    c = ContractParameter("c", 0.05, (0.025, 0.075))
    g = ContractParameter("g", 0.02, (0.0, 0.04), kind="varying")
    A0 = two_mass_A(k.nominal, c.nominal, g.nominal)
    # d A / d k, d A / d c, d A / d g as (column b) (row c^T) with the half-range folded into b
    bk = np.array([0, 0, -1 / m1, 1 / m2]) * 0.2
    ck = np.array([1.0, -1.0, 0, 0])
    bc = np.array([0, 0, -1 / m1, 0]) * 0.025
    cc = np.array([0, 0, 1.0, 0])
    bg = np.array([0, 0, -1 / m1, 0]) * 0.02
    cg = np.array([0, 0, 0, 1.0])
    cols = [bk, bc] + ([bg] if with_varying_gain else [])
    rows = [ck, cc] + ([cg] if with_varying_gain else [])
    nd = len(cols)
    B = np.column_stack(cols + [np.array([0, 0, 1 / m1, 0])])
    C = np.vstack(rows + [np.array([0, 1.0, 0, 0])])
    D = np.zeros((nd + 1, nd + 1))
    blocks = [ContractBlock(k, 1), ContractBlock(c, 1)] + ([ContractBlock(g, 1)] if with_varying_gain else [])
    return ContractLFR(A0, B, C, D, blocks)


def two_mass_A(k, c, g, m1=1.0, m2=0.5, c2=0.01, k0=1.0):
    """State matrix of the physical two-mass model, states [x1, x2, v1, v2]."""
    return np.array([
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [-(k + k0) / m1, k / m1, -c / m1, -g / m1],
        [k / m2, -k / m2, 0, -c2 / m2],
    ])
