"""Trajectory replay: a free-floating spacecraft-manipulator whose base moves; the time slider
(hash ``t``) must move the drawn robot to where body_poses and the pinhole camera put it."""

from types import SimpleNamespace

import numpy as np
import pytest

from satdyn import viz
from satdyn.multibody import (
    ModelBuilder,
    body,
    body_poses,
    floating_root,
    revolute_joint,
)
from satdyn.viz.robot import inertia_box

from .conftest import pixel_box, projected_box

PIXELS = 3.0


def bus_and_arm():
    b = ModelBuilder(name="chaser")
    b.add_body(body("bus", 200.0, inertia=np.diag([40.0, 60.0, 80.0]), ports={"mount": [0.8, 0.0, 0.4]}),
               floating_root("float"))
    b.add_body(body("arm", 4.0, com=[0.6, 0, 0], inertia=np.diag([0.01, 0.5, 0.5])),
               revolute_joint("shoulder", [0.0, 0.0, 1.0]), parent="bus", port="mount")
    return b.build()


def motion(t):
    """The base translates along x at 0.6 m/s and turns about z at 0.5 rad/s; the arm swings."""
    t = np.asarray(t, dtype=float)
    half = 0.25 * t
    return np.column_stack([0.6 * t, 0.1 * t, 0 * t, 0 * t, 0 * t, np.sin(half), np.cos(half), np.sin(t)])


def blue(image):
    # the bus's equivalent-inertia box is drawn in the first palette colour (0.30, 0.50, 0.78)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (b > r + 50) & (b > g + 25)


def test_trajectory_data_and_sampling():
    model = bus_and_arm()
    t = np.linspace(0.0, 4.0, 5001)
    scene = viz.trajectory(model, SimpleNamespace(t=t, q=motion(t)), max_frames=101)
    times = np.array(scene.data["times"])
    # evenly spaced output indices, first and last kept
    assert times.size == 101 and times[0] == 0.0 and times[-1] == 4.0
    np.testing.assert_allclose(np.diff(times), 0.04, atol=1e-9)
    # the drawn trail is the floating root's path (body_poses of the base), written with 7
    # significant digits of its largest coordinate (2.4 m): rounded to 1e-6 m, half of it the tolerance
    trail = np.array(scene.data["trail"]).reshape(-1, 3)
    np.testing.assert_allclose(trail, body_poses(model, motion(times))[0][:, 0], rtol=0, atol=5e-7 + 1e-12)


def test_time_slider_moves_the_base(browser, tmp_path):
    model = bus_and_arm()
    t = np.linspace(0.0, 4.0, 41)
    scene = viz.trajectory(model, t, motion(t))
    path = scene.save(tmp_path / "traj.html")
    bus = model.bodies[0]
    sides, axes = inertia_box(bus.mass, bus.inertia)
    box = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * 0.5 * sides @ axes.T
    shots = browser.render(path, ["t=0&ui=0", "t=4&ui=0", "t=2.05&ui=0"])
    boxes = []
    for (image, state), time in zip(shots[:2], (0.0, 4.0)):
        assert state["t"] == pytest.approx(time)
        pos, dcm = body_poses(model, motion([time])[0])
        want = projected_box(scene.camera, box @ dcm[0].T + pos[0], image)
        got = pixel_box(blue(image))
        assert got is not None, f"the bus is not drawn at t = {time}"
        assert np.all(np.abs(np.array(got) - np.array(want)) <= PIXELS), (time, got, want)
        boxes.append(got)
    assert boxes[0] != boxes[1]
    # between frames (t = 2.05 s, halfway from 2.0 to 2.1) the page interpolates q linearly:
    # compare with body_poses of the interpolated q (normalised quaternion); q is written with 7
    # significant digits of its largest entry (2.4 m): 5e-7 per entry, times lever arms under 2 m
    q = 0.5 * (motion([2.0])[0] + motion([2.1])[0])
    pos, _ = body_poses(model, q)
    np.testing.assert_allclose(np.array(shots[2][1]["positions"]), pos, atol=1e-6)


def test_simulation_result_of_a_free_floating_manipulator():
    # a real SimulationResult: the arm starts turning at 1 rad/s in space, so the bus reacts
    # (momentum is conserved); the page gets the simulated q (7 significant digits) and the
    # bus's path, which moves
    from satdyn.multibody import simulate

    model = bus_and_arm()
    v0 = np.zeros(model.nv)
    v0[-1] = 1.0
    result = simulate(model, (0.0, 2.0), (model.neutral_configuration(), v0), t_eval=np.linspace(0, 2, 21),
                      compiled=False, derived=False, method="RK45", rtol=1e-8, atol=1e-10)
    scene = viz.trajectory(model, result)
    q = np.array(scene.data["q"]).reshape(-1, model.nq)
    np.testing.assert_allclose(q, result.q, rtol=0, atol=0.5e-6 * np.abs(result.q).max() + 1e-15)
    trail = np.array(scene.data["trail"]).reshape(-1, 3)
    assert np.linalg.norm(trail[-1] - trail[0]) > 1e-3


def test_prescribed_root_moves_with_time(browser, tmp_path):
    # a root whose motion is a function of time (prescribed_root): the page gets its pose at every
    # frame; oracle: the library's forward kinematics at the same (q, t)
    from satdyn.multibody import prescribed_root
    from satdyn.multibody.kinematics import forward_kinematics
    from satdyn.spatial import dcm_from_euler

    def motion(t):
        return (np.array([0.3 * t, 0.0, 0.1 * t]), dcm_from_euler(np.array([0.0, 0.0, 0.5 * t])),
                np.zeros(6), np.zeros(6))

    b = ModelBuilder(name="carried")
    b.add_body(body("base", 10.0, inertia=np.eye(3), ports={"p": [0.5, 0, 0]}), prescribed_root(motion))
    b.add_body(body("link", 1.0, com=[0.3, 0, 0], inertia=0.01 * np.eye(3)), revolute_joint("j", [0, 0, 1.0]),
               parent="base", port="p")
    model = b.build()
    t = np.linspace(0.0, 2.0, 5)
    q = np.sin(t)[:, None]
    path = viz.trajectory(model, t, q).save(tmp_path / "carried.html")
    (_, state), = browser.render(path, ["t=1.5&ui=0"])
    kin = forward_kinematics(model, q[3:4], np.zeros((1, model.nv)), 1.5)
    want = np.stack([np.broadcast_to(r, (1, 3))[0] for r in kin.r_world])
    # 9 significant digits for the root pose, 7 for q (|q| <= 1): 1e-6 m covers both
    np.testing.assert_allclose(np.array(state["positions"]), want, atol=1e-6)
    assert np.linalg.norm(want[0] - motion(0.0)[0]) > 0.1          # the root did move
