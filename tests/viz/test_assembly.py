"""The assembly-plan view: tiles appear step by step where the camera puts them; the path's
cost per step comes from the study's per-grid-point trace."""

import numpy as np
import pytest

from satdyn import viz
from satdyn.studies.assembly import CostComparison, PathResult

from .conftest import pixel_box, projected_box

PIXELS = 3.0
CENTRES = np.array([[0.5, 0.5], [1.5, 0.5], [0.5, 1.5], [1.5, 1.5], [0.5, 2.5], [1.5, 2.5]])
STACK = np.array([2.5, -0.5])


def tiles_coloured(image):
    # placed tiles are steel blue, the newest one orange; legs red: all strongly coloured
    # except the grey stack
    return image.max(axis=2) - image.min(axis=2) > 60


def plan():
    placed = np.array([1, 2, 2, 3, 4, 4, 5, 6])
    legs = np.array([[CENTRES[max(n - 1, 0)], CENTRES[max(n - 2, 0)]] for n in placed])
    costs = np.array([0.0, 1.0, 2.5, 0.5, 4.0, 1.0, 2.0, 3.0])
    return placed, legs, costs


def test_tiles_appear_step_by_step(browser, tmp_path):
    # oracle: the pinhole projection of the tiles in place at each step (their top and bottom
    # faces, z = +-1.5 cm); the robot stands on placed tiles, so nothing is drawn outside them
    # except its body (lifted 0.35 m above its legs) and path, which the box includes
    placed, legs, costs = plan()
    scene = viz.assembly_plan(CENTRES, placed, legs, costs, stack=None, cost_label="H-inf")
    path = scene.save(tmp_path / "plan.html")
    shots = browser.render(path, ["step=1&ui=0", "step=7&ui=0"])
    areas = []
    for (image, state), step in zip(shots, (1, 7)):
        assert state["step"] == step and state["tiles"] == placed[step]
        n = placed[step]
        corners = [c + [dx, dy, dz] for c in np.column_stack([CENTRES[:n], np.zeros(n)])
                   for dx in (-0.48, 0.48) for dy in (-0.48, 0.48) for dz in (-0.015, 0.015)]
        lifted = np.column_stack([legs[: step + 1].mean(axis=1), np.full(step + 1, 0.35)])
        robot_top = [p + [dx, dy, dz] for p in lifted
                     for dx in (-0.14, 0.14) for dy in (-0.14, 0.14) for dz in (-0.14, 0.14)]
        want = projected_box(scene.camera, np.array(corners + robot_top), image)
        got = pixel_box(tiles_coloured(image))
        assert np.all(np.abs(np.array(got) - np.array(want)) <= PIXELS), (step, got, want)
        areas.append(tiles_coloured(image).sum())
    assert areas[1] > 2 * areas[0]                        # 6 tiles against 2


def test_from_study_splits_the_trace_into_moves():
    # a two-phase plan on F_2: P2 walks (1,1) -> (2,2) -> stack, Q2 places tile 3 from (2,2);
    # each move's cost is the sum of its 14 grid-point metrics (the study's trace)
    rng = np.random.default_rng(7)
    trace = rng.uniform(0.1, 2.0, 3 * 14)
    path = PathResult(nodes=[[(1, 1), (2, 2), "stack"], [(2, 2), "slot"]], graphs=["P2", "Q2"], hops=3,
                      trace=trace, cumulative=float(trace.sum()))
    comparison = CostComparison("hinf_wrench", "H-inf wrench", bfs=None, weighted=path, percent_higher=0.0,
                                paper_percent=None)

    class Study:
        comparisons = {"hinf_wrench": comparison}
        centres = CENTRES
        stack = STACK

    scene = viz.assembly_plan_from_study(Study())
    a = scene.data["assembly"]
    assert a["placed"] == [2, 2, 2, 3]                   # tile 3 appears with the place move
    np.testing.assert_allclose(a["costs"][1:], trace.reshape(3, 14).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(a["cumulative"][-1], trace.sum(), rtol=1e-5)
    legs = np.array(a["legs"]).reshape(4, 2, 3)[:, :, :2]
    np.testing.assert_allclose(legs[2], [CENTRES[1], STACK])       # (2,2) -> stack
    np.testing.assert_allclose(legs[3], [CENTRES[1], CENTRES[2]])  # (2,2) -> slot of tile 3
    with pytest.raises(viz.VizInputError, match="no bfs path"):
        viz.assembly_plan_from_study(Study(), planner="bfs")
    with pytest.raises(viz.VizInputError, match="`cost`"):
        viz.assembly_plan_from_study(Study(), cost="mu")


@pytest.mark.parametrize("kwargs, name", [
    ({"placed": np.array([1, 9])}, "placed"),
    ({"leg_positions": np.zeros((3, 2, 2))}, "leg_positions"),
    ({"costs": [1.0]}, "costs"),
    ({"tile_side": 0.0}, "tile_side"),
])
def test_bad_input_names_the_argument(kwargs, name):
    args = {"tile_centres": CENTRES, "placed": np.array([1, 2]), "leg_positions": np.zeros((2, 2, 2)),
            "costs": [0.0, 1.0]}
    args.update(kwargs)
    with pytest.raises(viz.VizInputError, match=f"`{name}`"):
        viz.assembly_plan(**args)
