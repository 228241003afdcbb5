"""Assemble the causal blocks of :mod:`satdyn.multibody.blocks` into a simulable block diagram.

``BlockDiagram`` wires the blocks as in arXiv:2505.03248 §3.6 (Fig. 16): a parent's child-port
motion vector feeds the child's parent-port input; the child's emitted wrench feeds the
parent's child-port wrench input. In forward dynamics these wires form linear algebraic
loops; the diagram resolves them by the paper's generic cut-and-solve (option (a) of §3.6):
cut every emitted wrench (6 unknowns per tree edge, 12 per loop closure), evaluate the
diagram as the affine map ``w -> A w + b``, solve ``(1 - A) w = b`` exactly and re-evaluate.
This costs ``6 E + 12 L + 2`` diagram evaluations per call: a reference and a teaching tool;
:func:`satdyn.multibody.forward_dynamics` is the fast path.

State ``x``: the floating root's 12 states ``[x'_P (6), [IP]_b (3), Theta (3)]`` (13 with a
quaternion attitude; none for a ground), then the coordinate of every 1-DOF joint block, then
their rates, in the order the blocks were added (``state_names``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from .blocks import (
    FloatingBodyBlock,
    GroundBlock,
    LoopClosureBlock,
    PrismaticBlock,
    RevoluteBlock,
    WeldBlock,
    _OneDof,
)

__all__ = ["BlockDiagram", "DiagramSignals", "DiagramSimulation"]

_ROOTS = (FloatingBodyBlock, GroundBlock)
_CHILDREN = (WeldBlock, RevoluteBlock, PrismaticBlock)


@dataclass(frozen=True)
class DiagramSignals:
    """Every signal of one diagram evaluation (forward mode).

    Attributes
    ----------
    motion : dict
        ``(block, port) -> m`` (18,) in the block frame (port ``"P"``: the parent port).
    emitted : dict
        Non-root block -> its emitted wrench ``[W_{A/B,P}]_b`` (6,).
    port_wrenches : dict
        Block -> {port: total wrench on the block at that port, in its frame} (children,
        external wrenches and loop closures; ``"P"`` of the root holds its external load).
    joints : dict
        Joint block -> ``m_r = [q_ddot, q_dot, q]``.
    efforts : dict
        Joint block -> total drive effort (actuator + joint law).
    closures : dict
        Loop-closure name -> (wrench on a, wrench on b, dx).
    state_derivative : ndarray
    loop_residual : float
        ``max |w - F(w)|`` after the solve (relative to ``max |w|``).
    """

    motion: dict
    emitted: dict
    port_wrenches: dict
    joints: dict
    efforts: dict
    closures: dict
    state_derivative: np.ndarray
    loop_residual: float


@dataclass(frozen=True)
class DiagramSimulation:
    """``t`` (n,), states ``x`` (n, n_states) and their names."""

    t: np.ndarray
    x: np.ndarray
    state_names: list = field(default_factory=list)

    def state(self, name: str) -> np.ndarray:
        """One state's time history (n,)."""
        if name not in self.state_names:
            raise ValueError(f"no state named {name!r}; states: {self.state_names}")
        return self.x[:, self.state_names.index(name)]


