"""Batch-last recursive sweeps: the numerical core of forward and inverse dynamics.

``articulated_body_sweep(model, q, v, tau, f_ext, t, work=None)`` and
``newton_euler_sweep(model, q, v, a, f_ext, t, full=False)`` take flat batch-first inputs
``q`` (N, nq), ``v`` (N, nv), ``tau``/``a`` (N, nv) and ``f_ext`` (N, n_bodies, 6) or None
(every load on each body, at its origin, body frame), and return batch-first results. They
hold no input checks: the public functions validate.
``work`` is a :class:`Workspace` (scratch arrays reused over the blocks of one call).

Why a second layout: numpy runs an elementwise operation as an inner loop over the last
axis. With the batch first, the 3- and 6-vectors of a sweep put a 3- or 6-long inner loop
under every operation and the sweep is dominated by loop overhead; here every vector is
stored ``(6, N)``, every rotation ``(3, 3, N)`` and every articulated inertia ``(6, 6, N)``,
so each operation is one long contiguous loop, and the rotations and cross products are
written out by component. A revolute joint about a frame axis (``R = P0 E(theta)``, E a plane
rotation) moves motions, wrenches and articulated inertias by a constant 6x6 product and a 2x2
mixing of rows (:mod:`.aligned_revolute`); other joints' congruence ``X^T I X`` is done batch-first
by ``np.matmul``'s stacked 6x6 products. A revolute joint's placement is linear in
``(1, sin, 1 - cos)`` of its angle; its ``R`` and its 6x6 ``X`` are one small matrix product
with constant bases built once per model (:func:`sweep_constants`).

The equations are those of :mod:`~satdyn.multibody.forward_dynamics` (articulated sweep,
arXiv:2505.03248 §3.6 option b) and :mod:`~satdyn.multibody.inverse_dynamics` (eq. 29, 35, 45, 65).
"""

from __future__ import annotations

import numpy as np

from ..spatial.unchecked import skew as _skew  # trusted inputs: inner loop
from .aligned_revolute import aligned_force_to_parent, aligned_motion_to_child, congruence_axis
from .joints import joint_placement
from .motion import motion_transform_to_child

__all__ = ["sweep_constants", "Workspace", "articulated_body_sweep", "newton_euler_sweep", "cross3", "rotate",
           "rotate_back"]


class _BodyConstants:
    """What the sweeps need of one body, computed once per model."""

    __slots__ = ("kind", "parent", "nv", "q_slice", "v_slice", "inertia", "subspace", "axis_index",
                 "rodrigues", "x_basis", "rotation", "position", "rest", "joint", "selects", "mix", "fixed_T")

    def __init__(self, model, i):
        joint = model.joints[i]
        self.joint = joint
        self.kind = joint.kind
        self.parent = model.parents[i]
        self.nv = joint.nv
        self.q_slice = model.q_slice(i)
        self.v_slice = model.v_slice(i)
        self.inertia = np.ascontiguousarray(model.spatial_inertias[i])
        self.subspace = joint.motion_subspace
        self.axis_index = joint.axis_index
        # Rates that are a plain selection of the 6-vector: S = I (free root) or S = [0; I] (ball).
        self.selects = {"floating": slice(0, 6), "floating_euler": slice(0, 6),
                        "spherical": slice(3, 6)}.get(joint.kind)
        self.rotation = np.array(joint.rotation)[:, :, None]
        self.position = np.array(joint.position)[:, None]
        self.rodrigues = self.x_basis = None
        if joint.kind == "revolute":
            basis = joint.rodrigues_basis.reshape(3, 3, 3)            # (k, i, j): R = sum_k c_k basis[k]
            self.rodrigues = np.ascontiguousarray(basis.reshape(3, 9).T)  # (9, 3): R_flat = rodrigues @ c
            # X = [[R^T, -R^T skew(p)], [0, R^T]] is linear in R, hence in c (p is constant).
            X = np.zeros((3, 6, 6))
            for k in range(3):
                Bt = basis[k].T
                X[k, :3, :3] = Bt
                X[k, 3:, 3:] = Bt
                X[k, :3, 3:] = -Bt @ _skew(joint.position)
            self.x_basis = X.reshape(3, 36)
        # Revolute about +e_k of the joint frame: R = P0 E(theta), E a plane rotation of the axes (j, l),
        # X = blockdiag(E^T) X_fixed with X_fixed = [[P0^T, -P0^T skew(p)], [0, P0^T]] constant, so
        # X^T I X = X_fixed^T (E_b I E_b^T) X_fixed: a 2x2 mixing of rows/columns, then two constant products.
        self.mix = self.fixed_T = None
        if joint.kind == "revolute" and self.axis_index is not None:
            k = self.axis_index - 3
            self.mix = ((k + 1) % 3, (k + 2) % 3)
            self.fixed_T = np.ascontiguousarray(self.x_basis[0].reshape(6, 6).T)


