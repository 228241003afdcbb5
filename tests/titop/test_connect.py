"""``connect`` refuses bad wiring with messages naming the ports (issue 5)."""

import numpy as np
import pytest

from satdyn.titop import PortConnectionError, connect, frame_change, rigid_body


def _bodies():
    hub = rigid_body("B", 10.0, np.eye(3), {"P": [1.0, 0, 0]}, frame="b")
    arm = rigid_body("A", 2.0, np.eye(3), {"P": [0, -0.5, 0]}, direct="P", com_port=None, frame="a")
    K = frame_change("K", np.eye(3), frames=("b", "a"))
    return hub, arm, K


def test_valid_wiring():
    hub, arm, K = _bodies()
    m = connect([hub, K, arm], [("B.P", "K.parent"), ("K.child", "A.P")], external=["B.G"])
    assert m.lfr.shape == (6, 6)
    assert m.lfr.input_groups["B:G:W"][0] == "B:G:W[0]"


def test_acceleration_to_wrench_refused():
    hub, arm, K = _bodies()
    with pytest.raises(PortConnectionError, match=r"'K\.child'.*'B\.P'|acceleration -> wrench"):
        connect([hub, K, arm], [("K.child", "B.P"), ("K.parent", "A.P")], external=["B.G"])


def test_frame_mismatch_refused():
    hub, arm, _ = _bodies()
    with pytest.raises(PortConnectionError, match=r"frame mismatch: 'B\.P' is in frame 'b' but 'A\.P' in 'a'"):
        connect([hub, arm], [("B.P", "A.P")], external=["B.G"])


def test_dangling_and_double_refused():
    hub, arm, K = _bodies()
    with pytest.raises(PortConnectionError, match=r"dangling ports.*'A\.P'"):
        connect([hub, K, arm], [("B.P", "K.parent")], external=["B.G", "K.child"])
    with pytest.raises(PortConnectionError, match=r"'B\.P' is used twice"):
        connect([hub, K, arm], [("B.P", "K.parent"), ("B.P", "A.P")], external=["B.G"])
    with pytest.raises(PortConnectionError, match="unknown model 'X'"):
        connect([hub], [("X.P", "B.P")])
    with pytest.raises(PortConnectionError, match="two models named 'B'"):
        connect([hub, hub], [])
