"""URDF reader (the project's one URDF parser).

``load_urdf(path, floating=False, gravity=None, *, joint_damping=False, mimic="independent",
inertia_tolerance=1e-6, strict=False) -> Model`` (or :class:`~satdyn.multibody.mimic.CoupledModel`):

* ``path`` -- URDF file;
* ``floating`` -- True: the root link gets a 6-DOF quaternion root (q starts with
  ``[r_i (3), quaternion (4)]``); False: the root link is welded to the inertial frame;
* ``gravity`` (3,) -- ``[g]_i`` [m/s^2], default none (the URDF carries no gravity);
* ``joint_damping`` -- use each joint's ``<dynamics damping>`` as a linear damper (default
  False: Pinocchio's algorithms ignore it too);
* ``mimic`` -- ``"independent"`` (default, as Pinocchio's ``buildModelFromUrdf``): a mimic
  joint is read as an ordinary joint with its own coordinate, with a ``UserWarning``;
  ``"coupled"``: returns a :class:`~satdyn.multibody.mimic.CoupledModel` in which each mimic
  joint follows its master, ``q = multiplier * q_master + offset`` (one velocity), as
  Pinocchio's ``buildModelFromUrdf(..., mimic=True)``;
* ``inertia_tolerance`` -- relative tolerance on a link inertia that is not positive
  semi-definite: a negative eigenvalue down to ``-inertia_tolerance * J_ref``, with ``J_ref``
  the largest principal moment of any link of the file, is rounding in the file; the inertia
  is projected onto the PSD cone (negative eigenvalues set to zero) with a warning naming the
  link. Beyond it the inertia is not a rigid body's, but it is read as written, as Pinocchio
  reads it (its dynamics are Pinocchio's), with a warning naming the link and its principal
  moments;
* ``strict`` -- True: such an inertia (negative principal moment beyond ``inertia_tolerance``)
  is refused with an error naming the link.

A link with zero mass but an inertia (a common idiom for a robot's base link or a foot) is a
rotational inertia without mass, read as Pinocchio reads it, with a warning -- except for the
root link of a fixed-base model, where it moves with nothing and the model is exact anyway.

Supported joints: ``fixed`` (weld), ``revolute`` and ``continuous`` (revolute, one angle; note
that Pinocchio stores a continuous joint as (cos, sin), nq = 2), ``prismatic``. Joint limits are
read but not enforced. Body frames are the link frames; joint origins use URDF's fixed-axis
roll-pitch-yaw, ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (Euler 3-2-1). Bodies are numbered depth-first
from the root, the children of a link taken in joint-name order, which is Pinocchio's joint
order (urdfdom sorts joints by name). Floating / planar joints, several root links and closed
loops (a link with two parents) raise ``ValueError``. The XML is read as urdfdom reads it:
leading whitespace or a byte-order mark before the declaration, comments and unknown
elements are accepted.
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from xml.parsers import expat

import numpy as np

from .._validation import as_float_array
from ..spatial import dcm_from_euler, rigid_mass_matrix
from .joints import fixed_root, floating_root, prismatic_joint, revolute_joint, weld_joint
from .model import Body, ModelBuilder, body

__all__ = ["load_urdf"]

_JOINT_TYPES = ("fixed", "revolute", "continuous", "prismatic")
_MIMIC_MODES = ("independent", "coupled")


@dataclass(frozen=True, eq=False)
class _AsWrittenBody(Body):
    """A link whose inertia has a negative principal moment, kept as the file writes it.

    Pinocchio builds ``Inertia(m, c, I)`` from any symmetric ``I``; :func:`~.model.body`
    refuses it (not a rigid body). The 6x6 model is the rigid one of the mass and the CoM
    plus the inertia in its angular block -- the same formula, linear in the inertia.
    """

    @property
    def spatial_inertia(self) -> np.ndarray:
        D = rigid_mass_matrix(self.mass, np.zeros((3, 3)), self.com) if self.mass > 0.0 else np.zeros((6, 6))
        D[3:, 3:] += self.inertia
        return D


def _vector(element, attribute, default, where):
    if element is None or element.get(attribute) is None:
        return np.array(default, dtype=float)
    try:
        values = np.array([float(x) for x in element.get(attribute).split()])
    except ValueError:
        raise ValueError(f"URDF {where}: attribute {attribute}={element.get(attribute)!r} is not numeric") from None
    if values.shape != (len(default),) or not np.all(np.isfinite(values)):
        raise ValueError(f"URDF {where}: {attribute} must have {len(default)} finite numbers; "
                         f"got {element.get(attribute)!r}")
    return values


def _number(element, attribute, default, where):
    return float(_vector(element, attribute, (default,), where)[0])


def _origin(element, where):
    origin = element.find("origin") if element is not None else None
    xyz = _vector(origin, "xyz", (0.0, 0.0, 0.0), where)
    rpy = _vector(origin, "rpy", (0.0, 0.0, 0.0), where)
    return xyz, dcm_from_euler(rpy)


def _raw_inertial(link):
    """(mass, com, inertia about the CoM in the link frame) as written in the file."""
    name = link.get("name")
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    where = f"link {name!r} inertial"
    mass = _number(inertial.find("mass"), "value", 0.0, where)
    if mass < 0.0:
        raise ValueError(f"URDF link {name!r}: mass must be >= 0 [kg]; got {mass}")
    com, R = _origin(inertial, where)
    I_el = inertial.find("inertia")
    g = {k: _number(I_el, k, 0.0, where) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    J = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]])
    return mass, com, R @ J @ R.T


def _physical_inertia(name, J, reference, tolerance, strict):
    """``(inertia, as_written)``: J itself if PSD; projected (warning) if within ``tolerance * reference``;
    beyond it, J as written (warning, ``as_written=True``) or, with ``strict``, an error."""
    eig, vecs = np.linalg.eigh(J)
    if eig[0] >= 0.0:
        return J, False
    if eig[0] >= -1e-12 * max(1.0, abs(eig[-1])):
        # rounding of the file's frame rotation (R J R^T of a zero or thin inertia): clip
        # silently, so that the body's own check (relative to its largest moment) sees a PSD
        # tensor -- iCub has a zero inertia whose rotated copy reads +-1.4e-20 off-diagonal
        return (vecs * np.maximum(eig, 0.0)) @ vecs.T, False
    moments = ", ".join(f"{e:.4g}" for e in eig)
    if eig[0] < -tolerance * reference:
        if strict:
            raise ValueError(f"URDF link {name!r}: inertia is not positive semi-definite (principal moments "
                             f"[{moments}] kg m^2, beyond `inertia_tolerance` = {tolerance:g} x {reference:.3g} "
                             "kg m^2); refused with strict=True (strict=False reads it as written, as Pinocchio)")
        warnings.warn(f"URDF link {name!r}: inertia has a negative principal moment (principal moments "
                      f"[{moments}] kg m^2): not a rigid body's; read as written, as Pinocchio does "
                      "(strict=True refuses it)", UserWarning, stacklevel=4)
        return J, True
    warnings.warn(f"URDF link {name!r}: inertia not positive semi-definite by {-eig[0]:.3g} kg m^2 "
                  f"(within `inertia_tolerance`); projected onto the PSD cone", UserWarning, stacklevel=4)
    return (vecs * np.maximum(eig, 0.0)) @ vecs.T, False


def _read_xml(path):
    """The root element and ``{element: 1-based line}`` of the file (expat, as ElementTree reads it)."""
    data = path.read_bytes()
    # urdfdom (TinyXML) accepts whitespace or a byte-order mark before the XML declaration; expat does not.
    stripped = data.lstrip(b"\xef\xbb\xbf").lstrip()
    skipped_lines = data[:len(data) - len(stripped)].count(b"\n")
    builder, lines = ET.TreeBuilder(), {}
    parser = expat.ParserCreate()

    def start(tag, attributes):
        lines[builder.start(tag, attributes)] = parser.CurrentLineNumber + skipped_lines

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(stripped, True)
        return builder.close(), lines
    except (expat.ExpatError, AssertionError) as exc:   # TreeBuilder asserts on an empty document
        raise ValueError(f"`path`: {path} is not valid XML: {exc or 'no element'}") from None


def _named(elements, kind, path, lines):
    """``{name: element}``, refusing a missing or repeated name (both lines named)."""
    out = {}
    for el in elements:
        name = el.get("name")
        if not name:
            raise ValueError(f"URDF {path.name}, line {lines[el]}: a <{kind}> has no name")
        if name in out:
            raise ValueError(f"URDF {path.name}: {kind} name {name!r} is given twice (lines {lines[out[name]]} "
                             f"and {lines[el]}); names must be unique")
        out[name] = el
    return out


def _cycle_from(link, parent_of):
    """The cycle of joints reached by walking up the parents from ``link`` (every link on it has a parent)."""
    seen, order = set(), []
    while link not in seen:
        seen.add(link)
        order.append(link)
        link = parent_of[link].find("parent").get("link")
    return order[order.index(link):] + [link]


def _check_tree(links, parent_of, children, path):
    """The root link's name; several roots, cycles and links the root does not reach are errors naming them."""
    roots = [name for name in links if name not in parent_of]
    if len(roots) > 1:
        raise ValueError(f"URDF {path.name} must have exactly one root link (a link no joint has as child); "
                         f"found {len(roots)}: {roots}")
    if not roots:
        cycle = _cycle_from(next(iter(links)), parent_of)
        raise ValueError(f"URDF {path.name} must have exactly one root link; found none: the joints form a "
                         f"cycle {' -> '.join(cycle)}")
    reached, stack = {roots[0]}, [roots[0]]
    while stack:
        for j in children[stack.pop()]:
            child = j.find("child").get("link")
            reached.add(child)
            stack.append(child)
    unreached = [name for name in links if name not in reached]
    if unreached:
        # every unreached link has a parent (the root is the only link without one): they hang on a cycle
        cycle = _cycle_from(unreached[0], parent_of)
        raise ValueError(f"URDF {path.name}: links {unreached} are not reached from the root link {roots[0]!r}: "
                         f"the joints form a cycle {' -> '.join(cycle)}")
    return roots[0]