def sweep_constants(model):
    """Per-body constants of ``model`` for the sweeps (cached on the immutable model)."""
    return model._sweep_constants


def build_sweep_constants(model):
    return tuple(_BodyConstants(model, i) for i in range(model.n_bodies))


# ---- 3-vector algebra, batch-last: a (3, N) or (3, 1), R (3, 3, N) or (3, 3, 1) -----------------------------

def cross3(a, b):
    """``a x b`` for batch-last 3-vectors (3, N)."""
    return np.stack((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


def rotate(R, x):
    """``R x`` (3, N)."""
    return R[:, 0] * x[0] + R[:, 1] * x[1] + R[:, 2] * x[2]


def rotate_back(R, x):
    """``R^T x`` (3, N)."""
    return R[0] * x[0] + R[1] * x[1] + R[2] * x[2]


def _rotate_pair(R, m):
    """``[R m_lin; R m_ang]`` (6, N): both halves of a 6-vector in one pass."""
    mm = m.reshape(2, 3, -1)
    return (R[:, 0] * mm[:, :1] + R[:, 1] * mm[:, 1:2] + R[:, 2] * mm[:, 2:]).reshape(6, -1)


def _rotate_pair_back(R, m):
    """``[R^T m_lin; R^T m_ang]`` (6, N)."""
    mm = m.reshape(2, 3, -1)
    return (R[0] * mm[:, :1] + R[1] * mm[:, 1:2] + R[2] * mm[:, 2:]).reshape(6, -1)


def _motion_to_child(R, p, m):
    """Parent-frame motion at the parent origin -> child frame at the child origin (6, N)."""
    shifted = np.array(m)
    shifted[:3] += cross3(m[3:], p)
    return _rotate_pair_back(R, shifted)


def _force_to_parent(R, p, f):
    """Child-frame wrench at the child origin -> parent frame at the parent origin (6, N)."""
    out = _rotate_pair(R, f)
    out[3:] += cross3(p, out[:3])
    return out


def _cross_pair(a, m):
    """``[a x m_lin; a x m_ang]`` (6, N) for a 3-vector a (3, N) and a 6-vector m (6, N)."""
    mm = m.reshape(2, 3, -1)
    return np.stack((a[1] * mm[:, 2] - a[2] * mm[:, 1], a[2] * mm[:, 0] - a[0] * mm[:, 2],
                     a[0] * mm[:, 1] - a[1] * mm[:, 0]), axis=1).reshape(6, -1)


def _cross_motion(v, m):
    """``v x m`` = ``[w x m_lin + u x m_ang; w x m_ang]`` (6, N), ``v = [u; w]``."""
    out = _cross_pair(v[3:], m)
    out[:3] += cross3(v[:3], m[3:])
    return out


def _cross_unit(v, index, rate):
    """``v x (rate e_index)`` (6, N) for a unit 6-vector ``e_index`` (frame-aligned joint axis).

    Angular axis ``e_k``: ``[u x e_k; w x e_k] rate``; linear axis: ``[w x e_k; 0] rate``
    (``v = [u; w]``), with ``(a x e_k)_j = a_l``, ``(a x e_k)_l = -a_j`` for ``(k, j, l)`` cyclic.
    """
    out = np.zeros_like(v)
    k = index % 3
    j, l = (k + 1) % 3, (k + 2) % 3
    pairs = ((0, v[:3]), (3, v[3:])) if index >= 3 else ((0, v[3:]),)
    for half, a in pairs:
        out[half + j] = a[l] * rate
        out[half + l] = -a[j] * rate
    return out


def _unit_cross_support(index):
    """Components of ``_cross_unit(v, index, rate)`` that can be non-zero."""
    k = index % 3
    j, l = (k + 1) % 3, (k + 2) % 3
    return (j, l, j + 3, l + 3) if index >= 3 else (j, l)


def _cross_force(v, f):
    """``v x* f`` = ``[w x F; u x F + w x T]`` (6, N), ``v = [u; w]`` (arXiv:2505.03248's C(x') f)."""
    out = _cross_pair(v[3:], f)
    out[3:] += cross3(v[:3], f[:3])
    return out


def _matvec(M, x, support=range(6)):
    """``M x`` for (6, 6, N) or (6, 6, 1) M and (6, N) x, whose non-zero components are in ``support``."""
    first, *rest = support
    out = M[:, first] * x[first]
    for j in rest:
        out += M[:, j] * x[j]
    return out


# ---- kinematics -------------------------------------------------------------------------------------------

def _dcm_from_quaternion(quat):
    """``P`` (3, 3, N) of batch-last quaternions ``[x, y, z, w]`` (4, N), normalised first (as scipy's)."""
    x, y, z, w = quat / np.sqrt((quat * quat).sum(0))
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return np.stack((x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw),
                     2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw),
                     2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2)).reshape(3, 3, -1)


