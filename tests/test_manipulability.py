"""The manipulability ellipse: kinematics against independent oracles, the frame's
drawn ellipse, the static SVG, and 2.2's text numbers."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ikchain import Chain, solve
from ikchain.kinematics import end_from_angles
from ikchain.lesson import figures
from ikchain.lesson.frames import ELLIPSE_SCALE, ellipse_view
from ikchain.manipulability import condition_from_angles, manipulability_from_angles
from ikchain.web.protocol import frame_reply

TWO = np.array([0.8, 0.6])
#: Relative tolerance of the SVD-based numbers against the closed forms (rounding of a
#: 2 × 2 SVD of entries of order 1: far below it).
RTOL = 1e-12
#: The finite-difference Jacobian's error is O(h²) with h = 1e-6: about 1e-12 m/rad.
FD_TOL = 1e-8

angle = st.floats(-math.pi, math.pi, allow_nan=False)
length = st.floats(0.1, 2.0, allow_nan=False)


def fd_jacobian(lengths: np.ndarray, angles: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """The tip Jacobian by central differences of the tip position, shape (2, n),
    written here from the forward kinematics alone (no library Jacobian)."""
    columns = []
    for i in range(angles.size):
        step = np.zeros_like(angles)
        step[i] = h
        columns.append(
            (end_from_angles(lengths, angles + step) - end_from_angles(lengths, angles - step))
            / (2 * h)
        )
    return np.stack(columns, axis=-1)


@given(st.lists(length, min_size=2, max_size=2), st.lists(angle, min_size=2, max_size=2))
def test_two_bones_area_is_the_determinant(lengths: list[float], angles: list[float]) -> None:
    """σ₁σ₂ = |det J| = L₁L₂|sin θ₂| (closed form), σ₁ ≥ σ₂ ≥ 0."""
    bones, a = np.array(lengths), np.array(angles)
    s1, s2, _ = manipulability_from_angles(bones, a)
    assert s1 >= s2 >= 0.0
    area = bones[0] * bones[1] * abs(math.sin(a[1]))
    assert s1 * s2 == pytest.approx(area, rel=RTOL, abs=1e-15 * float(np.sum(bones)) ** 2)


@given(
    st.lists(length, min_size=2, max_size=5).flatmap(
        lambda ls: st.tuples(st.just(ls), st.lists(angle, min_size=len(ls), max_size=len(ls)))
    )
)
@settings(max_examples=200)
def test_against_an_svd_of_a_finite_difference_jacobian(
    case: tuple[list[float], list[float]],
) -> None:
    """σ's against numpy's SVD of a finite-difference Jacobian, the ratio against
    condition_from_angles, and the axis an eigenvector of J Jᵀ with eigenvalue σ₁²."""
    bones, a = np.array(case[0]), np.array(case[1])
    s1, s2, axis = manipulability_from_angles(bones, a)
    jac = fd_jacobian(bones, a)
    oracle = np.linalg.svd(jac, compute_uv=False)
    assert s1 == pytest.approx(oracle[0], abs=FD_TOL)
    assert s2 == pytest.approx(oracle[1], abs=FD_TOL)
    assert -math.pi / 2 < axis <= math.pi / 2
    u = np.array([math.cos(axis), math.sin(axis)])
    jjt = jac @ jac.T
    # J Jᵀ u = σ₁² u: the long axis is the first left singular vector
    np.testing.assert_allclose(jjt @ u, s1 * s1 * u, atol=1e-7)
    if s2 > 1e-6 * s1:
        assert s1 / s2 == pytest.approx(float(condition_from_angles(bones, a)), rel=1e-9)


def test_the_long_axis_is_not_the_short_one() -> None:
    """A pose whose two axes are known: arm along +x bent at a right angle, bones
    1 and 1, checked against the eigenvalues of J Jᵀ (finite differences)."""
    bones, a = np.array([1.0, 1.0]), np.array([0.0, math.pi / 2])
    s1, s2, axis = manipulability_from_angles(bones, a)
    jac = fd_jacobian(bones, a)
    values, vectors = np.linalg.eigh(jac @ jac.T)  # ascending
    assert s1 == pytest.approx(math.sqrt(values[1]), rel=1e-9)
    assert s2 == pytest.approx(math.sqrt(values[0]), rel=1e-9)
    big = vectors[:, 1]
    assert abs(math.cos(axis) * big[0] + math.sin(axis) * big[1]) == pytest.approx(1.0, abs=1e-9)


def test_a_straight_chain_is_a_segment_across_it() -> None:
    """Straight along +x: σ₂ = 0, the long axis is vertical (across the arm), σ₁ the
    length of J's columns stacked, sqrt((L₁+L₂)² + L₂²)."""
    s1, s2, axis = manipulability_from_angles(TWO, np.zeros(2))
    assert s2 == pytest.approx(0.0, abs=1e-15)
    assert s1 == pytest.approx(math.hypot(1.4, 0.6), rel=RTOL)
    assert abs(axis) == pytest.approx(math.pi / 2, abs=1e-12)
    assert -math.pi / 2 < axis <= math.pi / 2  # an axis: +π/2, never its twin -π/2


