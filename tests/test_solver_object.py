"""``ikchain.Solver``: options checked once, answers equal to ``solve()``'s to the bit,
Results that stay true after the next call, and ``out=`` that hands back one whole Result.

Expected values come from elsewhere: ``solve()`` (the same answers are the contract),
forward kinematics written here with numpy (``limits_oracle.tips``), and the closed
form of the annulus for reach.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain
from ikchain.solvers import ITERATIVE, METHODS
from limits_oracle import tips

CHAIN = ikchain.Chain([0.8, 0.6])
THREE = ikchain.Chain([0.5, 0.4, 0.3])
LIMITED = ikchain.Chain([0.5, 0.4, 0.3], limits=[[-2.0, 2.0], [-1.5, 1.5], [0.0, 2.5]])
RNG = np.random.default_rng(24)
TARGETS = RNG.uniform(-1.5, 1.5, (40, 2))


def _options(method: str) -> list[dict]:
    """Option sets each method takes, one per kind of step around the plain solve."""
    sets: list[dict] = [{}, {"bend": -1}, {"pole": [0.2, 1.0]}, {"soft": 0.2}, {"weight": 0.5}]
    if method != "analytic":
        sets += [{"max_iterations": 7, "tolerance": 1e-6}, {"trace": True}]
    if method in ("ccd", "dls", "jt"):
        sets.append({"damping": 0.5})
    if method == "dls":
        sets.append({"rest": [0.1, -0.2, 0.3], "rest_weight": 2.0})
    return sets


def _same(a: ikchain.Result, b: ikchain.Result) -> None:
    """Every field equal, to the bit (NaN where both have it)."""
    for name in ("angles", "joints", "end", "target", "at_limit"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for name in ("error", "min_error", "reachable", "iterations", "certified"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert np.all(np.asarray(a.status) == np.asarray(b.status))
    assert a.method == b.method
    if a.trace is None:
        assert b.trace is None
    else:
        np.testing.assert_array_equal(a.trace, b.trace)
        np.testing.assert_array_equal(a.trace_angles, b.trace_angles)


@pytest.mark.parametrize("method", METHODS)
def test_a_solver_answers_as_solve_does_for_every_option(method: str) -> None:
    chain = CHAIN if method == "analytic" else THREE
    for options in _options(method):
        solver = ikchain.Solver(chain, method, **options)
        batch = solver.batch(TARGETS)
        _same(batch, ikchain.solve(chain, TARGETS, method, **options))
        for i in (0, 7, 19):
            one = solver(TARGETS[i])
            _same(one, ikchain.solve(chain, TARGETS[i], method, **options))
            assert one.shape == ()
            assert one.angles.tolist() == batch.angles[i].tolist()
            assert str(one.status) == str(batch.status[i])


@pytest.mark.parametrize("method", ITERATIVE)
def test_a_solver_warm_starts_like_solve_with_init(method: str) -> None:
    solver = ikchain.Solver(LIMITED, method, tolerance=1e-9)
    start = [0.3, -0.2, 0.4]
    for target in TARGETS[:10]:
        mine = solver(target.tolist(), start)
        _same(mine, ikchain.solve(LIMITED, target.tolist(), method, init=start, tolerance=1e-9))
        start = mine.angles.tolist()


@pytest.mark.parametrize("method", ITERATIVE)
def test_a_solver_follows_a_path_as_follow_does(method: str) -> None:
    path = np.column_stack((np.linspace(0.4, 1.1, 12), np.linspace(0.6, -0.2, 12)))
    solver = ikchain.Solver(THREE, method, soft=0.1)
    _same(
        solver.follow(path, [0.2, 0.2, 0.2]),
        ikchain.follow(THREE, path, method, init=[0.2] * 3, soft=0.1),
    )


def test_a_result_is_its_own_after_the_next_call() -> None:
    """No buffer is shared between calls: an earlier answer keeps its numbers, and they
    are still a pose whose tip is where it says (forward kinematics written here)."""
    solver = ikchain.Solver(THREE, "dls")
    first = solver([0.6, 0.5])
    kept = (first.angles.copy(), first.joints.copy(), first.error, first.status)
    batch = solver.batch(TARGETS)
    again = solver([-0.3, 0.9])
    for later in (batch, again):
        assert not np.shares_memory(first.angles, later.angles)
        assert not np.shares_memory(first.joints, later.joints)
    np.testing.assert_array_equal(first.angles, kept[0])
    np.testing.assert_array_equal(first.joints, kept[1])
    assert (first.error, first.status) == kept[2:]
    tip = tips(THREE.lengths, first.angles[None, :])[0]
    assert math.dist(tip, [0.6, 0.5]) == pytest.approx(first.error, abs=1e-12)


@pytest.mark.parametrize("options", [{}, {"soft": 0.3}])
def test_out_hands_back_the_same_result_whole_and_true(options: dict) -> None:
    """``out=r`` returns r itself, every field now the new solve's: its status agrees
    with its error, its error with its angles (forward kinematics here), its target is
    the new one. No field is left from the earlier solve."""
    solver = ikchain.Solver(THREE, "dls", **options)
    near = np.full((30, 2), 0.5)
    far = np.column_stack((np.full(30, 2.0), np.linspace(-1.0, 1.0, 30)))
    first = solver.batch(near)
    assert np.all(first.converged)
    assert {str(s) for s in first.status} == {"converged"}  # read, so the object is made
    memory = first.angles
    second = solver.batch(far, out=first)
    assert second is first
    assert np.shares_memory(second.angles, memory)
    np.testing.assert_array_equal(second.target, far)
    error = np.hypot(*(tips(THREE.lengths, second.angles) - far).T)
    np.testing.assert_allclose(second.error, error, rtol=0, atol=1e-12)
    gap = np.hypot(*far.T) - THREE.outer_radius
    np.testing.assert_allclose(second.min_error, gap, rtol=0, atol=1e-12)
    assert not np.any(second.reachable)
    assert not np.any(second.converged)
    assert {str(s) for s in second.status} <= {"unreachable", "softened"}
    np.testing.assert_array_equal(second.end, second.joints[:, -1])
    fresh = solver.batch(far)
    _same(second, fresh)


def test_a_single_result_has_slots_and_no_instance_dictionary() -> None:
    one = ikchain.solve(CHAIN, [1.0, 0.5], "dls")
    assert not hasattr(one, "__dict__")
    assert type(one) is ikchain.Result
    np.testing.assert_array_equal(one.end, one.joints[-1])
    np.testing.assert_array_equal(one.target, [1.0, 0.5])


def test_options_are_checked_once_with_expected_and_given() -> None:
    with pytest.raises(ValueError, match=r"method 'fabrik' takes only .*; got damping"):
        ikchain.Solver(THREE, "fabrik", damping=0.5)
    with pytest.raises(ValueError, match=r"tolerance: expected a number > 0, got -1"):
        ikchain.Solver(THREE, "dls", tolerance=-1.0)
    with pytest.raises(ValueError, match=r"expected a 2-bone chain, got 3 bones"):
        ikchain.Solver(THREE, "analytic")
    with pytest.raises(ValueError, match=r"method: expected one of"):
        ikchain.Solver(THREE, "newton")
    with pytest.raises(ValueError, match=r"expected bend or pole, got both"):
        ikchain.Solver(THREE, "dls", bend=1, pole=[0.0, 1.0])
    solver = ikchain.Solver(THREE, "dls", max_iterations=12, tolerance=1e-6)
    assert solver.options.max_iterations == 12
    assert solver.options.tolerance == 1e-6
    assert solver.options.damping == 1.0  # the method table's default
    assert solver.options.keywords() == {"max_iterations": 12, "tolerance": 1e-6, "damping": 1.0}


def test_a_call_refuses_a_batch_where_one_target_is_expected() -> None:
    solver = ikchain.Solver(THREE, "dls")
    with pytest.raises(
        ValueError, match=r"target: expected one point, shape \(2,\), got shape \(3, 2\)"
    ):
        solver(TARGETS[:3])
    with pytest.raises(
        ValueError, match=r"init: expected one start pose, shape \(3,\), got shape \(2, 3\)"
    ):
        solver([0.5, 0.5], [[0.1, 0.1, 0.1]] * 2)
    with pytest.raises(ValueError, match=r"target: expected finite numbers"):
        solver([0.5, math.nan])
    with pytest.raises(ValueError, match=r"init: expected angles within the joint limits"):
        ikchain.Solver(LIMITED, "dls")([0.5, 0.5], [0.0, 0.0, -1.0])


def test_solve_never_reuses_a_solver_made_for_a_value_of_another_type() -> None:
    """``solve()`` keeps the Solvers it made by their options; 1 == 1.0 == True, so a
    Solver made for ``tolerance=1`` must not answer ``tolerance=True`` (a boolean is
    refused) or ``bend=True``."""
    ikchain.solve(THREE, [0.5, 0.5], "dls", tolerance=1, bend=1)
    with pytest.raises(ValueError, match="tolerance"):
        ikchain.solve(THREE, [0.5, 0.5], "dls", tolerance=True, bend=1)
    with pytest.raises(ValueError, match="bend"):
        ikchain.solve(THREE, [0.5, 0.5], "dls", tolerance=1, bend=True)
    ikchain.solve(THREE, [0.5, 0.5], "dls", max_iterations=3)
    with pytest.raises(ValueError, match="max_iterations"):
        ikchain.solve(THREE, [0.5, 0.5], "dls", max_iterations=3.0)


#: One option each, beside the method and tolerance of a drag loop's ``solve()`` call.
EACH_OPTION = [
    {"max_iterations": 1},
    {"damping": 0.5},
    {"bend": -1},
    {"trace": True},
    {"rest": [0.1, -0.2, 0.3]},
    {"rest": [0.1, -0.2, 0.3], "rest_weight": 0.5},
    {"weight": 0.25},
    {"stiffness": [0.0, math.inf, 0.0]},
    {"angle": 0.3},
    {"soft": 0.3},
    {"pole": [0.2, 1.0]},  # (the other side than the default bend)
]


def test_solve_keeps_a_drag_loops_solver_apart_from_every_option() -> None:
    """A ``solve()`` with only the method and tolerance finds its Solver by a short key
    (chain, method, tolerance and its type); a call with any other option must never be
    answered by that Solver, nor the plain call by one made for an option."""
    from ikchain import solvers

    solvers._SOLVERS.clear()
    target = [0.65, 0.8]  # within soft's band (beyond 1.2 - 0.3 m)
    plain = ikchain.solve(THREE, target, "dls", tolerance=1e-6)
    again = ikchain.solve(THREE, target, "dls", tolerance=1e-6)
    _same(plain, again)
    assert len(solvers._SOLVERS) == 1
    for options in EACH_OPTION:
        mine = ikchain.solve(THREE, target, "dls", tolerance=1e-6, **options)
        fresh = ikchain.Solver(THREE, "dls", tolerance=1e-6, **options)(target)
        _same(mine, fresh)
        # the option changes the answer here, so the plain Solver could not have given it
        differs = [
            not np.array_equal(mine.angles, plain.angles),
            mine.iterations != plain.iterations,
            (mine.trace is None) != (plain.trace is None),
        ]
        assert any(differs), options
        _same(ikchain.solve(THREE, target, "dls", tolerance=1e-6), plain)
    assert len(solvers._SOLVERS) == 1 + len(EACH_OPTION)
    coarse = ikchain.solve(THREE, target, "dls", tolerance=1e-2)  # another tolerance
    assert coarse.iterations < plain.iterations
    # each value of an option has a Solver of its own, and so has each type of a value
    for key, values in (
        ("weight", (0.25, 0.5)),
        ("angle", (0.3, 0.4)),
        ("stiffness", ([0.0, math.inf, 0.0], [0.0, 1.0, 0.0])),
    ):
        answers = [ikchain.solve(THREE, target, "dls", tolerance=1e-6, **{key: v}) for v in values]
        for value, answer in zip(values, answers, strict=True):
            _same(answer, ikchain.Solver(THREE, "dls", tolerance=1e-6, **{key: value})(target))
        assert not np.array_equal(answers[0].angles, answers[1].angles)
    ikchain.solve(THREE, target, "dls", tolerance=1)  # True == 1, but not a tolerance
    with pytest.raises(ValueError, match="tolerance"):
        ikchain.solve(THREE, target, "dls", tolerance=True)
    ikchain.solve(THREE, target, "dls", tolerance=1e-6, weight=1.0)  # True == 1.0, but
    with pytest.raises(ValueError, match="weight"):  # a boolean is not a weight
        ikchain.solve(THREE, target, "dls", tolerance=1e-6, weight=True)
    ccd = ikchain.solve(THREE, target, "ccd", tolerance=1e-6)  # CCD's own option
    _same(ccd, ikchain.Solver(THREE, "ccd", tolerance=1e-6)(target))
    short = ikchain.solve(THREE, target, "ccd", tolerance=1e-6, max_step=0.01)
    _same(short, ikchain.Solver(THREE, "ccd", tolerance=1e-6, max_step=0.01)(target))
    assert short.iterations != ccd.iterations


def test_a_solver_with_bend_still_takes_a_warm_start() -> None:
    """``bend`` chooses the default start; a call's ``init`` replaces it (a drag's next
    frame), where ``solve()`` refuses the pair as ambiguous."""
    solver = ikchain.Solver(CHAIN, "ccd", bend=-1)
    first = solver([1.0, 0.5])
    _same(first, ikchain.solve(CHAIN, [1.0, 0.5], "ccd", bend=-1))
    second = solver([1.0, 0.55], first.angles)
    _same(second, ikchain.solve(CHAIN, [1.0, 0.55], "ccd", init=first.angles))
    with pytest.raises(ValueError, match="expected init or bend, got both"):
        ikchain.solve(CHAIN, [1.0, 0.55], "ccd", init=first.angles, bend=-1)


@pytest.mark.parametrize(
    "options",
    [
        {"angle": 0.3},
        {"stiffness": [0.0, math.inf, 0.5]},
        {"weight": 0.5},
        {"soft": 0.1},
        {"rest": [0.1, -0.2, 0.3]},
    ],
)
def test_a_call_with_a_step_around_the_solve_answers_and_refuses_as_solve_does(
    options: dict,
) -> None:
    """One plain point and start skip the call's shape checks for every Solver, not
    only a plain one: the answer is still ``solve()``'s, to the bit, and a start of
    the wrong shape still gets the call's own words."""
    solver = ikchain.Solver(THREE, "dls", **options)
    start = [0.3, 0.2, 0.4]
    for target in TARGETS[:6]:
        mine = solver(target.tolist(), start)
        _same(mine, ikchain.solve(THREE, target.tolist(), "dls", init=start, **options))
        assert mine.shape == ()
        start = mine.angles.tolist()
    with pytest.raises(
        ValueError, match=r"init: expected one start pose, shape \(3,\), got shape \(2, 3\)"
    ):
        solver([0.5, 0.5], [start, start])
    with pytest.raises(
        ValueError, match=r"init: expected shape \(\.\.\., 3\) for a 3-bone chain, got \(2,\)"
    ):
        solver([0.5, 0.5], start[:2])