class _Pass:
    """Placements, twists and velocity-product terms of every body, batch-last."""

    __slots__ = ("R", "p", "X", "twist", "bias", "root_acceleration", "first", "cos_sin")

    def __init__(self, model, consts, q, v, t):
        n = q.shape[0]
        qT = np.ascontiguousarray(q.T)
        vT = np.ascontiguousarray(v.T)
        nb = len(consts)
        self.R, self.p, self.X = [None] * nb, [None] * nb, [None] * nb
        self.twist, self.bias = [None] * nb, [None] * nb
        self.first = [None] * nb          # batch-first (R, p) of joints placed by joint_placement
        self.cos_sin = [None] * nb        # revolute: (cos, sin) of the joint angle (N,)
        g = model.gravity
        for i, c in enumerate(consts):
            vj = vT[c.v_slice]
            if c.kind == "revolute":
                th = qT[c.q_slice.start]
                cos, sin = np.cos(th), np.sin(th)
                coeffs = np.stack((np.ones(n), sin, 1.0 - cos))                    # (3, N)
                self.cos_sin[i] = (cos, sin)
                R = (c.rodrigues @ coeffs).reshape(3, 3, n)
                p = c.position
                self.X[i] = coeffs          # X is built when needed (hot in cache), see transform()
            elif c.kind in ("weld", "fixed"):
                R, p = c.rotation, c.position
            elif c.kind == "floating":
                R = _dcm_from_quaternion(qT[c.q_slice.start + 3:c.q_slice.stop])
                p = qT[c.q_slice.start:c.q_slice.start + 3]
            elif c.kind == "prescribed":
                pos, P, twist, acc = c.joint.motion(t)
                R = np.asarray(P, float).reshape(3, 3)[:, :, None]
                p = np.asarray(pos, float).reshape(3, 1)
            else:
                Rf, pf = joint_placement(c.joint, q[:, c.q_slice])
                self.first[i] = (Rf, pf)
                R = np.ascontiguousarray(np.moveaxis(Rf, 0, -1))
                p = np.ascontiguousarray(pf.T)
            if c.parent < 0:
                # Gravity as an upward acceleration of the inertial frame (arXiv:2505.03248 eq. 29, "x_dot' - g").
                up = -rotate_back(R, g[:, None])
                ghost = np.concatenate((up, np.zeros_like(up)))
                ghost = np.broadcast_to(ghost, (6, n))
                if c.kind == "prescribed":
                    self.twist[i] = np.broadcast_to(np.asarray(twist, float).reshape(6, 1), (6, n)).copy()
                    self.root_acceleration = ghost + np.asarray(acc, float).reshape(6, 1)
                else:
                    self.twist[i] = c.subspace @ vj if c.nv else np.zeros((6, n))
                    self.root_acceleration = ghost
                self.bias[i] = None
            else:
                child = aligned_motion_to_child(c, *self.cos_sin[i], self.twist[c.parent]) \
                    if c.mix is not None else _motion_to_child(R, p, self.twist[c.parent])
                if c.axis_index is not None:            # S qd has one non-zero component
                    rate = vj[0]
                    child[c.axis_index] += rate
                    self.bias[i] = _cross_unit(child, c.axis_index, rate)
                else:
                    joint_twist = c.subspace @ vj
                    child += joint_twist
                    self.bias[i] = _cross_motion(child, joint_twist)
                self.twist[i] = child
            self.R[i], self.p[i] = R, p

    def to_child(self, i, c, m):
        """Motion ``m`` (6, N) of the parent (at its origin, its frame) in body i's frame at its origin."""
        if c.mix is not None:
            return aligned_motion_to_child(c, *self.cos_sin[i], m)
        return _motion_to_child(self.R[i], self.p[i], m)

    def to_parent(self, i, c, f):
        """Wrench ``f`` (6, N) on body i (at its origin, its frame) in the parent's frame at its origin."""
        if c.mix is not None:
            return aligned_force_to_parent(c, *self.cos_sin[i], f)
        return _force_to_parent(self.R[i], self.p[i], f)

    def transform(self, i, c, n, out=None):
        """Batch-first 6x6 ``X`` (N, 6, 6) or (1, 6, 6) of body i (motion: parent origin -> child).

        ``out``: an (N, 6, 6) buffer for the revolute case (its ``X`` is ``coeffs^T @ x_basis``).
        """
        if self.X[i] is not None:
            coeffs = self.X[i]
            if out is None:
                return (coeffs.T @ c.x_basis).reshape(n, 6, 6)
            np.matmul(coeffs.T, c.x_basis, out=out.reshape(n, 36))
            return out
        if self.first[i] is not None:
            return motion_transform_to_child(*self.first[i])
        R, p = self.R[i], self.p[i]
        if R.shape[-1] == 1 and p.shape[-1] == 1:
            return motion_transform_to_child(R[:, :, 0][None], p[:, 0][None])
        return motion_transform_to_child(np.moveaxis(np.broadcast_to(R, (3, 3, n)), -1, 0),
                                         np.broadcast_to(p, (3, n)).T)