#: Second bones and root angles of isotropic poses; the last three are ones where the
#: rounded σ₂ came out an ulp above σ₁ (found by a search of 2·10⁵ random ones).
ISOTROPIC = [
    (1.0, 0.0),
    (1.0, 0.3),
    (1.0, 2.0),
    (1.0, math.pi),
    (1.4708278463687552, -2.5394879850409247),
    (0.6125947561513535, -1.5430803121990004),
    (0.19884047202237826, -1.918040503997749),
]


@pytest.mark.parametrize(("bone", "root"), ISOTROPIC)
def test_an_isotropic_pose_is_a_circle_and_never_inverts_its_axes(bone: float, root: float) -> None:
    """Bones √2·b and b at 135°: the tip is b from the root, J Jᵀ = b² I (trace
    |arm₀|² + |arm₁|² = 2b², determinant (√2 b² sin 135°)² = b⁴), so σ₁ = σ₂ = b in
    real arithmetic; rounding may not make σ₂ exceed σ₁."""
    s1, s2, axis = manipulability_from_angles(
        np.array([math.sqrt(2.0) * bone, bone]), np.array([root, 0.75 * math.pi])
    )
    assert s1 >= s2
    assert s1 == pytest.approx(bone, rel=1e-12)
    assert s2 == pytest.approx(bone, rel=1e-12)
    assert -math.pi / 2 < axis <= math.pi / 2


