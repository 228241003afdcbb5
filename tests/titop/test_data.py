"""Data of the shipped models: verbatim tables, interpreted reading, rigid composition, arm geometry.

Oracles: the numbers derived independently in specs 000a section 3.3-3.4, 000c and 000d
(hand/numpy derivations by the spec authors), and physical invariants.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from satdyn.spatial import mass_properties, rigid_mass_matrix
from satdyn.titop.data import (
    inertia_tensor, load_arm_geometry, load_assembly_spacecraft, load_hub_two_arrays, load_robot,
    structure_mass_matrix, tile_centres,
)
from satdyn.titop.kinematics import arm_mass_matrix_at_foot, robot_mass_matrix, robot_pose

# 22 inverse-kinematics reach poses of the assembly robot (computed independently, saved at
# 1e-6 deg), shipped with the tests.
REACH_POSES = Path(__file__).parent / "data" / "reach_poses.json"


def test_table2_verbatim_entries():
    # A few entries re-read from the printed table (spec 000a section 3.1).
    d = load_assembly_spacecraft("as-printed", inertia_convention="tensor")
    assert d.hub_mass == 166.0
    assert d.hub_inertia[0, 1] == 3.84                       # printed value, untouched in the tensor reading
    assert d.structures[1].modes.L_P[1, 4] == 0.5375
    assert d.structures[26].Phi_C[3, 0] == -47.2211
    np.testing.assert_allclose(d.structures[26].r_P2_C, [-0.5, 6.5, 0.0])
    np.testing.assert_allclose(d.array_modes.frequencies_hz, [1.2850, 6.5896])


def test_interpreted_reading_is_the_swap_of_the_printed_one():
    # Spec 000c: L := Phi_printed^T, Phi := L_printed^T, except F1 mode-2 L_Ry (-0.7856 -> +1.3080).
    printed = load_assembly_spacecraft("as-printed")
    interp = load_assembly_spacecraft("interpreted")
    for n in (1, 26):
        np.testing.assert_array_equal(interp.structures[n].Phi_C, printed.structures[n].modes.L_P.T)
        expected_L = printed.structures[n].Phi_C.T.copy()
        if n == 1:
            assert expected_L[1, 4] == -0.7856
            expected_L[1, 4] = 1.3080
        np.testing.assert_array_equal(interp.structures[n].modes.L_P, expected_L)


def test_residual_masses_match_spec_000c():
    # min eig(D_P - L^T L): as printed F1 -1.1663 (spec 000a D6 / 000c), interpreted F1 +3e-4,
    # interpreted F26 layout B +0.102; the array with its 2 modes 0.0093 (spec 000a section 3.4).
    def min_eig(s):
        return np.linalg.eigvalsh(s.D_P2 - s.modes.L_P.T @ s.modes.L_P).min()

    printed = load_assembly_spacecraft("as-printed")
    interp = load_assembly_spacecraft("interpreted")
    assert min_eig(printed.structures[1]) == pytest.approx(-1.1663, abs=1e-3)
    assert min_eig(interp.structures[1]) == pytest.approx(2.9e-4, abs=2e-5)
    assert min_eig(interp.structures[26]) == pytest.approx(0.102, abs=1e-3)
    assert min_eig(load_assembly_spacecraft("interpreted", layout="A").structures[26]) < -50
    R = interp.array_D_P1 - interp.array_modes.L_P.T @ interp.array_modes.L_P
    # printed to 3 digits
    np.testing.assert_allclose(np.linalg.eigvalsh(R), [0.0093, 0.168, 7.58, 26.0, 27.5, 88.93], rtol=2e-3, atol=5e-4)


def test_array_mass_matrix_matches_spec_000a_3_4():
    D = load_assembly_spacecraft().array_D_P1
    assert D[0, 5] == pytest.approx(-97.2361, abs=1e-4)
    assert D[3, 3] == pytest.approx(139.4099, abs=1e-4)
    assert D[5, 5] == pytest.approx(146.7757, abs=1e-4)
    assert D[4, 5] == pytest.approx(-0.1359, abs=1e-4)
    assert D[0, 4] == pytest.approx(0.1245, abs=1e-4)


def test_F26_mass_properties_by_rigid_composition_reproduce_the_table():
    # spec 000a test 19: the printed F26 inertia at P2 from the 4 x 7 grid to 0.01 kg m^2;
    # in layout B the printed +78.55 is a tensor entry (spec 000c section 2).
    d = load_assembly_spacecraft()
    D = d.structures[26].D_P2
    np.testing.assert_allclose(np.diag(D[3:, 3:]), [2251.79, 209.48, 2461.24], atol=0.015)
    assert D[3, 4] == pytest.approx(78.55, abs=0.005)
    m, com, _ = mass_properties(D)
    assert m == pytest.approx(157.0998)
    np.testing.assert_allclose(com, [-2 / 26, 85 / 26, 0.0], atol=1e-12)
    # F1 under the PoI convention: the printed +1.5106 is +m x y of the tile at (0.5, 0.5).
    D1 = d.structures[1].D_P2
    printed_J = inertia_tensor([[2.0147, 1.5106, 0], [1.5106, 2.0147, 0], [0, 0, 4.0282]], "poi")
    np.testing.assert_allclose(D1[3:, 3:], printed_J, atol=2e-4)


def test_structure_composition_is_the_parallel_axis_sum():
    # Independent route: classical 3x3 parallel axis per tile.
    c = tile_centres("B")
    mT, JT = 6.0423, np.diag([0.5041, 0.5041, 1.0071])
    J = sum(JT + mT * (r @ r * np.eye(3) - np.outer(r, r)) for r in c[:11])
    np.testing.assert_allclose(structure_mass_matrix(11, c, mT, JT)[3:, 3:], J, rtol=1e-13)
    assert tuple(c[24]) == (-0.5, 6.5, 0.0) and tuple(tile_centres("A")[24]) == (0.5, 6.5, 0.0)
    with pytest.raises(ValueError, match="`n`"):
        structure_mass_matrix(29, c, mT, JT)


def test_total_mass_and_exact_sqrt3():
    d = load_assembly_spacecraft()
    assert d.total_mass == pytest.approx(554.1144, abs=1e-9)
    for P in d.robot.P_l5_c:
        np.testing.assert_allclose(P @ P.T, np.eye(3), atol=1e-15)
        assert np.linalg.det(P) == pytest.approx(1.0)


def test_bad_options_name_the_argument():
    with pytest.raises(ValueError, match="reading"):
        load_assembly_spacecraft("verbatim")
    with pytest.raises(ValueError, match="arm_geometry"):
        load_arm_geometry("Z9")
    with pytest.raises(ValueError, match="layout"):
        load_assembly_spacecraft(layout="C")


def test_Y45_home_stance_matches_spec_000d():
    # Joint points of the docked leg, hub, free foot and R3 end effector (spec 000d section 2).
    pose = robot_pose(load_robot("Y45"), np.zeros((3, 5)), dock=1)
    expected = [(0, 0), (0, 0.125), (0, 0.225), (-0.283, 0.508), (-0.168, 0.622), (-0.168, 1.022), (-0.068, 1.022)]
    np.testing.assert_allclose(pose.points[0][:, [0, 2]], expected, atol=6e-4)
    np.testing.assert_allclose(pose.hub_com, [-0.068, 0, 1.122], atol=6e-4)
    np.testing.assert_allclose(pose.points[1][0], [-1.006, 0, 1.743], atol=6e-4)
    np.testing.assert_allclose(pose.points[2][0], [0.938, 0, 1.624], atol=6e-4)


def test_spec_M1_free_foot_is_below_the_structure():
    # spec 000d section 1.2 item 7: -0.175 m with the placeholder geometry.
    pose = robot_pose(load_robot("spec-M1"), np.zeros((3, 5)), dock=1)
    assert pose.points[1][0][2] == pytest.approx(-0.175, abs=1e-3)


def test_reach_poses_land_on_their_targets():
    # 22 IK solutions computed independently (spec 000d, saved at 1e-6 deg): the moving foot
    # lands at the target offset with a yaw multiple of 90 deg (walking: exactly aligned).
    robot = load_robot("Y45")
    for key, pose in json.loads(REACH_POSES.read_text()).items():
        angles = np.deg2rad([pose["alpha_deg"][k] for k in "123"])
        p = robot_pose(robot, angles, dock=pose["dock"])
        arm = pose["arm"] - 1
        np.testing.assert_allclose(p.points[arm][0], pose["offset"] + [0.0], atol=1e-7, err_msg=key)
        R = p.dcms[arm][0]
        assert abs(R[2, 2] - 1.0) < 1e-7 and np.allclose(np.round(R), R, atol=1e-7), key
        if key.startswith("('walk'"):
            np.testing.assert_allclose(R, np.eye(3), atol=1e-7)


def test_robot_mass_and_tile():
    robot = load_robot()
    rng = np.random.default_rng(5)
    angles = rng.uniform(-np.pi, np.pi, (3, 5))
    for dock in (1, 2):
        D0 = robot_mass_matrix(robot, angles, dock, carry_tile=False)
        D1 = robot_mass_matrix(robot, angles, dock, carry_tile=True)
        assert D0[0, 0] == pytest.approx(130.0) and D1[0, 0] == pytest.approx(136.0423)
        assert np.all(np.linalg.eigvalsh(D0) > 0)


def test_arm_composite_mass_at_zero_pose_by_hand():
    # At a = 0 for spec-M1 all P0 = I: link frames coincide; CoM positions are sums of link vectors.
    arm = load_arm_geometry("spec-M1")
    starts = np.vstack([np.zeros(3), np.cumsum(arm.link_vectors, axis=0)[:-1]])
    expected = sum(rigid_mass_matrix(m, J, s + c) for m, J, s, c in
                   zip(arm.link_masses, arm.link_inertias, starts, arm.link_coms))
    np.testing.assert_allclose(arm_mass_matrix_at_foot(arm, np.zeros(5)), expected, rtol=1e-14, atol=1e-14)


def test_synthetic_hub_two_arrays_is_labelled_and_consistent():
    d = load_hub_two_arrays()
    assert d.synthetic
    R = d.array_D_P - d.array_modes.L_P.T @ d.array_modes.L_P
    assert np.linalg.eigvalsh(R).min() > 0.5       # positive definite by construction (Bessel)