def _inverse3(A):
    """Inverse of a stack of 3x3 matrices by the adjugate (LAPACK's per-matrix overhead dominates here)."""
    a, b, c = A[:, 0, 0], A[:, 0, 1], A[:, 0, 2]
    d, e, f = A[:, 1, 0], A[:, 1, 1], A[:, 1, 2]
    g, h, i = A[:, 2, 0], A[:, 2, 1], A[:, 2, 2]
    co = np.stack([e * i - f * h, c * h - b * i, b * f - c * e,
                   f * g - d * i, a * i - c * g, c * d - a * f,
                   d * h - e * g, b * g - a * h, a * e - b * d], axis=1).reshape(-1, 3, 3)
    det = a * co[:, 0, 0] + b * co[:, 1, 0] + c * co[:, 2, 0]
    return co / det[:, None, None]


def _inverse(D):
    """Inverse of the (N, k, k) apparent inertias: 3x3 adjugate, 6x6 by Schur complement of the 3x3 blocks."""
    k = D.shape[-1]
    if D.shape[0] < 64:  # small batches: LAPACK's per-call cost is lower than ~30 numpy calls
        return np.linalg.inv(D)
    if k == 3:
        return _inverse3(D)
    if k != 6:
        return np.linalg.inv(D)
    A, B, C = D[:, :3, :3], D[:, :3, 3:], D[:, 3:, 3:]
    Ai = _inverse3(A)
    AiB = Ai @ B
    Si = _inverse3(C - np.swapaxes(B, -1, -2) @ AiB)
    top_right = -AiB @ Si
    out = np.empty_like(D)
    out[:, :3, :3] = Ai - top_right @ np.swapaxes(AiB, -1, -2)
    out[:, :3, 3:] = top_right
    out[:, 3:, :3] = np.swapaxes(top_right, -1, -2)
    out[:, 3:, 3:] = Si
    return out


