"""Write the example model files of satdyn/data/models from satdyn.titop's data (run by hand).

    PYTHONPATH=src python tests/io/make_example_files.py

The files are data; tests/io/test_examples.py checks that each one builds the same LFR as
the corresponding Python model of satdyn.titop (so a stale file fails the suite).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from satdyn.io import save_model
from satdyn.io.modal import ModalTable, write_modal_table
from satdyn.spatial import rigid_mass_matrix
from satdyn.titop.data import load_arm_geometry, load_assembly_spacecraft, load_hub_two_arrays

OUT = Path(__file__).resolve().parents[2] / "src" / "satdyn" / "data" / "models"


def L(a):
    return np.asarray(a, float).tolist()


def hub_two_arrays_doc():
    d = load_hub_two_arrays()
    am = d.array_modes
    params = [{"name": "array_angle", "kind": "varying", "nominal": 0.0, "range": L(d.angle_range),
               "transform": "tan_quarter", "description": "shared drive angle of both arrays [rad]"}]
    bodies = [{"name": "hub", "type": "rigid", "mass": d.hub_mass, "inertia": L(d.hub_inertia),
               "ports": {nm: L(d.r_G_P[k]) for k, nm in enumerate(d.array_names)}, "frame": "b"}]
    joints, wires = [], []
    for k, nm in enumerate(d.array_names):
        params.append({"name": f"{nm}.omega1", "kind": "uncertain", "nominal": float(am.omega[0]),
                       "percent": 100.0 * d.r_omega})
        joints.append({"name": f"{nm}_drive", "type": "revolute", "axis": L(d.drive_axes[k]), "angle": "array_angle",
                       "offset": L(d.P_a_b_at_zero[k]), "frames": ["b", f"{nm}.a"]})
        bodies.append({"name": nm, "type": "flexible", "D_P": L(d.array_D_P), "frame": f"{nm}.a",
                       "modes": {"frequencies": [f"{nm}.omega1"] + L(am.omega[1:]), "damping": L(am.damping),
                                 "L_P": L(am.L_P)}})
        wires += [[f"hub.{nm}", f"{nm}_drive.parent"], [f"{nm}_drive.child", f"{nm}.P"]]
    return {"satdyn_model": 1, "name": "hub_two_arrays", "synthetic": True,
            "description": "satdyn.titop.models.hub_two_arrays() written as a file. SYNTHETIC data (see "
                           "satdyn/data/titop/synthetic_hub_two_arrays.json): a 1100 kg hub with two 45 kg arrays "
                           "on drive mechanisms; frequencies in rad/s.",
            "parameters": params, "bodies": bodies, "joints": joints, "connections": wires, "external": ["hub.G"]}


def arm_entries(name, arm, reverse, angle_names):
    """Bodies, joints and wires of robotic_arm(name, reverse=...) (satdyn.titop.models.arm)."""
    bodies, joints, wires = [], [], []
    for i in range(6):
        com = arm.link_coms[i]
        bodies.append({"name": f"{name}_L{i}", "type": "rigid", "mass": float(arm.link_masses[i]),
                       "inertia": L(arm.link_inertias[i]),
                       "ports": {"Ji": L(-com), "Jn": L(arm.link_vectors[i] - com)},
                       "direct": "Jn" if reverse else "Ji", "com_port": None, "frame": f"{name}.l{i}"})
    for k in range(1, 6):
        frames = [f"{name}.l{k}", f"{name}.l{k - 1}"] if reverse else [f"{name}.l{k - 1}", f"{name}.l{k}"]
        joints.append({"name": f"{name}_q{k}", "type": "revolute", "axis": L(arm.axes[k - 1]),
                       "angle": angle_names[k - 1], "offset": L(arm.offsets[k - 1]), "frames": frames,
                       "reverse": bool(reverse)})
        if reverse:
            wires += [[f"{name}_L{k}.Ji", f"{name}_q{k}.parent"], [f"{name}_q{k}.child", f"{name}_L{k - 1}.Jn"]]
        else:
            wires += [[f"{name}_L{k - 1}.Jn", f"{name}_q{k}.parent"], [f"{name}_q{k}.child", f"{name}_L{k}.Ji"]]
    return bodies, joints, wires


def angle_params(name):
    return [{"name": f"{name}.alpha{k}", "kind": "varying", "nominal": 0.0, "range": [-np.pi, np.pi],
             "transform": "tan_quarter"} for k in range(1, 6)]


def robotic_arm_doc():
    arm = load_arm_geometry("Y45")
    bodies, joints, wires = arm_entries("R", arm, False, [f"R.alpha{k}" for k in range(1, 6)])
    return {"satdyn_model": 1, "name": "robotic_arm", "synthetic": True,
            "description": "The 5-joint, 6-link arm of arXiv:2409.06017 section 2.5 with frozen joint angles "
                           "R.alpha1..5 (varying), geometry 'Y45' (ASSUMED: the paper does not publish it). "
                           "Ports: R_L0.Ji (foot J0, direct) and R_L5.Jn (J6, inverse).",
            "parameters": angle_params("R"), "bodies": bodies, "joints": joints, "connections": wires,
            "external": ["R_L0.Ji", "R_L5.Jn"]}


def frame(name, P, frames):
    return {"name": name, "type": "frame_change", "P_cp": L(P), "frames": list(frames)}


def assembly_doc():
    d = load_assembly_spacecraft()
    st, robot, am = d.structures[26], d.robot, d.array_modes
    params = [{"name": "A.omega1", "kind": "uncertain", "nominal": float(am.omega[0]),
               "percent": 100.0 * d.array_r_omega}]
    bodies = [{"name": "A", "type": "flexible", "D_P": L(d.array_D_P1), "frame": "a",
               "modes": {"frequencies": ["A.omega1"] + L(am.omega[1:]), "damping": L(am.damping), "L_P": L(am.L_P)}}]
    joints, wires = [], []
    for k in range(3):
        params += angle_params(f"R{k + 1}")
        b, j, w = arm_entries(f"R{k + 1}", robot.arm, k != 0, [f"R{k + 1}.alpha{i}" for i in range(1, 6)])
        bodies += b
        joints += j
        wires += w
    stack = d.n_tiles_total - 26
    bodies += [
        {"name": "B", "type": "rigid", "mass": d.hub_mass, "inertia": L(d.hub_inertia), "frame": "b",
         "ports": {"P1": L(d.r_G_P[0]), "P2": L(d.r_G_P[1]), "P3": L(d.r_G_P[2])}},
        {"name": "F", "type": "flexible", "D_P": L(st.D_P2), "frame": "f",
         "modes": {"frequencies": L(st.modes.omega), "damping": L(st.modes.damping), "L_P": L(st.modes.L_P),
                   "children": {"C": {"r": L(st.r_P2_C), "Phi": L(st.Phi_C)}}}},
        {"name": "C", "type": "rigid", "mass": robot.hub_mass, "inertia": L(robot.hub_inertia), "frame": "c",
         "ports": {"J6a": L(robot.r_D_J6[0]), "J6b": L(robot.r_D_J6[1]), "J63": L(robot.r_D_J6[2])},
         "direct": "J6a", "com_port": "D"},
    ]
    if stack > 0:
        bodies.append({"name": "S", "type": "rigid", "mass": d.tile_mass * stack,
                       "inertia": L(robot.tile_inertia * stack), "ports": {"P": L(-d.r_P3_C0)}, "direct": "P",
                       "com_port": None, "frame": "s"})
    joints += [frame("KA", d.P_a_b, ("b", "a")), frame("KF", d.P_f_b, ("b", "f")),
               frame("KD", np.eye(3), ("f", "R1.l0")), frame("KC", robot.P_l5_c[0].T, ("R1.l5", "c")),
               frame("Kb", robot.P_l5_c[1], ("c", "R2.l5")), frame("K3", robot.P_l5_c[2], ("c", "R3.l5"))]
    wires += [["B.P1", "KA.parent"], ["KA.child", "A.P"], ["B.P2", "KF.parent"], ["KF.child", "F.P"],
              ["F.C", "KD.parent"], ["KD.child", "R1_L0.Ji"], ["R1_L5.Jn", "KC.parent"], ["KC.child", "C.J6a"],
              ["C.J6b", "Kb.parent"], ["Kb.child", "R2_L5.Jn"], ["C.J63", "K3.parent"], ["K3.child", "R3_L5.Jn"]]
    free = ["R2_L0.Ji", "C.D", "R3_L0.Ji"]
    if stack > 0:
        joints.append(frame("KS", d.P_s_b, ("b", "s")))
        wires += [["B.P3", "KS.parent"], ["KS.child", "S.P"]]
    else:
        free.append("B.P3")
    return {"satdyn_model": 1, "name": "assembly_spacecraft", "synthetic": False,
            "description": "The on-orbit assembly spacecraft of arXiv:2409.06017 section 2.6 (Tables 2-3, "
                           "interpreted reading, tile layout B, arm geometry Y45 assumed), structure F_26 with "
                           "the robot docked by leg 1, no tile carried: "
                           "satdyn.titop.models.assembly_spacecraft() written as a file.",
            "parameters": params, "bodies": bodies, "joints": joints, "connections": wires,
            "external": ["B.G"], "free": free, "disturbances": {"F.C": "W_ext_C"}}


def telecom_antenna_table():
    """SYNTHETIC antenna (40 kg reflector on a 1.5 m boom): two boom bending modes.

    Mode j moves the reflector's centre of mass along x (j = 1) or y (j = 2) with an effective
    mass of 80 % of the antenna's mass; its participation row at P follows from the rigid
    motion of a mass at height h (rotation about y moves it by h theta_y along x).
    """
    m, h = 40.0, 1.5
    D_P = rigid_mass_matrix(m, np.diag([12.0, 12.0, 20.0]), np.array([0.0, 0.0, h]))
    a = np.sqrt(0.8 * m)
    L_P = np.array([[a, 0, 0, 0, a * h, 0], [0, a, 0, -a * h, 0, 0]])
    assert np.linalg.eigvalsh(D_P - L_P.T @ L_P).min() > 0
    return ModalTable(2 * np.pi * np.array([1.1, 1.25]), np.array([0.003, 0.003]), L_P, "ant", {}, D_P), D_P


def telecom_doc():
    d = load_hub_two_arrays()
    am = d.array_modes
    scale = 2.0        # 90 kg arrays: the synthetic 45 kg array with doubled mass (same shapes)
    D_arr = scale * d.array_D_P
    L_arr = np.sqrt(scale) * am.L_P
    omega = 0.7 * am.omega
    hub_J = np.array([[3200.0, -40.0, 25.0], [-40.0, 2900.0, 15.0], [25.0, 15.0, 2100.0]])
    params = [{"name": "hub.mass", "kind": "uncertain", "nominal": 2800.0, "percent": 5.0,
               "description": "hub mass [kg] (propellant load)"},
              {"name": "sada_angle", "kind": "varying", "nominal": 0.0, "range": [-np.pi, np.pi],
               "transform": "tan_quarter", "description": "solar-array drive angle of both wings [rad]"}]
    bodies = [{"name": "hub", "type": "rigid", "mass": "hub.mass", "inertia": L(hub_J), "frame": "b",
               "ports": {"north": [0.0, 1.2, 0.0], "south": [0.0, -1.2, 0.0], "earth": [0.0, 0.0, 1.0]}}]
    joints, wires = [], []
    for k, wing in enumerate(("north", "south")):
        params.append({"name": f"{wing}.omega1", "kind": "uncertain", "nominal": float(omega[0]), "percent": 20.0})
        joints.append({"name": f"{wing}_sada", "type": "revolute", "axis": [0.0, 1.0, 0.0], "angle": "sada_angle",
                       "offset": L(d.P_a_b_at_zero[k]), "frames": ["b", f"{wing}.a"]})
        bodies.append({"name": wing, "type": "flexible", "D_P": L(D_arr), "frame": f"{wing}.a",
                       "modes": {"frequencies": [f"{wing}.omega1"] + L(omega[1:]), "damping": L(am.damping),
                                 "L_P": L(L_arr)}})
        wires += [[f"hub.{wing}", f"{wing}_sada.parent"], [f"{wing}_sada.child", f"{wing}.P"]]
    table, D_P = telecom_antenna_table()
    write_modal_table(table, OUT / "telecom_antenna_modes.csv")
    joints.append({"name": "boom_hinge", "type": "locked", "axis": [1.0, 0.0, 0.0], "angle": 0.0,
                   "frames": ["b", "ant"]})
    bodies.append({"name": "antenna", "type": "flexible", "modal_file": "telecom_antenna_modes.csv",
                   "D_P": L(D_P), "frame": "ant"})
    wires += [["hub.earth", "boom_hinge.parent"], ["boom_hinge.child", "antenna.P"]]
    J_total = hub_J[0, 0] + 2 * 1200.0
    wc = 0.08           # attitude bandwidth [rad/s], well below the first array mode (~2.4 rad/s)
    return {"satdyn_model": 1, "name": "telecom", "synthetic": True,
            "description": "A generic telecom-like spacecraft, SYNTHETIC data: a 2800 kg hub (+/- 5 %), two "
                           "90 kg solar-array wings on drive mechanisms (first mode +/- 20 %), a 40 kg antenna on "
                           "a locked boom hinge whose modes come from a CSV modal table; attitude PD "
                           "controller at the hub's centre of mass.",
            "parameters": params, "bodies": bodies, "joints": joints, "connections": wires,
            "external": ["hub.G"],
            "controller": {"type": "attitude_pid", "port": "hub.G",
                           "kp": [round(J_total * wc ** 2, 3)] * 3, "kd": [round(2 * 0.7 * J_total * wc, 3)] * 3}}


#: the SYNTHETIC solar-array wing of the NASTRAN tutorial: a 5 m x 2 m sandwich panel as a beam
ARRAY_BEAM = {"n_elements": 24, "length": 5.0, "n_modes": 6, "E": 5e9, "G": 2e9, "width": 2.0,
              "thickness": 0.02, "rho": 225.0}


def write_array_f06(path):
    """An F06 (MSC layout, MAX-normalised eigenvectors) of the SYNTHETIC array beam clamped at grid 1."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from io_beam_fe import beam_modes
    from io_f06_writer import normalise, write_f06

    b = beam_modes(**ARRAY_BEAM)
    printed, gen = normalise(b.shapes, b.M, "MAX")
    gamma = printed.reshape(b.omega.size, -1) @ b.M @ b.D_r / gen[:, None]
    write_f06(path, b.omega, printed, gen, np.arange(1, ARRAY_BEAM["n_elements"] + 2), gamma,
              gamma ** 2 * gen[:, None], layout="MSC", rigid_mass=b.D_P)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    write_array_f06(OUT / "synthetic_array_beam.f06")
    for name, make in (("hub_two_arrays", hub_two_arrays_doc), ("robotic_arm", robotic_arm_doc),
                       ("assembly_spacecraft", assembly_doc), ("telecom", telecom_doc)):
        save_model(make(), OUT / f"{name}.yaml")
        print("wrote", OUT / f"{name}.yaml")