def test_solve_keeps_no_answer_of_one_rest_or_pole_for_another() -> None:
    """``solve()`` keeps the Solvers it made for a rest pose or a pole given as a list
    or tuple (a drag repeats the call), by their items and the items' types: another
    rest or pole, or the same numbers of a refused type, is never answered by it."""
    target = [0.6, 0.5]
    for rest in ([0.0, 0.0, 0.0], [1.0, -1.0, 1.0], (1.0, -1.0, 1.0), [0, 0, 0]):
        _same(
            ikchain.solve(THREE, target, "dls", rest=rest, rest_weight=3.0),
            ikchain.Solver(THREE, "dls", rest=rest, rest_weight=3.0)(target),
        )
    toward = ikchain.solve(THREE, target, "dls", rest=[1.0, -1.0, 1.0], rest_weight=3.0)
    straight = ikchain.solve(THREE, target, "dls", rest=[0.0, 0.0, 0.0], rest_weight=3.0)
    assert np.abs(toward.angles - straight.angles).max() > 0.1
    with pytest.raises(ValueError, match="rest"):
        ikchain.solve(THREE, target, "dls", rest=[0.0, 0.0, True])
    for pole in ([0.3, 1.0], [0.3, -1.0], (0.3, 1.0)):
        _same(
            ikchain.solve(CHAIN, [1.0, 0.5], "analytic", pole=pole),
            ikchain.Solver(CHAIN, "analytic", pole=pole)([1.0, 0.5]),
        )
    up = ikchain.solve(CHAIN, [1.0, 0.5], "analytic", pole=[0.3, 1.0])
    down = ikchain.solve(CHAIN, [1.0, 0.5], "analytic", pole=[0.3, -1.0])
    assert np.sign(up.angles[1]) == -np.sign(down.angles[1]) != 0.0
    path = [[0.6, 0.5], [0.5, 0.6]]
    _same(
        ikchain.follow(THREE, path, "dls", rest=[1.0, -1.0, 1.0], rest_weight=3.0),
        ikchain.Solver(THREE, "dls", rest=[1.0, -1.0, 1.0], rest_weight=3.0).follow(path),
    )
    _same(
        ikchain.follow(THREE, path, "dls", rest=[0.0, 0.0, 0.0], rest_weight=3.0),
        ikchain.Solver(THREE, "dls", rest=[0.0, 0.0, 0.0], rest_weight=3.0).follow(path),
    )