class Workspace:
    """Large scratch arrays of :func:`articulated_body_sweep`, reused over the blocks of one call.

    Fresh (N, 6, 6) temporaries cost more in page faults than the arithmetic done on them;
    one workspace per ``forward_dynamics`` call serves all its blocks of up to ``n`` samples.
    """

    def __init__(self, model, n):
        nb = model.n_bodies
        self.n = n
        self.X = np.empty((n, 6, 6))                # batch-first motion transform of the current body
        self.IA = np.empty((nb, 6, 6, n))           # articulated-inertia accumulators, batch-last
        self.first = np.empty((3, n, 6, 6))         # batch-first congruence operands
        self.outer = np.empty((1, 6, n))            # one row of the rank-one update
        # Contiguous blocks (first m samples of a flat buffer), for in-place reshapes and BLAS outputs.
        self._flat = {name: np.empty(size * n) for name, size in
                      (("Ia", 36), ("mixed", 36), ("pair_j", 12), ("pair_l", 12), ("product", 36), ("congruent", 36))}

    def block(self, name, m):
        """Contiguous (6, 6, m) (or (12, m)) scratch block ``name`` for the first m samples."""
        flat = self._flat[name]
        size = flat.shape[0] // self.n
        return flat[:size * m].reshape((6, 6, m) if size == 36 else (size, m))

    def owns(self, a, name, m):
        """Whether ``a`` is the scratch block ``name`` for m samples (free to overwrite)."""
        flat = self._flat[name]
        return a.shape[-1] == m and a.flags.c_contiguous and a.ctypes.data == flat.ctypes.data


# ---- forward dynamics ---------------------------------------------------------------------------------------

