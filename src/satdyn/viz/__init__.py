"""satdyn.viz: 3D views in the browser (one self-contained HTML file each, or inline in a notebook).

* :func:`mode_shapes`, :func:`mode_shapes_mesh` -- animated mode shapes of FE structures or any meshed body;
* :func:`robot` -- a multibody model (URDF visuals or equivalent-inertia boxes) with joint sliders;
* :func:`trajectory` -- a multibody trajectory replayed with a time slider;
* :func:`assembly_plan`, :func:`assembly_plan_from_study` -- the structure growing tile by tile.

Each returns a :class:`Scene`: ``scene.save("view.html")``, ``scene.to_html()``, or display it in
Jupyter.  three.js (MIT) is inlined from package data.  See docs/viz.md.
"""

from .assembly import assembly_plan, assembly_plan_from_study
from .meshes import TriangleMesh, load_mesh
from .modes import mode_shapes, mode_shapes_mesh
from .robot import inertia_box, robot, trajectory
from .scene import Scene, VizInputError, fit_camera
from .urdf_visuals import Visual, urdf_visuals

__all__ = [
    "Scene",
    "TriangleMesh",
    "Visual",
    "VizInputError",
    "assembly_plan",
    "assembly_plan_from_study",
    "fit_camera",
    "inertia_box",
    "load_mesh",
    "mode_shapes",
    "mode_shapes_mesh",
    "robot",
    "trajectory",
    "urdf_visuals",
]
