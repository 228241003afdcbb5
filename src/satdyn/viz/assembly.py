"""The assembly plan: the structure growing tile by tile, the walking robot's legs, and its path
coloured by the cost of every step (arXiv:2409.06017 section 3).

:func:`assembly_plan` takes plain numbers (tile centres, tiles placed, leg positions and cost per
step), so any planner can feed it; :func:`assembly_plan_from_study` reads them from a
:class:`satdyn.studies.assembly.AssemblyStudy`.
"""

from __future__ import annotations

import numpy as np

from .scene import Scene, VizInputError, fit_camera, rounded

__all__ = ["assembly_plan", "assembly_plan_from_study"]


def assembly_plan(tile_centres, placed, leg_positions, costs, *, tile_side: float = 1.0, stack=None,
                  cost_label: str = "cost", step_labels=None, title: str = "assembly plan") -> Scene:
    """The plan step by step, with a step slider.

    Parameters
    ----------
    tile_centres : (N, 2) or (N, 3)
        Centres of the tiles in assembly order [m] (structure frame, z = 0 when 2 columns).
    placed : (S,) int
        Number of tiles in place at each step (the first ``placed[s]`` tiles are drawn).
    leg_positions : (S, L, 2) or (S, L, 3)
        Where the robot's L legs are docked at each step [m]; the robot body is drawn above
        their mean and the path of that point is drawn from step to step.
    costs : (S,)
        Cost of each step (the move into step s colours path segment s; step 0 may be 0 or NaN).
    tile_side : float
        Tile edge [m].
    stack : (2,) or (3,), optional
        Position of the stack of remaining tiles [m].
    cost_label : str
        Name of the cost (colour-bar title).
    step_labels : sequence of S str, optional
        A label per step (e.g. "P3: walk").
    title : str

    Returns
    -------
    Scene
        Hash ``#step=k`` (k from 0) shows step k.
    """
    c = np.asarray(tile_centres, dtype=float)
    if c.ndim != 2 or c.shape[1] not in (2, 3) or len(c) < 1 or not np.all(np.isfinite(c)):
        raise VizInputError(f"`tile_centres` must be finite with shape (N, 2) or (N, 3) [m]; got {c.shape}")
    n_tiles = len(c)
    p = np.asarray(placed)
    if p.ndim != 1 or p.size < 1 or not np.issubdtype(p.dtype, np.integer) or p.min() < 0 or p.max() > n_tiles:
        raise VizInputError(f"`placed` must be S integers in 0..{n_tiles} (tiles in place per step); got {p!r}")
    S = p.size
    legs = np.asarray(leg_positions, dtype=float)
    if legs.ndim == 2 and legs.shape[0] == S and legs.shape[1] in (2, 3):
        legs = legs[:, None, :]
    if legs.ndim != 3 or legs.shape[0] != S or legs.shape[2] not in (2, 3) or not np.all(np.isfinite(legs)):
        raise VizInputError(f"`leg_positions` must be finite with shape (S, L, 2) or (S, L, 3), S = {S}; got "
                            f"{legs.shape}")
    if legs.shape[2] == 2:
        legs = np.concatenate([legs, np.zeros(legs.shape[:2] + (1,))], axis=2)
    cost = np.asarray(costs, dtype=float).ravel()
    if cost.shape != (S,):
        raise VizInputError(f"`costs` must hold one value per step ({S}); got shape {cost.shape}")
    if not (np.isfinite(tile_side) and tile_side > 0):
        raise VizInputError(f"`tile_side` must be a positive length [m]; got {tile_side!r}")
    if step_labels is not None and len(step_labels) != S:
        raise VizInputError(f"`step_labels` must have one label per step ({S}); got {len(step_labels)}")
    st = None
    if stack is not None:
        st = np.asarray(stack, dtype=float).ravel()
        if st.shape not in ((2,), (3,)) or not np.all(np.isfinite(st)):
            raise VizInputError(f"`stack` must be a finite point (2,) or (3,) [m]; got {st.shape}")
    finite = np.where(np.isfinite(cost), cost, 0.0)
    points = [c[:, :2], legs[:, :, :2].reshape(-1, 2)] + ([st[None, :2]] if st is not None else [])
    xy = np.concatenate(points)
    lo = np.append(xy.min(axis=0) - 0.5 * tile_side, 0.0)
    hi = np.append(xy.max(axis=0) + 0.5 * tile_side, 0.6 * tile_side)
    data = {"assembly": {
        "tiles": rounded(c[:, :2]), "placed": p.astype(int).tolist(),
        "legs": rounded(legs), "n_legs": int(legs.shape[1]),
        "costs": rounded(finite), "cumulative": rounded(np.cumsum(finite)), "cost_label": str(cost_label),
        "step_labels": [str(s) for s in step_labels] if step_labels is not None else [],
        "tile_side": float(tile_side), "stack": rounded(st[:2]) if st is not None else None}}
    return Scene("assembly", data, title=title, camera=fit_camera(lo, hi, direction=(0.35, -1.0, 1.6)))