def load_urdf(path, floating: bool = False, gravity=None, *, joint_damping: bool = False,
              mimic: str = "independent", inertia_tolerance: float = 1e-6, strict: bool = False):
    """Read a URDF file into a :class:`~satdyn.multibody.model.Model` (see module doc).

    Returns a :class:`~satdyn.multibody.mimic.CoupledModel` when ``mimic="coupled"`` and the
    file has mimic joints.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"`path` must be a str or Path to a URDF file; got {type(path).__name__}")
    for flag, label in ((floating, "floating"), (joint_damping, "joint_damping"), (strict, "strict")):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"`{label}` must be True or False; got {flag!r}")
    if mimic not in _MIMIC_MODES:
        raise ValueError(f"`mimic` must be one of {_MIMIC_MODES}; got {mimic!r}")
    tolerance = float(as_float_array(inertia_tolerance, "inertia_tolerance"))
    if not 0.0 <= tolerance < 1.0:
        raise ValueError(f"`inertia_tolerance` must be in [0, 1); got {tolerance}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no URDF file at {str(path)!r}")
    root, lines = _read_xml(path)
    if root.tag != "robot":
        raise ValueError(f"`path`: {path} is not a URDF (root element <{root.tag}>, expected <robot>)")
    links = _named(root.findall("link"), "link", path, lines)
    joints = list(_named(root.findall("joint"), "joint", path, lines).values())
    if not links:
        raise ValueError(f"`path`: {path} has no <link>")
    parent_of, children, mimics = {}, {name: [] for name in links}, {}
    for j in joints:
        jname, jtype = j.get("name"), j.get("type")
        if jtype not in _JOINT_TYPES:
            raise ValueError(f"URDF joint {jname!r}: type {jtype!r} is not supported "
                             f"(supported: {', '.join(_JOINT_TYPES)})")
        if j.find("parent") is None or j.find("child") is None:
            raise ValueError(f"URDF joint {jname!r}: needs a <parent link=...> and a <child link=...>")
        parent, child = j.find("parent").get("link"), j.find("child").get("link")
        for ln in (parent, child):
            if ln not in links:
                raise ValueError(f"URDF joint {jname!r} refers to an unknown link {ln!r}")
        if child in parent_of:
            raise ValueError(f"URDF link {child!r} has two parent joints ({parent_of[child].get('name')!r}, "
                             f"{jname!r}): closed kinematic loops are not supported by the URDF reader "
                             "(add a LoopClosure to the model instead)")
        parent_of[child] = j
        children[parent].append(j)
        if j.find("mimic") is not None and jtype != "fixed":
            m = j.find("mimic")
            where = f"joint {jname!r} mimic"
            mimics[jname] = (m.get("joint"), _number(m, "multiplier", 1.0, where), _number(m, "offset", 0.0, where))
    root_name = _check_tree(links, parent_of, children, path)
    types = {j.get("name"): j.get("type") for j in joints}
    # Independent mode ignores the masters (as Pinocchio does, even a dangling one); coupling needs them.
    for jname, (master, _, _) in mimics.items() if mimic == "coupled" else ():
        if types.get(master) not in ("revolute", "continuous", "prismatic"):
            raise ValueError(f"URDF joint {jname!r} mimics {master!r}, which is not a revolute, continuous "
                             "or prismatic joint of the file")
        if master in mimics:
            raise ValueError(f"URDF joint {jname!r} mimics {master!r}, itself a mimic joint")
    if mimics and mimic == "independent":
        warnings.warn(f"URDF {path.name}: mimic joints {sorted(mimics)} are read as independent joints "
                      "(as Pinocchio's default); pass mimic='coupled' to couple them to their masters",
                      UserWarning, stacklevel=2)
    model = _build(links, children, root_name, floating, gravity, joint_damping, root.get("name", path.stem),
                   tolerance, strict)
    if mimics and mimic == "coupled":
        from .mimic import CoupledModel
        return CoupledModel(model, mimics)
    return model


def _make_joint(j, damping):
    jname, jtype = j.get("name"), j.get("type")
    xyz, R = _origin(j, f"joint {jname!r}")
    axis = _vector(j.find("axis"), "xyz", (1.0, 0.0, 0.0), f"joint {jname!r} axis")
    if jtype != "fixed" and np.linalg.norm(axis) < 1e-12:
        raise ValueError(f"URDF joint {jname!r}: axis must be non-zero; got {axis.tolist()}")
    d = _number(j.find("dynamics"), "damping", 0.0, f"joint {jname!r} dynamics") if damping else 0.0
    if jtype == "fixed":
        return weld_joint(jname, rotation=R), xyz
    if jtype in ("revolute", "continuous"):
        return revolute_joint(jname, axis, rotation=R, damping=d), xyz
    return prismatic_joint(jname, axis, rotation=R, damping=d), xyz


def _build(links, children, root_name, floating, gravity, damping, robot_name, tolerance, strict):
    """Bodies depth-first from the root, children in joint-name order (Pinocchio's order)."""
    raw = {name: _raw_inertial(link) for name, link in links.items()}
    reference = max([np.abs(np.linalg.eigvalsh(J)).max() for _, _, J in raw.values()] + [0.0])

    def link_body(name):
        mass, com, J = raw[name]
        J, as_written = _physical_inertia(name, J, reference, tolerance, strict)
        if mass == 0.0 and np.any(J) and (floating or name != root_name):
            warnings.warn(f"URDF link {name!r}: zero mass with a non-zero inertia, read as a rotational "
                          "inertia without mass (as Pinocchio)", UserWarning, stacklevel=4)
        if as_written:
            # body() checks everything but the inertia; the inertia is set as the file writes it
            rigid = body(name, mass, com=com)
            frozen = np.array(J, dtype=float)
            frozen.setflags(write=False)
            return _AsWrittenBody(rigid.name, rigid.mass, rigid.com, frozen, rigid.ports)
        return body(name, mass, com=com, inertia=J)

    builder = ModelBuilder(gravity=gravity, name=robot_name)
    builder.add_body(link_body(root_name), floating_root(root_name) if floating else fixed_root(root_name))
    # depth-first pre-order with an explicit stack (a recursion would stop at ~1000 joints)
    stack = [(root_name, j) for j in sorted(children[root_name], key=lambda j: j.get("name"), reverse=True)]
    while stack:
        parent, j = stack.pop()
        joint, xyz = _make_joint(j, damping)
        child = j.find("child").get("link")
        builder.add_body(link_body(child), joint, parent=parent, position=xyz)
        stack.extend((child, c) for c in sorted(children[child], key=lambda c: c.get("name"), reverse=True))
    return builder.build()