def articulated_body_sweep(model, q, v, tau, f_ext, t, work=None):
    """``dv/dt`` (N, nv) for total efforts ``tau`` (N, nv) (actuators plus springs and dampers).

    ``work``: a :class:`Workspace` for at least N samples (made here if None).
    """
    consts = sweep_constants(model)
    n = q.shape[0]
    if work is None or work.n < n:
        work = Workspace(model, n)
    kin = _Pass(model, consts, q, v, t)
    tauT = np.ascontiguousarray(tau.T)
    fT = None if f_ext is None else np.ascontiguousarray(np.moveaxis(f_ext, 0, -1))  # (nb, 6, N)
    nb = len(consts)
    IA = [c.inertia[:, :, None] for c in consts]
    owned = [False] * nb                                        # IA[i] is work.IA[i] (else a constant)
    pA = []
    for i, c in enumerate(consts):
        tw = kin.twist[i]
        p = _cross_force(tw, c.inertia @ tw)
        pA.append(p if fT is None else p - fT[i])
    U, Dinv, u = [None] * nb, [None] * nb, [None] * nb
    for i in range(nb - 1, -1, -1):
        c = consts[i]
        k, idx = c.nv, c.axis_index
        Ii = IA[i]
        if idx is not None:                                     # axis along a frame axis: S selects
            Ui = Ii[idx]                                        # (6, N): I symmetric, row = column
            Dinv_i = 1.0 / Ui[idx]
            ui = tauT[c.v_slice.start] - pA[i][idx]
        elif k == 1:
            s = c.subspace[:, 0]
            Ui = _matvec(Ii, np.broadcast_to(s[:, None], (6, 1)))
            Dinv_i = 1.0 / (s @ Ui.reshape(6, -1)).reshape(Ui.shape[1:])
            ui = tauT[c.v_slice.start] - s @ pA[i]
        elif k:
            if c.selects is not None:
                Ui = Ii[:, c.selects]                           # (6, k, N)
                Di = Ui[c.selects]
                ui = tauT[c.v_slice] - pA[i][c.selects]
            else:
                Ui = np.einsum("ijn,jk->ikn", Ii, c.subspace)
                Di = np.einsum("jk,jln->kln", c.subspace, Ui)
                ui = tauT[c.v_slice] - c.subspace.T @ pA[i]
            Ui = np.broadcast_to(Ui, (6, k, n))
            Di = np.broadcast_to(Di, (k, k, n))
            if c.parent < 0:   # root: only D^-1 times one vector is needed, solved in the forward pass
                Dinv_i = Di
            else:
                Dinv_i = np.moveaxis(_inverse(np.ascontiguousarray(np.moveaxis(Di, -1, 0))), 0, -1)
        if k:
            U[i], Dinv[i], u[i] = Ui, Dinv_i, ui
        parent = c.parent
        if parent < 0:
            continue
        if k == 1:                                              # rank-one update
            UD = Ui * Dinv_i
            if UD.shape[-1] == n:           # row by row: the (6, N) product stays in cache (no (6, 6, N) outer)
                Ia, row = work.block("Ia", n), work.outer[0, :, :n]
                for a in range(6):
                    np.multiply(Ui, UD[a], out=row)
                    np.subtract(Ii[a], row, out=Ia[a])
            else:
                Ia = Ii - UD[:, None] * Ui[None, :]
            pa = pA[i] + _matvec(Ia, kin.bias[i], _unit_cross_support(idx) if idx is not None else range(6)) + UD * ui
        elif k:
            UD = np.einsum("ikn,kln->iln", Ui, Dinv_i)
            Ia = Ii - np.einsum("ikn,jkn->ijn", UD, Ui)
            pa = pA[i] + _matvec(Ia, kin.bias[i]) + np.einsum("ikn,kn->in", UD, ui)
        else:
            Ia = Ii
            pa = pA[i] + _matvec(Ia, kin.bias[i])
        if c.mix is not None:
            _accumulate(IA, owned, parent, congruence_axis(Ia, *kin.cos_sin[i], c, work, n), work, n)
        else:
            X = kin.transform(i, c, n, work.X[:n])
            _congruence(IA, owned, parent, Ia, X, work, n)
        pA[parent] = pA[parent] + kin.to_parent(i, c, pa)
    qdd = np.empty((model.nv, n))
    a_body = [None] * nb
    for i, c in enumerate(consts):
        if c.parent < 0:
            ai = kin.root_acceleration
        else:
            ai = kin.to_child(i, c, a_body[c.parent]) + kin.bias[i]
        k = c.nv
        if k == 1:
            acc = Dinv[i] * (u[i] - _dot6(U[i], ai))
            qdd[c.v_slice.start] = acc
            ai = ai + np.outer(c.subspace[:, 0], acc) if c.axis_index is None else _add_row(ai, c.axis_index, acc)
        elif k:
            rhs = u[i] - np.einsum("ikn,in->kn", U[i], ai)
            if c.parent < 0:
                acc = _solve_spd(Dinv[i], rhs)                  # Dinv holds D itself for the root
            else:
                acc = np.einsum("kln,ln->kn", Dinv[i], rhs)
            qdd[c.v_slice] = acc
            ai = ai + c.subspace @ acc
        a_body[i] = ai
    return qdd.T


def _congruence(IA, owned, parent, Ia, X, work, n):
    """``IA[parent] += X^T Ia X`` (batch-last IA, Ia; batch-first X (N or 1, 6, 6)).

    Done batch-first by ``np.matmul`` (fastest for stacked 6x6 products) into the workspace.
    """
    if Ia.shape[-1] == n and X.shape[0] == n:
        Ia_first, product, congruent = work.first[:, :n]
        np.copyto(Ia_first, np.moveaxis(Ia, -1, 0))          # matmul wants contiguous operands
        np.matmul(Ia_first, X, out=product)
        np.matmul(np.swapaxes(X, -1, -2), product, out=congruent)
    else:                                                    # a constant factor (leaf inertia, weld)
        congruent = np.swapaxes(X, -1, -2) @ np.ascontiguousarray(np.moveaxis(Ia, -1, 0)) @ X
    _accumulate(IA, owned, parent, np.moveaxis(congruent, 0, -1), work, n)


