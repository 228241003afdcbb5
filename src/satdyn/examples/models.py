"""A suite of uncertain models written entry by entry, the way users write them.

Used to check that the automatic LFR simplification keeps the channel count near the
minimum found by :func:`satdyn.lfr.reduce` (tests/lfr/test_lfr_simplify_suite.py) and
in ``benchmarks/bench_textbook.py``.  Every model is a function returning an LFR; the
data are illustrative round numbers (not from a source), except where a docstring cites
one.  :func:`user_models` returns ``{name: LFR}``.
"""

from __future__ import annotations

import control
import numpy as np

from satdyn.lfr import LFR, feedback, ss, ureal

__all__ = ["mass_spring_damper_chain", "flexible_spacecraft", "dc_motor_servo", "first_order_integral_loop",
           "uss_documentation_example", "usample_mass_spring_damper", "user_models", "PUBLISHED_OCCURRENCES"]

#: Occurrence counts MATLAB's ``uss`` prints for the same models (name -> (counts, source)).
PUBLISHED_OCCURRENCES = {
    "first_order_integral_loop": (
        {"gamma": 1, "tau": 1},
        "MathWorks, Robust Control Toolbox documentation, 'Robustness of Servo Controller for DC Motor' "
        "(help/robust/ug/robustness-of-servo-controller-for-dc-motor.html): P and CLP, 1 occurrence each",
    ),
    "uss_documentation_example": (
        {"p1": 2, "p2": 2},
        "MathWorks, Robust Control Toolbox documentation, 'Uncertain State-Space Models' "
        "(help/robust/ug/create-uncertain-state-space-model.html): p1 2 occurrences, p2 2 occurrences "
        "(p3's line is not in the excerpt we could read)",
    ),
    "usample_mass_spring_damper": (
        {"c": 1, "k": 1, "m": 1},
        "MathWorks, Robust Control Toolbox documentation, usample reference page "
        "(help/robust/ref/uss.usample.html): 1/(m s^2 + c s + k), 1 occurrence each",
    ),
}


