"""Mode-shape views: data written for the page, and what the browser draws."""

import json
import re

import numpy as np
import pytest

from satdyn import fe, viz

from .conftest import pixel_box, projected_box, saturated

# tolerance on pixel boxes: 1 px of rounding each side plus 2 px of antialiasing/line width
PIXELS = 3.0


@pytest.fixture(scope="module")
def cantilever():
    # 2 m x 1 m aluminium plate clamped along x = 0: first mode is bending (tip moves in z)
    return fe.plate(2.0, 1.0, 0.01, 70e9, 0.3, 2700.0, element_size=0.125)


def page_data(scene):
    match = re.search(r'id="satdyn-data">(.*?)</script>', scene.to_html(), re.DOTALL)
    return json.loads(match.group(1).replace("<\\/", "</"))


def test_written_shapes_and_frequencies(cantilever):
    # compared with the structure's own modes(): the page must show its frequencies and its
    # shapes scaled to a largest nodal displacement of 1 (written with 5 significant digits of
    # that 1, so rounded to 1e-4: half of it is the tolerance)
    scene = viz.mode_shapes(cantilever, n_modes=4)
    modes = cantilever.modes(4)
    data = page_data(scene)["modes"]
    assert [m["omega"] for m in data["modes"]] == pytest.approx(modes.omega, rel=1e-12)
    assert [m["hz"] for m in data["modes"]] == pytest.approx(modes.omega / (2 * np.pi), rel=1e-12)
    full = cantilever.full_shapes(modes)[:, :3, :]
    for j, m in enumerate(data["modes"]):
        shape = np.array(m["shape"]).reshape(-1, 3)
        expected = full[:, :, j] / np.linalg.norm(full[:, :, j], axis=1).max()
        assert np.abs(shape - expected).max() <= 0.5e-4 + 1e-12
        assert np.linalg.norm(shape, axis=1).max() == pytest.approx(1.0, abs=1e-4)
    assert len(data["triangles"]) == 3 * 2 * len(cantilever.mesh.elements)


def test_any_meshed_body_with_z_shapes():
    # a triangle mesh with out-of-plane shapes only: the (n, m) form is the z column of (n, 3, m)
    nodes = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    faces = np.array([[0, 1, 3], [0, 3, 2]])
    w = np.array([[0, 0], [1, 0.5], [0.5, -1], [2, 0]])
    a = page_data(viz.mode_shapes_mesh(nodes, faces, w, [1.0, 2.0]))["modes"]
    b = page_data(viz.mode_shapes_mesh(nodes, faces, np.stack([0 * w, 0 * w, w], 1), [1.0, 2.0]))["modes"]
    assert a == b
    assert a["modes"][0]["shape"][-1] == pytest.approx(1.0)       # node 3, z, of mode 1 is its peak (2 / 2)


@pytest.mark.parametrize("kwargs, name", [
    ({"faces": np.array([[0, 1, 9]])}, "faces"),
    ({"omega": [1.0]}, "omega"),
    ({"shapes": np.zeros((3, 2))}, "shapes"),
    ({"amplitude": -1.0}, "amplitude"),
])
def test_bad_input_names_the_argument(kwargs, name):
    args = {"nodes": np.array([[0, 0], [1, 0], [0, 1], [1, 1]], float), "faces": np.array([[0, 1, 3]]),
            "shapes": np.ones((4, 2)), "omega": [1.0, 2.0]}
    args.update(kwargs)
    with pytest.raises(viz.VizInputError, match=f"`{name}`"):
        viz.mode_shapes_mesh(**args)


def test_browser_draws_the_animated_mode_where_the_camera_puts_it(browser, cantilever, tmp_path):
    # the oracle is the textbook pinhole projection of the deformed nodes at the hash times:
    # t = 0.5 s and 1.5 s are the two extreme phases (+1, -1) of the 2 s display cycle
    scene = viz.mode_shapes(cantilever, n_modes=3)
    path = scene.save(tmp_path / "modes.html")
    data = page_data(scene)["modes"]
    x0 = np.array(data["nodes"]).reshape(-1, 3)
    shots = browser.render(path, ["mode=1&t=0.5&ui=0", "mode=1&t=1.5&ui=0", "mode=2&t=0.5&ui=0"])
    boxes = []
    for (image, state), (mode, phase) in zip(shots, [(1, 1.0), (1, -1.0), (2, 1.0)]):
        assert state["mode"] == mode and state["phase"] == pytest.approx(phase)
        mesh = saturated(image)
        assert mesh.sum() > 0.05 * mesh.size, "the deformed mesh is (almost) not drawn"
        shape = np.array(data["modes"][mode - 1]["shape"]).reshape(-1, 3)
        want = projected_box(scene.camera, x0 + phase * data["amplitude"] * shape, image)
        got = pixel_box(mesh)
        assert np.all(np.abs(np.array(got) - np.array(want)) <= PIXELS), (got, want)
        boxes.append(got)
    # the animation moves pixels: the two phases of mode 1 differ where the tip swings
    changed = np.abs(shots[0][0] - shots[1][0]).max(axis=2) > 40
    assert changed.sum() > 2000
    assert boxes[0] != boxes[1]


@pytest.mark.slow
def test_tile_structure_modes_render(browser, tmp_path):
    # F_3 of the assembly (coarse mesh): the view of a satdyn.fe tile structure is drawn and the
    # frequency line is on the page (checked in the state: mode 3 selected from the hash)
    structure = fe.tile_structure(n=3, elements_per_edge=4)
    path = viz.mode_shapes(structure, n_modes=4).save(tmp_path / "tiles.html")
    (image, state), = browser.render(path, ["mode=3&t=0.5"])
    assert state["mode"] == 3
    assert saturated(image).sum() > 0.03 * image.shape[0] * image.shape[1]