def _accumulate(IA, owned, parent, update, work, n):
    """``IA[parent] += update``, into the parent's workspace accumulator once it varies over the batch."""
    if owned[parent]:
        IA[parent] += update
    elif update.shape[-1] == n:
        IA[parent] = np.add(IA[parent], update, out=work.IA[parent, ..., :n])
        owned[parent] = True
    else:
        IA[parent] = IA[parent] + update                     # both constant: stays (6, 6, 1)


def _solve_spd(D, b):
    """``D^-1 b`` for batch-last symmetric positive definite D (k, k, N) and b (k, N).

    Gauss elimination without pivoting (stable for SPD matrices), vectorised over the batch:
    2k short loops instead of one LAPACK call per sample.
    """
    k = D.shape[0]
    M = np.array(D)
    x = np.array(b)
    for c in range(k):
        factors = M[c + 1:, c] / M[c, c]                       # (k - c - 1, N)
        M[c + 1:, c + 1:] -= factors[:, None] * M[c, c + 1:][None]
        x[c + 1:] -= factors * x[c]
    for c in range(k - 1, -1, -1):
        if c + 1 < k:
            x[c] -= (M[c, c + 1:] * x[c + 1:]).sum(0)
        x[c] /= M[c, c]
    return x


def _dot6(U, a):
    out = U[0] * a[0]
    for j in range(1, 6):
        out = out + U[j] * a[j]
    return out


def _add_row(a, row, x):
    a = np.array(a)
    a[row] += x
    return a


# ---- inverse dynamics ---------------------------------------------------------------------------------------

def newton_euler_sweep(model, q, v, a, f_ext, t, full=False):
    """Total efforts (N, nv) for accelerations ``a`` (N, nv) (actuators plus springs and dampers).

    With ``full=True`` also the joint wrenches (N, n_bodies, 6) (by the parent on each body, at
    its origin, body frame) and the body accelerations (N, n_bodies, 6) without gravity.
    """
    consts = sweep_constants(model)
    n = q.shape[0]
    kin = _Pass(model, consts, q, v, t)
    aT = np.ascontiguousarray(a.T)
    fT = None if f_ext is None else np.ascontiguousarray(np.moveaxis(f_ext, 0, -1))
    nb = len(consts)
    f, acc = [None] * nb, [None] * nb
    for i, c in enumerate(consts):
        if c.parent < 0:
            ai = kin.root_acceleration
        else:
            ai = kin.to_child(i, c, acc[c.parent]) + kin.bias[i]
        if c.nv:
            ai = ai + c.subspace @ aT[c.v_slice]
        acc[i] = ai
        tw = kin.twist[i]
        D = c.inertia
        # eq. (29): W_ext = D (x_dot' - g) + C(x') D x'  (gravity is inside ai)
        fi = D @ ai + _cross_force(tw, D @ tw)
        f[i] = fi if fT is None else fi - fT[i]
    tau = np.empty((model.nv, n))
    for i in range(nb - 1, -1, -1):
        c = consts[i]
        if c.nv:
            tau[c.v_slice] = c.subspace.T @ f[i]
        if c.parent >= 0:
            f[c.parent] = f[c.parent] + kin.to_parent(i, c, f[i])
    if not full:
        return tau.T
    wrenches = np.stack([np.broadcast_to(fi, (6, n)) for fi in f]).transpose(2, 0, 1)
    accelerations = np.stack([np.broadcast_to(ai, (6, n)) for ai in acc]).transpose(2, 0, 1).copy()
    g = model.gravity
    if np.any(g):  # report true accelerations (g is uniform: exact)
        Rw = [None] * nb
        for i, c in enumerate(consts):
            R = np.broadcast_to(kin.R[i], (3, 3, n))
            Rw[i] = R if c.parent < 0 else np.einsum("ijn,jkn->ikn", Rw[c.parent], R)
            accelerations[:, i, :3] += rotate_back(Rw[i], g[:, None]).T
    return tau.T, wrenches, accelerations
