"""The HTML file itself: self-contained (no external resource), data as JSON, notebook iframe."""

import html
import json
import re
from importlib import resources

import numpy as np
import pytest

from satdyn import viz
from satdyn.viz.scene import fit_camera, rounded


def square(title="a plate"):
    nodes = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    return viz.mode_shapes_mesh(nodes, np.array([[0, 1, 2, 3]]), np.array([[0.0], [0.5], [1.0], [0.5]]), [6.0],
                                title=title)


def test_file_is_self_contained_and_carries_the_licence(tmp_path):
    # opened from file:// with no network: no <script src>, <link href>, @import or url(...) may
    # point anywhere; three.js is inlined with its licence header, and the licence file ships
    text = square().save(tmp_path / "s.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\bsrc=|<link[^>]*\bhref=|@import|url\(", text)
    assert "Copyright 2010-2023 Three.js Authors" in text and "SPDX-License-Identifier: MIT" in text
    licence = resources.files("satdyn.viz").joinpath("static", "THREE_LICENSE").read_text()
    assert "three.js authors" in licence and "Permission is hereby granted" in licence


def test_title_cannot_close_the_script_and_data_round_trips():
    # a "</script>" in user text must not end the JSON block early (the "<\/" escape)
    scene = square(title="</script><b>x</b>")
    text = scene.to_html()
    assert text.count("</script>") == text.count("<script")
    block = re.search(r'id="satdyn-data">(.*?)</script>', text, re.DOTALL).group(1)
    data = json.loads(block)
    assert data["title"] == "</script><b>x</b>" and data["kind"] == "modes"
    assert data["modes"]["modes"][0]["omega"] == 6.0


def test_notebook_repr_is_an_iframe_of_the_same_page():
    scene = square()
    frame = scene._repr_html_()
    srcdoc = re.search(r'srcdoc="(.*?)" style=', frame, re.DOTALL).group(1)
    assert html.unescape(srcdoc) == scene.to_html()


def test_rounding_keeps_significant_digits_of_the_largest_entry():
    # 6 significant digits of the largest |entry| (1234.5): resolution 0.01, so 0.004 -> 0
    assert rounded([1234.5678, 0.004, -0.0]) == [1234.57, 0.0, 0.0]
    assert rounded([1e-7, 3.14159265e-7]) == [1e-7, 3.14159e-7]
    with pytest.raises(viz.VizInputError, match="finite"):
        rounded([1.0, np.nan])


def test_camera_sees_the_whole_box():
    # the box's bounding sphere must subtend at most the narrower half field of view from the eye
    cam = fit_camera([-1, -2, 0], [3, 2, 1], fov=40.0, aspect=0.5)
    eye, target = np.array(cam["eye"]), np.array(cam["target"])
    radius = 0.5 * np.linalg.norm([4, 4, 1])
    half_h = np.arctan(np.tan(np.radians(20.0)) * 0.5)
    assert np.arcsin(radius / np.linalg.norm(eye - target)) <= half_h + 1e-6
    np.testing.assert_allclose(target, [1, 0, 0.5])


def test_save_wants_an_html_name(tmp_path):
    with pytest.raises(viz.VizInputError, match="`path`"):
        square().save(tmp_path / "s.png")
