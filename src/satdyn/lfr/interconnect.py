"""Interconnection of LFRs: feedback, upper/lower LFT, Redheffer star product,
connection by signal names, and partial channel inversion (SDTlib's ``invio``).

All of them close a static connection around the block-diagonal union of the
operands (see ``_core.close``): the Delta of the result is the union of the
operands' Deltas, so occurrence counts never grow.

Arguments named in this module: ``sys``/``sys1``/``sys2``/``P``/``K`` LFRs (or anything
``as_lfr`` accepts); ``nu``, ``ny`` channel counts; ``blocks`` a sequence of LFRs;
``connections`` a list of ``(input, source)`` pairs; ``inputs``/``outputs`` lists of
signal or group names.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from . import _core
from .lfr import LFR, as_lfr

__all__ = ["feedback", "lft", "star", "interconnect", "invert_channels", "invio"]


def feedback(sys1, sys2=1.0, sign: float = -1.0) -> LFR:
    """Closed loop ``y = sys1 (r + sign * sys2 y)`` (negative feedback by default)."""
    s1 = as_lfr(sys1)
    s2 = as_lfr(sys2)
    if s2.shape == (1, 1) and s1.shape != (1, 1) and s1.noutputs == s1.ninputs and s2.is_static and not s2.ndelta:
        s2 = as_lfr(float(s2.D[0, 0]) * np.eye(s1.ninputs))
    if s2.shape != (s1.ninputs, s1.noutputs):
        raise ValueError(f"feedback: sys2 must have shape {(s1.ninputs, s1.noutputs)}; got {s2.shape}")
    M, labels, p_all, m_all = _core.blockdiag_open([s1, s2])
    (p1, m1), (p2, m2) = s1.shape, s2.shape
    K = np.zeros((m_all, p_all))
    K[:m1, p1:] = sign * np.eye(m1)
    K[m1:, :p1] = np.eye(m2)
    E = np.vstack([np.eye(m1), np.zeros((m2, m1))])
    F = np.hstack([np.eye(p1), np.zeros((p1, p2))])
    out = _core.close(M, len(labels), K, E, F, np.zeros((p1, m1)))
    return LFR._make(out, labels, s1.input_names, s1.output_names, s1._igroups, s1._ogroups)


def star(sys1, sys2, nu: int, ny: int) -> LFR:
    """Redheffer star product (MATLAB ``lft(sys1, sys2, nu, ny)``).

    The last ``ny`` outputs of ``sys1`` feed the first ``ny`` inputs of ``sys2``; the
    first ``nu`` outputs of ``sys2`` feed the last ``nu`` inputs of ``sys1``.  Inputs of
    the result: sys1's free inputs then sys2's; outputs likewise.
    """
    s1, s2 = as_lfr(sys1), as_lfr(sys2)
    (p1, m1), (p2, m2) = s1.shape, s2.shape
    if not (0 <= nu <= min(m1, p2) and 0 <= ny <= min(p1, m2)):
        raise ValueError(f"star: nu={nu}, ny={ny} do not fit shapes {s1.shape} and {s2.shape}")
    M, labels, p_all, m_all = _core.blockdiag_open([s1, s2])
    K = np.zeros((m_all, p_all))
    K[m1 - nu:m1, p1:p1 + nu] = np.eye(nu)          # sys2's first nu outputs -> sys1's last nu inputs
    K[m1:m1 + ny, p1 - ny:p1] = np.eye(ny)          # sys1's last ny outputs -> sys2's first ny inputs
    free_in = list(range(m1 - nu)) + list(range(m1 + ny, m_all))
    free_out = list(range(p1 - ny)) + list(range(p1 + nu, p_all))
    E = np.eye(m_all)[:, free_in]
    F = np.eye(p_all)[free_out]
    out = _core.close(M, len(labels), K, E, F, np.zeros((len(free_out), len(free_in))))
    names_in = s1.input_names[: m1 - nu] + s2.input_names[ny:]
    names_out = s1.output_names[: p1 - ny] + s2.output_names[nu:]
    groups_in = _groups_within({**s1._igroups, **s2._igroups}, names_in)
    groups_out = _groups_within({**s1._ogroups, **s2._ogroups}, names_out)
    return LFR._make(out, labels, names_in, names_out, groups_in, groups_out)


def lft(P, K, nu: int | None = None, ny: int | None = None, *, upper: bool = False) -> LFR:
    """Lower LFT ``Fl(P, K)`` (K closes P's last channels) or, with ``upper=True``,
    upper LFT ``Fu(P, K)`` (K closes P's first channels).  ``nu``/``ny`` default to the
    size of K (``nu`` = K's outputs for lower, K's inputs for upper)."""
    P, K = as_lfr(P), as_lfr(K)
    if upper:
        nu = K.ninputs if nu is None else nu
        ny = K.noutputs if ny is None else ny
        if (nu, ny) != (K.ninputs, K.noutputs):
            raise ValueError("lft(upper=True): K must close all its channels (nu = K.ninputs, ny = K.noutputs)")
        return star(K, P, nu, ny)
    nu = K.noutputs if nu is None else nu
    ny = K.ninputs if ny is None else ny
    if (nu, ny) != (K.noutputs, K.ninputs):
        raise ValueError("lft: K must close all its channels (nu = K.noutputs, ny = K.ninputs)")
    return star(P, K, nu, ny)


def _groups_within(groups: dict, names) -> dict:
    present = set(names)
    return {g: m for g, m in groups.items() if all(x in present for x in m)}


def _expand(name: str, groups: dict, known, what: str) -> list[str]:
    if name in groups:
        return list(groups[name])
    if name in known:
        return [name]
    raise ValueError(f"dangling {what}: no signal or group named {name!r}")


def interconnect(blocks, connections=None, inputs=(), outputs=(), *, check_unused: bool = True) -> LFR:
    """Connect LFRs by signal names (python-control's ``interconnect`` for LFRs).

    Parameters
    ----------
    blocks : sequence of LFR
        Output names must be unique across blocks.  Inputs with one name are one
        signal (a signal may feed several blocks).
    connections : None or list of (input, source)
        None: every block input whose name is some block's output is fed by it.
        Otherwise only the listed connections: ``input`` is an input signal or group
        name; ``source`` is an output signal or group name, ``"-name"`` for a negated
        one, or a list of these (summed).  Groups connect element by element.
    inputs, outputs : sequence of str
        External inputs (block input signals or groups, not connected) and outputs
        (block output signals or groups; ``"-name"`` negates).  Groups named here
        become groups of the result.
    check_unused : bool
        Raise when a block input is neither connected nor external (default); with
        False such inputs are set to zero.
    """
    xs = [as_lfr(b) for b in blocks]
    if not xs:
        raise ValueError("interconnect: `blocks` is empty")
    in_slots, out_index = [], {}
    in_groups, out_groups = {}, {}
    for x in xs:
        in_slots.extend(x.input_names)
        for name in x.output_names:
            if name in out_index:
                raise ValueError(f"interconnect: output signal {name!r} is produced by more than one block")
            out_index[name] = len(out_index)
        for src, dst in ((x._igroups, in_groups), (x._ogroups, out_groups)):
            for g, mem in src.items():
                if dst.get(g, mem) != mem:
                    raise ValueError(f"interconnect: group {g!r} has different members in different blocks")
                dst[g] = mem
    in_names = set(in_slots)
    p_all, m_all = len(out_index), len(in_slots)

    # Sources of each input signal: {input name: [(sign, output index), ...]}
    sources: dict[str, list] = {}
    if connections is None:
        for name in in_names:
            if name in out_index:
                sources[name] = [(1.0, out_index[name])]
    else:
        for item in connections:
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise TypeError(f"interconnect: each connection must be (input, source); got {item!r}")
            dst, src = item
            dst_names = _expand(dst, in_groups, in_names, "connection input")
            src_list = [src] if isinstance(src, str) else list(src)
            for s in src_list:
                sign, bare = (-1.0, s[1:]) if s.startswith("-") else (1.0, s)
                src_names = _expand(bare, out_groups, out_index, "connection source")
                if len(src_names) != len(dst_names):
                    raise ValueError(f"interconnect: {dst!r} has {len(dst_names)} signals but {s!r} has "
                                     f"{len(src_names)}")
                for dn, sn in zip(dst_names, src_names):
                    sources.setdefault(dn, []).append((sign, out_index[sn]))

    ext_in: list[str] = []
    new_igroups = {}
    for name in inputs:
        members = _expand(name, in_groups, in_names, "external input")
        if name in in_groups:
            new_igroups[name] = tuple(members)
        for mname in members:
            if mname in sources:
                raise ValueError(f"interconnect: external input {mname!r} is also connected to an output")
            if mname in ext_in:
                raise ValueError(f"interconnect: external input {mname!r} listed twice")
            ext_in.append(mname)
    ext_pos = {n: i for i, n in enumerate(ext_in)}

    # The wiring is sparse (one source per connected input, mostly): K, E and F are held
    # as sparse matrices, so a model of hundreds of blocks never forms the dense
    # (inputs x outputs) connection matrix (see _core.close_blocks).
    k_rows, k_cols, k_vals, e_rows, e_cols = [], [], [], [], []
    unused = []
    for j, name in enumerate(in_slots):
        if name in sources:
            for sign, i in sources[name]:
                k_rows.append(j)
                k_cols.append(i)
                k_vals.append(sign)
        elif name in ext_pos:
            e_rows.append(j)
            e_cols.append(ext_pos[name])
        else:
            unused.append(name)
    # coo -> csr sums duplicate (input, source) pairs, as the dense `K[j, i] += sign` did
    K = scipy.sparse.csr_matrix((np.asarray(k_vals, float), (np.asarray(k_rows, int), np.asarray(k_cols, int))),
                                shape=(m_all, p_all))
    E = scipy.sparse.csr_matrix((np.ones(len(e_rows)), (np.asarray(e_rows, int), np.asarray(e_cols, int))),
                                shape=(m_all, len(ext_in)))
    if unused and check_unused:
        raise ValueError(
            f"interconnect: block inputs {sorted(set(unused))} are neither connected nor external inputs "
            "(pass them in `inputs`, connect them, or use check_unused=False to set them to zero)"
        )

    ext_out: list[str] = []
    f_cols, f_vals = [], []
    new_ogroups = {}
    for name in outputs:
        sign, bare = (-1.0, name[1:]) if name.startswith("-") else (1.0, name)
        members = _expand(bare, out_groups, out_index, "external output")
        if bare in out_groups:
            new_ogroups[bare] = tuple(members)
        for mname in members:
            f_cols.append(out_index[mname])
            f_vals.append(sign)
            ext_out.append(mname)
    F = scipy.sparse.csr_matrix((np.asarray(f_vals, float), (np.arange(len(f_cols)), np.asarray(f_cols, int))),
                                shape=(len(f_cols), p_all))
    out, labels = _core.close_blocks(xs, K, E, F, np.zeros((len(ext_out), len(ext_in))))
    return LFR._make(out, labels, tuple(ext_in), tuple(ext_out), new_igroups, new_ogroups)


def invert_channels(sys, inputs, outputs) -> LFR:
    """Swap the given inputs with the given outputs (partial inversion, SDTlib ``invio``).

    With ``y_a = ... + D_aa u_a`` (``D_aa`` the square, invertible feedthrough between
    the chosen outputs ``y_a`` and inputs ``u_a``), the result takes ``y_a`` as inputs
    (at the positions of ``u_a``) and gives ``u_a`` as outputs (at the positions of
    ``y_a``).  Inverting all channels equals :meth:`LFR.inv`.
    """
    x = as_lfr(sys)
    ia, oa = x.input_index(inputs), x.output_index(outputs)
    if len(ia) != len(oa) or len(set(ia)) != len(ia) or len(set(oa)) != len(oa):
        raise ValueError(f"invert_channels: need as many distinct inputs as outputs; got {len(ia)} and {len(oa)}")
    q = x._nloop
    M = x._M
    a_rows, a_cols = [q + o for o in oa], [q + i for i in ia]
    Y = [r for r in range(M.shape[0]) if r not in set(a_rows)]
    X = [c for c in range(M.shape[1]) if c not in set(a_cols)]
    Maa = M[np.ix_(a_rows, a_cols)]
    if Maa.size and (not np.all(np.isfinite(Maa)) or np.linalg.cond(Maa) > 1e12):
        raise ValueError("invert_channels: the feedthrough between the chosen channels is singular")
    Mai = np.linalg.inv(Maa) if Maa.size else Maa
    N = np.empty_like(M)
    MYa, MaX = M[np.ix_(Y, a_cols)], M[np.ix_(a_rows, X)]
    N[np.ix_(Y, X)] = M[np.ix_(Y, X)] - MYa @ Mai @ MaX
    N[np.ix_(Y, a_cols)] = MYa @ Mai
    N[np.ix_(a_rows, X)] = -Mai @ MaX
    N[np.ix_(a_rows, a_cols)] = Mai
    ins, outs = list(x.input_names), list(x.output_names)
    for i, o in zip(ia, oa):
        ins[i], outs[o] = x.output_names[o], x.input_names[i]
    swapped_out, swapped_in = {x.output_names[o] for o in oa}, {x.input_names[i] for i in ia}
    igroups = {g: m for g, m in x._igroups.items() if not set(m) & swapped_in}
    ogroups = {g: m for g, m in x._ogroups.items() if not set(m) & swapped_out}
    igroups.update({g: m for g, m in x._ogroups.items() if set(m) <= swapped_out})
    ogroups.update({g: m for g, m in x._igroups.items() if set(m) <= swapped_in})
    return LFR._make(N, x._labels, tuple(ins), tuple(outs), igroups, ogroups, canonical=False)


invio = invert_channels
