"""Reading a satdyn LFR through the LFR contract only (no import of satdyn.lfr).

Arguments:
    lfr : object with ``A (n,n), B (n, ndelta+m), C (ndelta+p, n), D`` float arrays and
          ``blocks`` (each with ``.parameter`` and ``.size``), where a parameter has
          ``.name, .nominal, .range, .kind ("uncertain" | "varying"), .normalize,
          .denormalize``; ``lfr.subs(values)`` removes the blocks of the given parameters.
    grid : dict name -> values (physical units) for the varying parameters, or an int
           (points per varying parameter, spread uniformly over its range).

Rule (documented in docs/robust.md): varying (``vreal``) parameters are gridded, one
analysis per grid point; uncertain (``ureal``) parameters go into mu. A parameter of any
other kind is refused.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .mdelta import MDeltaSystem, mdelta_system
from .norms import require_continuous

__all__ = ["GridPoint", "grid_points", "lfr_to_mdelta", "physical_values", "simplified"]


@dataclass(frozen=True)
class GridPoint:
    """One frozen value set of the varying parameters and the LFR left with the uncertain ones."""

    values: dict
    lfr: object


def _check_lfr(lfr):
    require_continuous(lfr, "lfr", ("A", "B", "C", "D", "blocks"),
                       "a satdyn LFR (an object with A, B, C, D and blocks)", "continuous-time")


def simplified(lfr, simplify):
    """``(lfr, channels_before, channels_after)``: the LFR's Delta channels reduced first
    (``lfr.reduce(states=False)``: structurally zero, uncontrollable and unobservable Delta
    channels removed), unless ``simplify`` is False.

    The analysis cost grows fast with the Delta channels (an LFR written entry by entry often
    carries several times the minimal count), so the entry points reduce by default. The
    states are left alone (``A(delta), B(delta), C(delta), D(delta)`` unchanged at every
    point): robust stability is internal stability, so a mode hidden from the inputs and
    outputs still counts, and a state-space rescaling could make the frequency response at
    low frequency ill-conditioned (it did on the two-mass servo built with ``lft``: a spurious
    destabilising perturbation at 1e-4 rad/s).
    """
    _check_lfr(lfr)
    if not isinstance(simplify, (bool, np.bool_)):
        raise TypeError(f"`simplify` must be True or False; got {simplify!r}")
    before = int(sum(blk.size for blk in lfr.blocks))
    if simplify and before and callable(getattr(lfr, "reduce", None)):
        lfr = lfr.reduce(states=False)
    return lfr, before, int(sum(blk.size for blk in lfr.blocks))


def grid_points(lfr, grid=None) -> list:
    """Grid the varying parameters of ``lfr``; a single point when there are none."""
    _check_lfr(lfr)
    if isinstance(grid, bool):
        raise TypeError(f"`grid` must be an int or a dict name -> values; got {grid!r}")
    varying = []
    for blk in lfr.blocks:
        par = blk.parameter
        if par.kind == "varying" and par.name not in [p.name for p in varying]:
            varying.append(par)
        elif par.kind not in ("uncertain", "varying"):
            raise ValueError(
                f"`lfr`: parameter {par.name!r} has kind {par.kind!r}; robust analysis handles "
                f"'uncertain' (into mu) and 'varying' (gridded) parameters only"
            )
    if not varying:
        return [GridPoint({}, lfr)]
    if grid is None:
        grid = 5
    axes = []
    for par in varying:
        if isinstance(grid, (int, np.integer)):
            if grid < 1:
                raise ValueError(f"`grid` must be a positive int or a dict; got {grid!r}")
            lo, hi = par.range
            axes.append(np.linspace(lo, hi, int(grid)) if grid > 1 else np.array([par.nominal]))
        elif isinstance(grid, dict):
            if par.name not in grid:
                raise ValueError(f"`grid` has no values for the varying parameter {par.name!r}")
            values = np.atleast_1d(np.asarray(grid[par.name], dtype=float))
            if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
                raise ValueError(f"`grid[{par.name!r}]` must be a non-empty 1-D array of finite values")
            axes.append(values)
        else:
            raise TypeError(f"`grid` must be an int or a dict name -> values; got {type(grid).__name__}")
    points = []
    for combo in itertools.product(*axes):
        values = {par.name: float(v) for par, v in zip(varying, combo)}
        points.append(GridPoint(values, lfr.subs(values)))
    return points


def lfr_to_mdelta(lfr) -> tuple[MDeltaSystem, tuple]:
    """(MDeltaSystem, parameters of the Delta blocks in order) of an LFR with uncertain blocks only."""
    _check_lfr(lfr)
    if len(lfr.blocks) == 0:
        raise ValueError("`lfr` has no uncertain parameter left: nothing to analyse")
    for blk in lfr.blocks:
        if blk.parameter.kind != "uncertain":
            raise ValueError(
                f"`lfr`: parameter {blk.parameter.name!r} is {blk.parameter.kind!r}; grid it first"
            )
    system = mdelta_system(lfr.A, lfr.B, lfr.C, lfr.D, [blk.size for blk in lfr.blocks])
    return system, tuple(blk.parameter for blk in lfr.blocks)


def physical_values(parameters, deltas) -> dict:
    """Map normalised block values (k,) to {name: physical value} with each parameter's map.

    A parameter split over several blocks takes the value of its first block (the analysis
    treated the blocks as independent, which is conservative).
    """
    out = {}
    for par, d in zip(parameters, np.asarray(deltas, dtype=float)):
        if par.name not in out:
            out[par.name] = float(np.asarray(par.denormalize(d), dtype=float))
    return out