@pytest.mark.parametrize("scale", [1e-200, 1e-100, 1e100, 1e200])
def test_the_ellipse_scales_with_the_chain_at_any_finite_size(scale: float) -> None:
    """Lengths times s: the Jacobian times s, so σ₁ and σ₂ times s and the same axis
    (J Jᵀ's entries would over- or underflow at these sizes, in metres squared)."""
    rng = np.random.default_rng(7)
    bones = rng.uniform(0.1, 1.0, 3)
    poses = rng.uniform(-math.pi, math.pi, (50, 3))
    unit = manipulability_from_angles(bones, poses)
    scaled = manipulability_from_angles(scale * bones, poses)
    assert np.all(np.isfinite(scaled))
    np.testing.assert_allclose(scaled[:, :2] / scale, unit[:, :2], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(scaled[:, 2], unit[:, 2], rtol=0, atol=1e-12)


def test_mismatched_angles_are_refused() -> None:
    with pytest.raises(ValueError, match=r"expected shape \(\.\.\., 2\), one per bone, got \(3,\)"):
        manipulability_from_angles(TWO, np.zeros(3))


def test_batches_keep_their_shape() -> None:
    rng = np.random.default_rng(5)
    angles = rng.uniform(-math.pi, math.pi, (4, 3, 2))
    out = manipulability_from_angles(TWO, angles)
    assert out.shape == (4, 3, 3)
    for index in np.ndindex(4, 3):
        np.testing.assert_array_equal(out[index], manipulability_from_angles(TWO, angles[index]))
    assert manipulability_from_angles(np.ones(4), np.zeros(4)).shape == (3,)


# -- the frame's ellipse ---------------------------------------------------------


def frame_of(body: dict) -> dict:
    answer = frame_reply(json.dumps({"id": 1, **body}))
    assert answer["ok"], answer
    return answer["frame"]


@pytest.mark.parametrize("method", ["ccd", "jt", "dls", "analytic"])
def test_the_frame_carries_the_ellipse_at_its_tip(method: str) -> None:
    body = {"lengths": [0.8, 0.6], "target": [1.0, 0.6], "method": method}
    frame = frame_of(body)
    ellipse = frame["ellipse"]
    result = frame["result"]
    s1, s2, axis = manipulability_from_angles(TWO, np.array(result["angles"]))
    assert ellipse["centre"] == result["joints"][-1]  # the tip, not a joint
    assert ellipse["centre"] != result["joints"][-2]
    assert ellipse["sigma"] == pytest.approx([s1, s2], rel=RTOL)
    assert ellipse["scale"] == ELLIPSE_SCALE
    assert ellipse["radii"] == pytest.approx([ELLIPSE_SCALE * s1, ELLIPSE_SCALE * s2], rel=RTOL)
    assert ellipse["radii"][0] >= ellipse["radii"][1] > 0
    assert ellipse["rotation"] == pytest.approx(math.degrees(axis), abs=1e-9)
    # the axis's ends: the centre ± the long radius along the rotation
    (x1, y1), (x2, y2) = ellipse["axis"]
    cx, cy = ellipse["centre"]
    assert math.hypot(x2 - x1, y2 - y1) == pytest.approx(2 * ellipse["radii"][0], rel=RTOL)
    assert ((x1 + x2) / 2, (y1 + y2) / 2) == pytest.approx((cx, cy), abs=1e-12)
    assert math.degrees(math.atan2(y2 - y1, x2 - x1)) == pytest.approx(
        ellipse["rotation"], abs=1e-9
    )
    # σ₁/σ₂ is the condition reading
    reading = float(frame["readings"]["condition"])
    assert s1 / s2 == pytest.approx(reading, rel=5e-3)


def test_the_frame_ellipse_of_a_straight_chain_is_a_line() -> None:
    """The stall: straight chain along +x, ry 0 (finite: no NaN in the reply), the
    axis vertical through the tip."""
    frame = frame_of(
        {
            "lengths": [0.8, 0.6],
            "target": [1.0, 0.0],
            "method": "jt",
            "init": [0.0, 0.0],
            "iterations": 8,
        }
    )
    assert frame["result"]["status"] == "stalled"
    ellipse = frame["ellipse"]
    assert ellipse["radii"][1] == pytest.approx(0.0, abs=1e-15)
    assert all(
        math.isfinite(v) for v in [*ellipse["radii"], ellipse["rotation"], *ellipse["centre"]]
    )
    (x1, y1), (x2, y2) = ellipse["axis"]
    assert x1 == pytest.approx(1.4, abs=1e-12) and x2 == pytest.approx(1.4, abs=1e-12)
    assert abs(y2 - y1) == pytest.approx(2 * ELLIPSE_SCALE * math.hypot(1.4, 0.6), rel=RTOL)
    svg = figures.svg_from_frame(frame, figure_id="f", ellipse=True)
    assert "nan" not in svg.lower() and "inf" not in svg.lower()


def test_ellipse_view_scales_with_the_scale() -> None:
    chain = Chain([0.8, 0.6])
    result = solve(chain, np.array([1.0, 0.6]), "analytic")
    one, two = ellipse_view(chain, result, 1.0), ellipse_view(chain, result, 2.0)
    assert two["radii"] == pytest.approx([2 * r for r in one["radii"]], rel=RTOL)
    assert two["rotation"] == one["rotation"] and two["sigma"] == one["sigma"]


# -- the static SVG ----------------------------------------------------------------


def test_the_static_figure_draws_the_frame_ellipse() -> None:
    frame = frame_of({"lengths": [0.8, 0.6], "target": [1.0, 0.6], "method": "dls"})
    root = ET.fromstring(figures.svg_from_frame(frame, figure_id="f", ellipse=True))
    shapes = [el for el in root.iter() if el.get("class") == "ellipse-shape"]
    axes = [el for el in root.iter() if el.get("class") == "ellipse-axis"]
    assert len(shapes) == len(axes) == 1
    shape, axis = shapes[0], axes[0]
    e = frame["ellipse"]
    assert float(shape.get("cx")) == e["centre"][0] and float(shape.get("cy")) == e["centre"][1]
    assert float(shape.get("rx")) == e["radii"][0] and float(shape.get("ry")) == e["radii"][1]
    rotate = shape.get("transform")
    assert rotate.startswith("rotate(") and rotate.endswith(")")
    numbers = [float(v) for v in rotate[len("rotate(") : -1].split()]
    assert numbers == [e["rotation"], *e["centre"]]
    assert [float(axis.get(k)) for k in ("x1", "y1", "x2", "y2")] == [*e["axis"][0], *e["axis"][1]]
    # without the option, no ellipse (the other figures)
    plain = figures.svg_from_frame(frame, figure_id="f")
    assert "ellipse" not in plain