class BlockDiagram:
    """A tree of TITOP blocks assembled block by block (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from satdyn.multibody.blocks import GroundBlock, RevoluteBlock
    >>> d = BlockDiagram("pendulum")
    >>> d.add("ground", GroundBlock())
    >>> d.add("link", RevoluteBlock([0, 0, 1], 1.0, com=[0, -1, 0], gravity=[0, -9.81, 0]), parent="ground")
    >>> round(float(d.derivative(0.0, [np.pi / 2, 0.0])[1]), 12)   # -m g l sin(theta) / (m l^2)
    -9.81
    """

    def __init__(self, name: str = "diagram"):
        self.name = str(name)
        self.blocks: dict = {}
        self.parent: dict = {}
        self.closures: dict = {}
        self.external: list = []

    # ----------------------------------------------------------------- assembly
    def add(self, name: str, block, *, parent: str | None = None, port: str = "P") -> None:
        """Add ``block`` under ``name``, its parent port wired to ``parent``'s ``port``.

        The first block is the root (:class:`FloatingBodyBlock` or :class:`GroundBlock`, no parent).
        """
        if not isinstance(name, str) or not name or name in self.blocks:
            raise ValueError(f"`name` must be a new non-empty str; got {name!r}")
        if not self.blocks:
            if not isinstance(block, _ROOTS) or parent is not None:
                raise ValueError("`block`: the first block is the root: a FloatingBodyBlock or GroundBlock, no parent")
        else:
            if not isinstance(block, _CHILDREN):
                raise TypeError("`block` must be a WeldBlock, RevoluteBlock or PrismaticBlock; "
                                f"got {type(block).__name__}")
            if parent not in self.blocks:
                raise ValueError(f"`parent` must be an added block {list(self.blocks)}; got {parent!r}")
            if port != "P" and port not in self.blocks[parent].ports:
                raise ValueError(f"`port`: block {parent!r} has no port {port!r}; "
                                 f"ports: {['P', *self.blocks[parent].ports]}")
            self.parent[name] = (parent, port)
        self.blocks[name] = block

    def add_external_wrench(self, block: str, wrench, *, port: str = "P") -> None:
        """Apply a wrench on ``block`` at ``port``, in the block frame.

        ``wrench`` is a constant (6,) or ``wrench(t, m) -> (6,)`` with ``m`` the port's motion
        vector (18,): attitude-dependent loads such as buoyancy read the Euler angles there.
        """
        self._check_port(block, port, "block")
        if not callable(wrench):
            wrench = np.asarray(wrench, dtype=float)
            if wrench.shape != (6,) or not np.all(np.isfinite(wrench)):
                raise ValueError("`wrench` must be a finite (6,) [F; T] or a callable (t, m) -> (6,)")
        self.external.append((block, port, wrench))

    def add_loop_closure(self, name: str, block: LoopClosureBlock, a: tuple, b: tuple) -> None:
        """Close a loop with ``block`` between ``a = (block name, port)`` and ``b = (block name, port)``."""
        if not isinstance(block, LoopClosureBlock):
            raise TypeError("`block` must be a LoopClosureBlock")
        if not isinstance(name, str) or not name or name in self.closures:
            raise ValueError(f"`name` must be a new non-empty str; got {name!r}")
        self._check_port(*a, "a")
        self._check_port(*b, "b")
        self.closures[name] = (block, tuple(a), tuple(b))

    def _check_port(self, block, port, what):
        if block not in self.blocks:
            raise ValueError(f"`{what}`: no block {block!r}; blocks: {list(self.blocks)}")
        if port != "P" and port not in self.blocks[block].ports:
            raise ValueError(f"`{what}`: block {block!r} has no port {port!r}")

    @property
    def root(self) -> str:
        if not self.blocks:
            raise ValueError("the diagram has no block")
        return next(iter(self.blocks))

    @property
    def joint_blocks(self) -> list:
        return [n for n, b in self.blocks.items() if isinstance(b, _OneDof)]

    @property
    def n_states(self) -> int:
        return self.blocks[self.root].n_states + 2 * len(self.joint_blocks)

    @property
    def state_names(self) -> list:
        names = []
        if isinstance(self.blocks[self.root], FloatingBodyBlock):
            r = self.root
            seq = self.blocks[r].sequence
            names += [f"{r}.{s}" for s in ("vx", "vy", "vz", "wx", "wy", "wz", "x_b", "y_b", "z_b")]
            if self.blocks[r].attitude == "euler":
                names += [f"{r}.{seq[k]}{k + 1}" for k in range(3)]
            else:
                names += [f"{r}.q{c}" for c in "xyzw"]
        joints = self.joint_blocks
        return names + [f"{j}.q" for j in joints] + [f"{j}.qd" for j in joints]

    # --------------------------------------------------------------- evaluation
    def _efforts(self, t, x, efforts):
        joints = self.joint_blocks
        if efforts is None:
            return dict.fromkeys(joints, 0.0)
        if callable(efforts):
            efforts = efforts(t, x)
        if not isinstance(efforts, dict) or not set(efforts) <= set(joints):
            raise ValueError(f"`efforts` must be a dict {{joint block: effort}} over {joints} "
                             "(or a callable returning one)")
        return {j: float(efforts.get(j, 0.0)) for j in joints}

    def _pass(self, t, x, w, efforts, prescribed=None):
        """One evaluation with the cut wrenches ``w`` guessed; returns (F(w), pieces)."""
        names = list(self.blocks)
        joints = self.joint_blocks
        nj = len(joints)
        root = self.blocks[names[0]]
        n_root = root.n_states
        q = dict(zip(joints, x[n_root:n_root + nj]))
        qd = dict(zip(joints, x[n_root + nj:]))
        children = names[1:]
        cut = {c: w[6 * k:6 * k + 6] for k, c in enumerate(children)}
        off = 6 * len(children)
        cl_cut = {n: (w[off + 12 * k:off + 12 * k + 6], w[off + 12 * k + 6:off + 12 * k + 12])
                  for k, n in enumerate(self.closures)}
        # port wrench inputs: children's emitted wrenches, closures (guessed), external (need the motion)
        port_w = {n: {} for n in names}

        def add(block, port, W):
            d = port_w[block]
            d[port] = d.get(port, 0.0) + W

        for c, (p, port) in self.parent.items():
            add(p, port, cut[c])
        for n, (_, a, b) in self.closures.items():
            add(*a, cl_cut[n][0])
            add(*b, cl_cut[n][1])
        motion, emitted, jointsig, eff, deriv = {}, {}, {}, {}, {}
        for n in names:
            blk = self.blocks[n]
            if n == names[0]:
                if isinstance(blk, FloatingBodyBlock):
                    # external loads on the root depend on its pose only (not on the acceleration)
                    m_pose = blk.motion_from_state(x[:n_root])
                    for bname, port, W in self.external:
                        if bname == n:
                            mp = m_pose if port == "P" else _transport(m_pose, blk.ports[port])
                            add(n, port, W(t, mp) if callable(W) else W)
                    out = blk.forward(x[:n_root], port_w[n], t=t)
                    deriv["root"] = out.state_derivative
                else:
                    out = blk.forward()
            else:
                p, port = self.parent[n]
                m_in = motion[(p, port)]
                for bname, eport, W in self.external:
                    if bname == n and callable(W):
                        # pose/twist of the port, computed with a zero-acceleration guess (loads are pose-dependent)
                        probe = (blk.forward(q[n], qd[n], m_in, None, 0.0, t=t) if isinstance(blk, _OneDof)
                                 else blk.evaluate(m_in, t=t))
                        add(n, eport, W(t, probe.motion[eport]))
                    elif bname == n:
                        add(n, eport, W)
                if isinstance(blk, _OneDof) and prescribed and n in prescribed:   # inverse-mode joint
                    out = blk.inverse(q[n], qd[n], prescribed[n], m_in, port_w[n], t=t)
                    jointsig[n], eff[n] = out.joint, out.effort
                elif isinstance(blk, _OneDof):
                    out = blk.forward(q[n], qd[n], m_in, port_w[n], efforts[n], t=t)
                    jointsig[n], eff[n] = out.joint, out.effort
                else:
                    out = blk.evaluate(m_in, port_w[n], t=t)
                emitted[n] = out.wrench_to_parent
            for port, m in out.motion.items():
                motion[(n, port)] = m
        closures = {}
        for n, (blk, a, b) in self.closures.items():
            closures[n] = blk.evaluate(motion[a], motion[b])
        F = np.concatenate([emitted[c] for c in children] + [np.r_[closures[n][0], closures[n][1]]
                                                              for n in self.closures] + [np.zeros(0)])
        return F, (motion, emitted, port_w, jointsig, eff, closures, deriv)

    def evaluate(self, t, x, efforts=None, *, prescribed=None) -> DiagramSignals:
        """Forward dynamics of the diagram at time ``t`` [s] and state ``x`` (n_states,).

        ``efforts``: None, a dict {joint block: actuator effort} or ``efforts(t, x) -> dict``.
        ``prescribed``: hybrid mode (§3.7) -- a dict {joint block: q_ddot} (or ``prescribed(t, x)
        -> dict``) of joints put in inverse mode: their acceleration is imposed and
        ``DiagramSignals.efforts`` holds the total effort they need.
        """
        if not self.blocks:
            raise ValueError("the diagram has no block")
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_states,) or not np.all(np.isfinite(x)):
            raise ValueError(f"`x` must be a finite state of shape ({self.n_states},); got {x.shape}")
        eff = self._efforts(t, x, efforts)
        if callable(prescribed):
            prescribed = prescribed(t, x)
        if prescribed is not None:
            if not isinstance(prescribed, dict) or not set(prescribed) <= set(self.joint_blocks):
                raise ValueError(f"`prescribed` must be a dict {{joint block: q_ddot}} over {self.joint_blocks}")
            prescribed = {k: float(v) for k, v in prescribed.items()}
        n_cut = 6 * (len(self.blocks) - 1) + 12 * len(self.closures)
        b, _ = self._pass(t, x, np.zeros(n_cut), eff, prescribed)
        if n_cut:
            A = np.empty((n_cut, n_cut))
            for j in range(n_cut):
                e = np.zeros(n_cut)
                e[j] = 1.0
                A[:, j] = self._pass(t, x, e, eff, prescribed)[0] - b
            w = np.linalg.solve(np.eye(n_cut) - A, b)
        else:
            w = np.zeros(0)
        F, (motion, emitted, port_w, jointsig, efforts_out, closures, deriv) = self._pass(t, x, w, eff, prescribed)
        residual = float(np.abs(F - w).max(initial=0.0) / max(1.0, np.abs(w).max(initial=0.0)))
        joints = self.joint_blocks
        xdot = np.concatenate([deriv.get("root", np.zeros(0)), [jointsig[j][1] for j in joints],
                               [jointsig[j][0] for j in joints]])
        return DiagramSignals(motion, emitted, port_w, jointsig, efforts_out, closures, xdot, residual)

    def derivative(self, t, x, efforts=None, *, prescribed=None) -> np.ndarray:
        """``dx/dt`` (n_states,) (arguments as :meth:`evaluate`)."""
        return self.evaluate(t, x, efforts, prescribed=prescribed).state_derivative

    def simulate(self, t_span, x0, efforts=None, *, prescribed=None, t_eval=None, method="DOP853", rtol=1e-10,
                 atol=1e-10):
        """Integrate with ``scipy.integrate.solve_ivp``; returns a :class:`DiagramSimulation`."""
        x0 = np.asarray(x0, dtype=float)
        if x0.shape != (self.n_states,):
            raise ValueError(f"`x0` must have shape ({self.n_states},); got {x0.shape}")
        sol = solve_ivp(lambda t, x: self.derivative(t, x, efforts, prescribed=prescribed), t_span, x0,
                        method=method, rtol=rtol, atol=atol, t_eval=t_eval)
        if not sol.success:
            raise RuntimeError(f"integration failed: {sol.message}")
        return DiagramSimulation(sol.t, sol.y.T, self.state_names)

    def inverse_dynamics(self, t, x, accelerations, *, root_acceleration=None) -> dict:
        """Actuator efforts that give the imposed accelerations: the loop-free inverse diagram (§3.7).

        Every block in inverse mode: pass 1 (root to leaves) propagates the motion vectors,
        pass 2 (leaves to root) the emitted wrenches; no algebraic loop (this is RNEA).

        Parameters
        ----------
        t : float
        x : array_like, shape (n_states,)
            State (the joint rates and the root twist are used; their derivatives are not).
        accelerations : dict or array_like
            Joint block -> ``q_ddot``, or an array in ``joint_blocks`` order.
        root_acceleration : array_like, shape (6,), optional
            Imposed spatial acceleration ``[v_dot_P; omega_dot]`` of a floating root (default 0).

        Returns
        -------
        dict
            Joint block -> actuator effort (the joint law is subtracted, so ``efforts=`` of
            :meth:`evaluate` with these values gives back the accelerations); for a floating root,
            its name -> the actuator wrench (6,) on it at P, in its frame (beyond the external wrenches).
        """
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_states,) or not np.all(np.isfinite(x)):
            raise ValueError(f"`x` must be a finite state of shape ({self.n_states},); got {x.shape}")
        joints = self.joint_blocks
        if not isinstance(accelerations, dict):
            acc = np.asarray(accelerations, dtype=float).reshape(-1)
            if acc.shape != (len(joints),):
                raise ValueError(f"`accelerations` must be a dict over {joints} or an array of shape ({len(joints)},)")
            accelerations = dict(zip(joints, acc))
        elif not set(accelerations) <= set(joints):
            raise ValueError(f"`accelerations` keys must be joint blocks {joints}")
        names = list(self.blocks)
        root = self.blocks[names[0]]
        n_root, nj = root.n_states, len(joints)
        q = dict(zip(joints, x[n_root:n_root + nj]))
        qd = dict(zip(joints, x[n_root + nj:]))
        qdd = {j: float(accelerations.get(j, 0.0)) for j in joints}
        motion = {}
        if isinstance(root, FloatingBodyBlock):
            a0 = np.zeros(6) if root_acceleration is None else np.asarray(root_acceleration, dtype=float)
            if a0.shape != (6,):
                raise ValueError(f"`root_acceleration` must have shape (6,); got {a0.shape}")
            mP = root.motion_from_state(x[:n_root])
            mP[:6] = a0
            motion.update({(names[0], k): m for k, m in root._outputs(mP).items()})
        else:
            motion.update({(names[0], k): m for k, m in root.forward().motion.items()})
        for n in names[1:]:                                   # pass 1: motions only
            blk, m_in = self.blocks[n], motion[self.parent[n]]
            out = blk.inverse(q[n], qd[n], qdd[n], m_in, None, t=t) if n in q else blk.evaluate(m_in, t=t)
            motion.update({(n, k): m for k, m in out.motion.items()})
        port_w = {n: {} for n in names}

        def add(block, port, W):
            port_w[block][port] = port_w[block].get(port, 0.0) + W

        for block, port, W in self.external:
            add(block, port, W(t, motion[(block, port)]) if callable(W) else W)
        for blk, a, b in self.closures.values():
            on_a, on_b, _ = blk.evaluate(motion[a], motion[b])
            add(*a, on_a)
            add(*b, on_b)
        efforts = {}
        for n in reversed(names[1:]):                         # pass 2: wrenches, leaves to root
            blk, m_in = self.blocks[n], motion[self.parent[n]]
            if n in q:
                out = blk.inverse(q[n], qd[n], qdd[n], m_in, port_w[n], t=t)
                efforts[n] = out.effort - blk.passive_effort(q[n], qd[n])
            else:
                out = blk.evaluate(m_in, port_w[n], t=t)
            add(*self.parent[n], out.wrench_to_parent)
        if isinstance(root, FloatingBodyBlock):
            efforts[names[0]] = root.inverse(motion[(names[0], "P")], port_w[names[0]], t=t)
        return efforts

    # ------------------------------------------------------------- diagnostics
    def block_powers(self, t, x, efforts=None) -> dict:
        """Per-block power balance (W) at ``(t, x)``: block -> dict with

        * ``kinetic_rate``: ``dT/dt = x'^T D x_dot'`` of the body;
        * ``gravity``: power of gravity on the body, ``[g; 0]^T D x'``;
        * ``ports``: power of every wrench applied on the body at its ports (parent port
          included: ``-W_{A/B,P} . x'^A_P``, with the joint rate, so it contains the effort's
          power ``C_m q_dot``), i.e. ``sum W . x'`` over the ports;
        * ``effort``: ``C_m q_dot`` (the drive's share of ``ports``).

        Per block, ``kinetic_rate = gravity + ports`` (the block's Newton--Euler equation).
        Summed over blocks, the interface terms cancel pairwise, leaving the efforts and external loads.
        """
        sig = self.evaluate(t, x, efforts)
        out = {}
        for n, blk in self.blocks.items():
            if isinstance(blk, GroundBlock):
                continue
            mP = sig.motion[(n, "P")]
            twist, acc = mP[6:12], mP[:6]
            g_hat = blk._gravity_hat(mP[15:18], t)
            ports = 0.0
            for port, W in sig.port_wrenches[n].items():
                ports += float(np.asarray(W) @ sig.motion[(n, port)][6:12])
            effort = 0.0
            if n in self.parent:
                W_on = _parent_wrench_on_block(blk, sig.emitted[n], sig.joints.get(n))
                ports += float(W_on @ twist)
                if n in sig.efforts:
                    effort = sig.efforts[n] * sig.joints[n][1]
            out[n] = {"kinetic_rate": float(twist @ blk.D @ acc), "gravity": float(g_hat @ blk.D @ twist),
                      "ports": ports, "effort": effort, "kinetic_energy": blk.kinetic_energy(twist)}
        return out

    def to_dot(self, *, title: str | None = None) -> str:
        """Graphviz DOT text of the diagram (drawn like the paper's Fig. 16), see :mod:`.diagram_dot`."""
        from .diagram_dot import diagram_to_dot

        return diagram_to_dot(self, title=title)


def _transport(m, r):
    from .signals import transport_motion

    return transport_motion(m, r)


def _parent_wrench_on_block(blk, emitted_b, joint):
    """``W_{B/A,P} = -W_{A/B,P}`` at the block's own point P in R_a (the prismatic one moved from P0 to P)."""
    q = 0.0 if joint is None else joint[2]
    P = blk.dcm(q) if isinstance(blk, _OneDof) else blk.rotation
    W = -np.concatenate([P.T @ emitted_b[:3], P.T @ emitted_b[3:]])
    if isinstance(blk, PrismaticBlock):   # about P0 -> about P = P0 + q t
        W[3:] -= np.cross(q * blk.axis, W[:3])
    return W