def _node_point(node, n, centres, stack, slot_of):
    if node == "stack":
        return stack
    if node == "slot":
        return slot_of(n)
    return centres[node[0] - 1]


def assembly_plan_from_study(study, cost: str = "hinf_wrench", planner: str = "weighted", *,
                             title: str | None = None) -> Scene:
    """:func:`assembly_plan` of one planned path of a :class:`~satdyn.studies.assembly.AssemblyStudy`.

    Parameters
    ----------
    study : AssemblyStudy
        From ``walk_example`` or ``full_assembly`` (needs its ``centres`` and ``stack``).
    cost : str
        One of the study's costs (``study.comparisons`` keys).
    planner : {"weighted", "bfs"}
        Dijkstra's path or the minimum-hop baseline.

    Each edge of the path is one step; its cost is the sum of the metric over the edge's grid
    points (``PathResult.trace``, 14 per edge).  The robot's two legs are docked at the
    start and end points of the edge (tile centres; the stack; the slot of the next tile).
    Graph ``P_n``/``Q_n`` moves run on the structure of n tiles; a place edge adds tile n+1.
    """
    for attr in ("comparisons", "centres", "stack"):
        if getattr(study, attr, None) is None:
            raise VizInputError(f"`study` must be an AssemblyStudy with `{attr}`; got {type(study).__name__}")
    if cost not in study.comparisons:
        raise VizInputError(f"`cost` must be one of {sorted(study.comparisons)}; got {cost!r}")
    if planner not in ("weighted", "bfs"):
        raise VizInputError(f"`planner` must be 'weighted' or 'bfs'; got {planner!r}")
    comparison = study.comparisons[cost]
    path = getattr(comparison, planner)
    if path is None:
        raise VizInputError(f"the study has no {planner} path for cost {cost!r}: {comparison.message}")
    centres = np.asarray(study.centres, dtype=float)
    stack = np.asarray(study.stack, dtype=float)
    per_edge = np.asarray(path.trace, dtype=float)
    hops = path.hops
    if hops == 0 or per_edge.size % hops:
        raise VizInputError(f"`study`: path trace of {per_edge.size} points does not split into {hops} edges")
    per_edge = per_edge.reshape(hops, -1).sum(axis=1)

    def slot_of(n):  # the slot of tile n + 1
        return centres[n] if n < len(centres) else stack

    placed, legs, costs, labels = [], [], [], []
    edge = 0
    for phase, (nodes, graph) in enumerate(zip(path.nodes, path.graphs)):
        n = int(graph[1:])
        if phase == 0:
            first = _node_point(nodes[0], n, centres, stack, slot_of)
            placed.append(n)
            legs.append([first, first])
            costs.append(0.0)
            labels.append(f"{graph}: start at {nodes[0]}")
        for u, v in zip(nodes[:-1], nodes[1:]):
            a, b = (_node_point(x, n, centres, stack, slot_of) for x in (u, v))
            grows = v == "slot"
            placed.append(n + 1 if grows else n)
            legs.append([a, b])
            costs.append(per_edge[edge])
            labels.append(f"{graph}: {u} -> {v}")
            edge += 1
    return assembly_plan(centres, np.array(placed), np.array(legs), np.array(costs), stack=stack,
                         cost_label=f"{comparison.label} per move", step_labels=labels,
                         title=title or f"assembly plan ({planner}, {comparison.label})")