def mass_spring_damper_chain(n: int, *, closed_loop: bool = False) -> LFR:
    """``n`` masses in a line, spring and damper to the wall and between neighbours,
    force on the last mass, position of the first mass measured (non-collocated).

    Parameters ``m{i}``, ``k{i}``, ``c{i}`` (i = 1..n) each +-10 % around 1, 2, 0.1;
    the acceleration rows are written term by term, ``-(k_i + k_{i+1})/m_i`` etc.
    ``closed_loop`` closes ``u = -2 (y - r)`` (proportional position feedback).
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"`n` must be a positive int; got {n!r}")
    m = [ureal(f"m{i + 1}", 1.0, percent=10) for i in range(n)]
    k = [ureal(f"k{i + 1}", 2.0, percent=10) for i in range(n)]
    c = [ureal(f"c{i + 1}", 0.1, percent=10) for i in range(n)]
    A = [[0.0] * (2 * n) for _ in range(2 * n)]
    for i in range(n):
        A[i][n + i] = 1.0
        right_k = k[i + 1] if i + 1 < n else 0.0
        right_c = c[i + 1] if i + 1 < n else 0.0
        A[n + i][i] = -(k[i] + right_k) / m[i]
        A[n + i][n + i] = -(c[i] + right_c) / m[i]
        if i > 0:
            A[n + i][i - 1] = k[i] / m[i]
            A[n + i][n + i - 1] = c[i] / m[i]
        if i + 1 < n:
            A[n + i][i + 1] = k[i + 1] / m[i]
            A[n + i][n + i + 1] = c[i + 1] / m[i]
    B = [[0.0] for _ in range(2 * n)]
    B[2 * n - 1] = [1 / m[n - 1]]
    C = [[1.0] + [0.0] * (2 * n - 1)]
    G = ss(A, B, C, [[0.0]])
    return feedback(2.0 * G, 1.0) if closed_loop else G


def flexible_spacecraft(n_modes: int = 3) -> LFR:
    """Single-axis attitude of a hub with ``n_modes`` cantilevered appendage modes (modal
    form ``J theta'' = u``, ``eta_i'' + 2 zeta_i omega_i eta_i' + omega_i^2 eta_i = phi_i u``,
    measured angle ``theta + sum phi_i eta_i``), written with ``ss`` entry by entry and
    closed by the PD law ``u = -(kp y + kd y')`` realised on the rigid states.

    Uncertain: hub inertia ``J`` (+-10 % around 100 kg m^2), modal frequencies
    ``omega{i}`` (+-20 % around 2, 5, 12.5, ... rad/s), damping ``zeta{i}`` (0.005, range
    0.002-0.01).
    """
    if not isinstance(n_modes, int) or n_modes < 0:
        raise ValueError(f"`n_modes` must be a non-negative int; got {n_modes!r}")
    J = ureal("J", 100.0, percent=10)
    omega = [ureal(f"omega{i + 1}", 2.0 * 2.5**i, percent=20) for i in range(n_modes)]
    zeta = [ureal(f"zeta{i + 1}", 0.005, range=(0.002, 0.01)) for i in range(n_modes)]
    phi = [0.3 / (i + 1) for i in range(n_modes)]
    n = 2 + 2 * n_modes
    A = [[0.0] * n for _ in range(n)]
    B = [[0.0] for _ in range(n)]
    A[0][1] = 1.0
    B[1] = [1 / J]
    for i in range(n_modes):
        r = 2 + 2 * i
        A[r][r + 1] = 1.0
        A[r + 1][r] = -omega[i] * omega[i]
        A[r + 1][r + 1] = -2 * zeta[i] * omega[i]
        B[r + 1] = [phi[i]]
    C = [[1.0, 0.0] + [v for i in range(n_modes) for v in (phi[i], 0.0)],
         [0.0, 1.0] + [v for i in range(n_modes) for v in (0.0, phi[i])]]
    G = ss(A, B, C, [[0.0], [0.0]])
    kp, kd = 25.0, 150.0
    return feedback(G, np.array([[kp, kd]]))


def dc_motor_servo() -> LFR:
    """Armature-controlled DC motor, states (i, w, theta): ``L i' = -R i - K w + V``,
    ``J w' = K i - b w``, ``theta' = w``; PI speed loop ``V = kp e + ki int e`` with
    ``e = r - w``.  Uncertain R (2 ohm +-20 %), L (0.5 H +-20 %), K (0.1 N m/A +-10 %),
    J (0.02 kg m^2 +-15 %), b (0.1 N m s +-30 %)."""
    R, L, K = ureal("R", 2.0, percent=20), ureal("L", 0.5, percent=20), ureal("K", 0.1, percent=10)
    J, b = ureal("J", 0.02, percent=15), ureal("b", 0.1, percent=30)
    A = [[-R / L, -K / L, 0.0], [K / J, -b / J, 0.0], [0.0, 1.0, 0.0]]
    motor = ss(A, [[1 / L], [0.0], [0.0]], [[0.0, 1.0, 0.0]], [[0.0]])
    s = control.tf("s")
    controller = control.ss(20.0 + 50.0 / s)
    return feedback(motor @ controller, 1.0)


def first_order_integral_loop() -> LFR:
    """MATLAB's "Robustness of Servo Controller for DC Motor" first model,
    ``P = tf(gamma, [tau 1])`` with gamma in [3, 5] (nominal 4) and tau = 0.5 +-30 %,
    integral control ``KI / s``, ``KI = 1 / (2 tau0 gamma0)``, written as
    ``ss([[-1/tau]], [[gamma/tau]], [[1]], 0)``.  MATLAB reports 1 occurrence of each
    parameter for P and for the closed loop (MathWorks, Robust Control Toolbox
    documentation, help/robust/ug/robustness-of-servo-controller-for-dc-motor.html)."""
    gamma = ureal("gamma", 4.0, range=(3.0, 5.0))
    tau = ureal("tau", 0.5, percent=30)
    P = ss([[-1 / tau]], [[gamma / tau]], [[1.0]], [[0.0]])
    KI = 1 / (2 * 0.5 * 4.0)
    return feedback(P @ control.ss(control.tf(KI, [1, 0])), 1.0)


def uss_documentation_example() -> LFR:
    """MATLAB's ``uss`` example: ``p1 = ureal('p1',10,'Percentage',50)``,
    ``p2 = ureal('p2',3,'PlusMinus',[-.5 1.2])``, ``p3 = ureal('p3',0)`` (+-1),
    ``A = [-p1 p2; 0 -p1]``, ``B = [-p2; p2+p3]``, ``C = [1 0; 1 1-p3]``, ``D = [0; 0]``."""
    p1 = ureal("p1", 10.0, percent=50)
    p2 = ureal("p2", 3.0, plusminus=(-0.5, 1.2))
    p3 = ureal("p3", 0.0, plusminus=1.0)
    return ss([[-p1, p2], [0.0, -p1]], [[-p2], [p2 + p3]], [[1.0, 0.0], [1.0, 1 - p3]], [[0.0], [0.0]])


def usample_mass_spring_damper() -> LFR:
    """MATLAB's ``usample`` example ``1 / (m s^2 + c s + k)`` with c = 1 +-20 %,
    k = 2 +-30 %, m = 3 +-40 %, written in state space entry by entry."""
    c, k, m = ureal("c", 1.0, percent=20), ureal("k", 2.0, percent=30), ureal("m", 3.0, percent=40)
    return ss([[0.0, 1.0], [-k / m, -c / m]], [[0.0], [1 / m]], [[1.0, 0.0]], [[0.0]])


def user_models() -> dict[str, LFR]:
    """The suite: ``{name: LFR}`` (textbook closed loops, chains, spacecraft, motor)."""
    from .textbook import textbook_problems

    models = {p.name: p.lfr for p in textbook_problems()}
    for n in (2, 3, 5):
        models[f"msd_chain_{n}"] = mass_spring_damper_chain(n)
    models["msd_chain_3_closed"] = mass_spring_damper_chain(3, closed_loop=True)
    models["flexible_spacecraft_3"] = flexible_spacecraft(3)
    models["dc_motor_servo"] = dc_motor_servo()
    models["first_order_integral_loop"] = first_order_integral_loop()
    models["uss_documentation_example"] = uss_documentation_example()
    models["usample_mass_spring_damper"] = usample_mass_spring_damper()
    return models
