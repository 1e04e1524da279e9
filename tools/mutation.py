"""Mutation testing for ikchain: plant one mistake at a time and check that a test fails.

Each mutant below is a small deliberate mistake (a flipped sign, a dropped clamp, a
boundary moved by one) in a copy of ``src/``; the tests named with it run against that
copy with numba's JIT off (``NUMBA_DISABLE_JIT=1``: the kernels run as plain Python,
so the copy's code is what runs, and quickly). A mutant the tests do not notice
*survives*; the run fails when more survive than ``--budget`` allows.

    python tools/mutation.py            # every mutant (the CI subset: all of them)
    python tools/mutation.py -k fabrik  # those whose name contains "fabrik"

The list is curated rather than generated: each entry is a mistake that a review
once made unnoticed or that guards a documented rule. Equivalent mutants
(changes no test can see because the behaviour is the same) are not listed; the
development page of the docs (docs/guide/development.rst) names the ones considered.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SOLVER_TESTS = ("tests/test_contracts.py", "tests/test_solvers.py")
LIMIT_TESTS = ("tests/test_contracts.py", "tests/test_limits_reach.py")
FRAME_TESTS = ("tests/test_contracts.py", "tests/test_bend.py")
#: The lesson's caps, each named by the test that spells the documented value.
REPLAY_CAP_TESTS = (
    "tests/test_lesson_extras.py::test_a_replay_whose_reply_would_exceed_the_reply_cap_is_refused_before_work",
    "tests/test_lesson_extras.py::test_replay_and_motion_replies_stay_within_their_bound_and_the_cap",
)
MOTION_CAP_TESTS = ("tests/test_lesson_extras.py::test_the_motion_work_cap_is_the_readmes",)
#: A figure's link against the figure it was copied from, in a second browser.
LINK_TESTS = ("tests/browser/test_figure_link_reproduces.py",)
#: The main path's structure: folds, menus, the pole's figures, focusable tables.
PAGE_STRUCTURE_TESTS = ("tests/test_lesson_main_path.py",)
#: One step of dls and jt against the weighted step written with full matrices.
STIFF_STEP_TESTS = (
    "tests/test_stiffness.py::test_one_step_is_the_weighted_least_norm_step_of_the_closed_form",
)
#: The tip angle's closed form, on both branches.
ANGLE_TESTS = (
    "tests/test_tip_angle.py::test_a_solver_call_poses_one_target_as_solve_and_a_batch_do",
    "tests/test_tip_angle.py::test_the_tip_is_on_the_target_with_the_hand_at_the_angle_on_both_branches",
    "tests/test_tip_angle.py::test_ten_thousand_batched_cases_agree_with_the_wrist_annulus",
    "tests/test_tip_angle.py::test_a_start_pose_that_already_holds_the_angle_is_kept",
    "tests/test_tip_angle.py::test_under_limits_min_error_is_the_least_distance_and_the_last_joint_stays_inside",
    "tests/test_tip_angle.py::test_what_cannot_be_posed_at_an_angle_is_refused",
    "tests/test_tip_angle.py::test_one_target_is_posed_as_it_is_in_a_batch_to_the_bit",
    "tests/test_tip_angle.py::test_a_start_outside_the_last_joints_limits_is_refused",
    "tests/test_tip_angle.py::test_a_lock_before_the_wrist_tells_the_locked_reach_alone_and_in_a_batch",
    "tests/test_tip_angle.py::test_what_the_wrists_loop_refuses_for_one_target_is_refused_as_in_a_batch",
    "tests/test_tip_angle.py::test_one_target_takes_one_kernel_call_and_a_batch_the_batch_path",
)
#: New connections read in turn at the rate.
NEWCOMER_TESTS = (
    "tests/test_connections.py::"
    "test_connections_opened_faster_than_the_rate_are_read_in_turn_and_all_served",
)
#: A locked Solver's single answers against its batch's and path's.
LOCK_ALIKE_TESTS = (
    "tests/test_stiffness.py::test_a_solver_answers_alike_alone_in_a_batch_and_along_a_path",
)
#: A lock without limits: the loop's own reach, against the search's, and no search.
LOCK_FOUND_TESTS = (
    "tests/test_stiffness.py::test_a_lock_without_limits_finds_its_reach_in_the_loop_as_the_search_does",
)
#: A locked joint's reach against the closed forms.
LOCK_TESTS = (
    "tests/test_stiffness.py::test_a_locked_joint_keeps_its_start_angle_and_the_reach_is_the_locked_chains",
    "tests/test_stiffness.py::test_the_locked_chains_nearest_pose_is_as_near_as_its_min_error",
    "tests/test_stiffness.py::test_three_free_links_have_the_links_annulus_and_its_nearest_pose",
)


#: Tests left out of mutation runs: the oracle's self-checks (they test no ikchain
#: code) and the 8-bone batch-equality cases (minutes each with the JIT off; the
#: 2-5 bone cases run).
SKIP = "not oracle and not (equal_the_batch and 8)"


#: Tests that run with the kernels compiled (see :attr:`Mutant.compiled`).
COMPILED_TESTS = (
    "tests/browser/",
    "tests/test_lesson_main_path",
    "tests/test_precomputed",
    "tests/test_startup",
)


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # under src/ikchain
    old: str
    new: str
    tests: tuple[str, ...]

    @property
    def compiled(self) -> bool:
        """Whether its tests serve the whole page (a browser, the page's text counted,
        its stored pictures solved again, or the switch from plain Python to compiled
        kernels): those run with the kernels compiled, as plain Python the page's
        tables take minutes; such a mutant changes no kernel, so the JIT hides none of
        its lines."""
        return any(t.startswith(COMPILED_TESTS) for t in self.tests)


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "link: the start pose of the drawn solve left out",
        "web/static/lesson.js",
        'if (made && made.init) parts.push("init=" + list(made.init));',
        "",
        LINK_TESTS,
    ),
    Mutant(
        "link: the pole left out",
        "web/static/lesson.js",
        'if (made && made.pole) parts.push("pole=" + list(made.pole));',
        "",
        LINK_TESTS,
    ),
    Mutant(
        "tables: the scrolling wrapper not focusable",
        "web/templates/_blocks.html",
        '<div class="table-wrap" role="region" tabindex="0"',
        '<div class="table-wrap" role="region"',
        PAGE_STRUCTURE_TESTS,
    ),
    Mutant(
        "rest table: a row's pull and limits not loaded into the figure",
        "web/static/lesson.js",
        "if (row[key] != null) LINK_PARTS[i].apply(this, String(row[key]));",
        "void key;",
        ("tests/browser/test_rest_table_rows.py",),
    ),
    Mutant(
        "controls: an absent control keeps its room (a blank band)",
        "web/static/lesson.css",
        ".ctl.is-absent { display: none; }",
        ".ctl.is-absent { visibility: hidden; }",
        ("tests/browser/test_lesson_folds.py",),
    ),
    Mutant(
        "pole: offered in a three-bone figure",
        "lesson/content.py",
        '"pole": list(POLE_DEFAULT) if section.pole else None,',
        '"pole": list(POLE_DEFAULT),',
        PAGE_STRUCTURE_TESTS,
    ),
    Mutant(
        "ccd: a large negative turn capped to +max_step",
        "solvers/ccd.py",
        "turn = turn if turn >= -max_step else -max_step",
        "turn = turn if turn >= -max_step else max_step",
        SOLVER_TESTS,
    ),
    Mutant(
        "ccd: the lower limit not applied",
        "solvers/ccd.py",
        "turned = turned if turned >= lows[i] else lows[i]",
        "turned = turned",
        SOLVER_TESTS + LIMIT_TESTS,
    ),
    Mutant(
        "dls: the rest pull not wrapped",
        "solvers/dls.py",
        "toward[i] = give[i] * wrap_angle(rest[i] - aimed[i])",
        "toward[i] = give[i] * (rest[i] - aimed[i])",
        SOLVER_TESTS,
    ),
    Mutant(
        "fabrik: backward zero-gap fallback flipped",
        "solvers/fabrik.py",
        "dx = -cs[i]\n            dy = -ss[i]",
        "dx = cs[i]\n            dy = ss[i]",
        SOLVER_TESTS,
    ),
    Mutant(
        "fabrik: forward zero-gap fallback flipped",
        "solvers/fabrik.py",
        "dx = cs[i]\n            dy = ss[i]\n        if limited:",
        "dx = -cs[i]\n            dy = -ss[i]\n        if limited:",
        SOLVER_TESTS,
    ),
    Mutant(
        "fabrik: angle change wrapped only beyond 2π",
        "solvers/fabrik.py",
        "        if abs(change) > math.pi:",
        "        if abs(change) > 2 * math.pi:",
        SOLVER_TESTS,
    ),
    Mutant(
        "fabrik: limits clamp to the far bound",
        "solvers/limited.py",
        "return low if to_low <= to_high else high",
        "return high if to_low <= to_high else low",
        SOLVER_TESTS + LIMIT_TESTS,
    ),
    Mutant(
        "loop: stall threshold absolute instead of relative",
        "solvers/loop.py",
        "ROUNDING * (1.0 if size <= 1.0 else size)",
        "ROUNDING",
        SOLVER_TESTS,
    ),
    Mutant(
        "loop: default start pose not clipped to the lower limit",
        "solvers/loop.py",
        "value = value if value >= lows[i] else lows[i]",
        "value = value",
        SOLVER_TESTS,
    ),
    Mutant(
        "loop: DLS never jumps to the search's pose on its last iteration",
        "solvers/loop.py",
        "min_error > 0.0 or not moved or iterations + 1 >= max_iterations",
        "min_error > 0.0 or not moved",
        LIMIT_TESTS,
    ),
    Mutant(
        "kinematics: wrap_angle returns -π",
        "kinematics.py",
        "(wrapped <= -np.pi)",
        "(wrapped < -np.pi)",
        ("tests/test_contracts.py", "tests/test_kinematics.py"),
    ),
    Mutant(
        "manipulability: rounding may leave sigma2 above sigma1",
        "solvers/compiled.py",
        "out[k, 1] = (sigma2 if sigma2 < sigma1 else sigma1) * total",
        "out[k, 1] = sigma2 * total",
        ("tests/test_manipulability.py",),
    ),
    Mutant(
        "manipulability: squares in metres (overflow for a chain of 1e200 m)",
        "solvers/compiled.py",
        "        total += lengths[i]\n",
        "        total = 1.0\n",
        ("tests/test_manipulability.py",),
    ),
    Mutant(
        "manipulability: the long axis may come out as -π/2",
        "solvers/compiled.py",
        "if axis <= -0.5 * math.pi:",
        "if axis < -0.5 * math.pi:",
        ("tests/test_manipulability.py",),
    ),
    Mutant(
        "manipulability: the shorter row is the pivot",
        "solvers/compiled.py",
        "longer_u = uu >= ww",
        "longer_u = uu < ww",
        ("tests/test_manipulability.py", "tests/test_kinematics.py"),
    ),
    Mutant(
        "limited: fitting an angle rounds k the wrong way",
        "solvers/limited.py",
        "k = math.ceil((low - slack - value) / TWO_PI)",
        "k = math.floor((low - slack - value) / TWO_PI)",
        LIMIT_TESTS,
    ),
    Mutant(
        "limited: a free joint never points the chain back along the line",
        "solvers/limited.py",
        "(math.pi if digit == 3 else 0.0)",
        "0.0",
        LIMIT_TESTS,
    ),
    Mutant(
        "limited: boxes bounded without the Lipschitz term",
        "solvers/limited.py",
        "lower = value - parts[child].sum()",
        "lower = value",
        LIMIT_TESTS,
    ),
    Mutant(
        "limited: the target seen from joint n - 2 turned the wrong way",
        "solvers/limited.py",
        "c * dy - s * dx,",
        "c * dy + s * dx,",
        LIMIT_TESTS,
    ),
    Mutant(
        "limited: an arc's nearer end chosen as the farther",
        "solvers/limited.py",
        "if gap < distance:",
        "if gap > distance or distance == math.inf:",
        LIMIT_TESTS,
    ),
    Mutant(
        "follow: the second target of a path started afresh, not from the first's answer",
        "solvers/loop.py",
        "if following and b > begin:",
        "if following and b > begin + 1:",
        ("tests/test_follow.py",),
    ),
    # -- the lesson's frames and caps (mistakes a review once missed) ------------------------
    Mutant(
        "frames: the mirrored re-solve given the whole budget, not what is left",
        "lesson/frames.py",
        'again["max_iterations"] = max(0, budget - int(result.iterations))',
        'again["max_iterations"] = budget',
        FRAME_TESTS,
    ),
    Mutant(
        "motion: the work cap x10",
        "lesson/motion.py",
        "MAX_MOTION_WORK = 280_000",
        "MAX_MOTION_WORK = 2_800_000",
        MOTION_CAP_TESTS,
    ),
    Mutant(
        "replay: the reply-size bound 10x too small (its check 10x looser)",
        "lesson/replay_bounds.py",
        "return 14_000 + 45 + steps * (per_step + per_picture + 20)",
        "return (14_000 + 45 + steps * (per_step + per_picture + 20)) // 10",
        REPLAY_CAP_TESTS,
    ),
    Mutant(
        "protocol: the replay reply-size check 10x looser",
        "web/protocol.py",
        'replay.reply_bytes_bound(bones, steps, pictures) > CAPS["max_reply_bytes"]',
        'replay.reply_bytes_bound(bones, steps, pictures) > 10 * CAPS["max_reply_bytes"]',
        REPLAY_CAP_TESTS,
    ),
    Mutant(
        "serve: a connection at a cap refused though an idle one could make room",
        "web/serve.py",
        "if moment is not None and moment <= since:",
        "if moment is not None and moment <= since - 1e9:",
        ("tests/test_connections.py::test_idle_connections_make_room_for_a_new_page_oldest_first",),
    ),
    Mutant(
        "serve: every new connection read at once, whatever the rate",
        "web/serve.py",
        "        if not self.queue and self.tokens >= 1.0:",
        "        if True:",
        NEWCOMER_TESTS,
    ),
    Mutant(
        "serve: the newest waiting connection read first",
        "web/serve.py",
        "            transport = self.queue.popleft()",
        "            transport = self.queue.pop()",
        NEWCOMER_TESTS,
    ),
    Mutant(
        "serve: uvicorn's text/plain 400 for a request line that does not parse",
        "web/serve.py",
        "    def send_400_response(self, msg: str) -> None:",
        "    def send_400_response_unused(self, msg: str) -> None:",
        (
            "tests/test_connections.py::"
            "test_a_request_line_beyond_ascii_gets_a_json_400_and_one_clear_log_line",
        ),
    ),
    Mutant(
        "scheduler: a connection charged its solves only, not what it cost besides",
        "web/scheduler.py",
        "self.light.charge(flow, spent + job.owed)",
        "self.light.charge(flow, spent)",
        ("tests/test_fairness.py",),
    ),
    Mutant(
        "scheduler: every drag-sized frame on the event loop whatever its kind costs",
        "web/scheduler.py",
        "if cost.work <= DRAG_WORK and self.predict_calibrated(cost) <= self.light_seconds:",
        "if cost.work <= DRAG_WORK:",
        ("tests/test_fairness.py",),
    ),
    Mutant(
        "scheduler: every frame of a turn run at once, in arrival order",
        "web/scheduler.py",
        "if not self._ran_this_turn and self.light.next_is(flow):",
        "if self.light.next_is(flow):",
        ("tests/test_fairness.py",),
    ),
    Mutant(
        "protocol: the depth scan run over junk that cannot nest",
        "web/protocol.py",
        'if text.lstrip(" \\t\\n\\r")[:1] in ("{", "["):',
        "if True:",
        ("tests/test_fairness.py::test_junk_that_cannot_nest_is_refused_without_the_depth_scan",),
    ),
    Mutant(
        "threads: each range of a batch ends one target short",
        "solvers/threads.py",
        "(chunk + 1) * count // chunks)",
        "(chunk + 1) * count // chunks - 1)",
        ("tests/test_batches.py",),
    ),
    Mutant(
        "dls: a pulled step kept when it merely does not raise the error",
        "solvers/dls.py",
        "PULLED_PROGRESS = 0.81",
        "PULLED_PROGRESS = 1.0",
        ("tests/test_solvers.py::test_a_rest_pose_never_stops_convergence",),
    ),
    Mutant(
        "jt: the step taken without its damping",
        "solvers/transpose.py",
        "alpha = damping * (gx * mx + gy * my) / moved2",
        "alpha = (gx * mx + gy * my) / moved2",
        ("tests/test_transpose.py",),
    ),
    Mutant(
        "jt: a joint limit not applied after the step",
        "solvers/transpose.py",
        "            clamp_into(new_angles, lows, highs)",
        "            pass",
        ("tests/test_transpose.py",),
    ),
    Mutant(
        "soft: the eased target's error reported instead of the true target's",
        "solvers/soft.py",
        '"error": np.asarray(error, dtype=np.float64),',
        '"error": np.asarray(aimed.error, dtype=np.float64),',
        ("tests/test_soft.py",),
    ),
    Mutant(
        "soft: a tip left short by the easing reported converged",
        "solvers/soft.py",
        "np.where(moved & reached, _SOFTENED, chased)",
        "np.where(moved & reached, _CONVERGED, chased)",
        ("tests/test_soft.py",),
    ),
    Mutant(
        "solve: out= of another number of targets accepted",
        "solvers/runner.py",
        "    if memory.shape != shape:",
        "    if memory.shape[1:] != shape[1:]:",
        ("tests/test_batches.py",),
    ),
    Mutant(
        "soft: the eased target's min_error reported",
        "solvers/soft.py",
        '"min_error": true.min_error,',
        '"min_error": aimed.min_error,',
        ("tests/test_soft.py",),
    ),
    Mutant(
        "soft: the easing starts a soft length too late",
        "solvers/soft.py",
        "    start = outer - soft\n",
        "    start = outer\n",
        ("tests/test_soft.py",),
    ),
    Mutant(
        "soft: the widest soft distance refused",
        "solvers/soft.py",
        "if not 0.0 <= value <= width:",
        "if not 0.0 <= value < width:",
        ("tests/test_soft.py",),
    ),
    Mutant(
        "pole: the nearer answer kept only when nearer by twice the tolerance",
        "solvers/pole.py",
        "(a_error < b_error - tolerance)",
        "(a_error < b_error - 2.0 * tolerance)",
        ("tests/test_pole.py", "tests/test_pole_rule.py"),
    ),
    Mutant(
        "pole: more joints on the pole's side wins however far it ends",
        "solvers/pole.py",
        "(more & (a_error <= b_error + tolerance))",
        "more",
        ("tests/test_pole.py", "tests/test_pole_rule.py"),
    ),
    Mutant(
        "pole: the two-bone mirror keeps the elbow angle",
        "solvers/pole.py",
        "mirror[..., 1] = -angles[..., 1]",
        "mirror[..., 1] = angles[..., 1]",
        ("tests/test_pole.py", "tests/test_pole_rule.py"),
    ),
    Mutant(
        "pole: a mirror outside the limits tried anyway",
        "solvers/pole.py",
        "        wrong &= np.all((mirror >= limits[:, 0]) & (mirror <= limits[:, 1]), axis=-1)",
        "        pass",
        ("tests/test_pole.py",),
    ),
    Mutant(
        "jt: no trust region",
        "solvers/transpose.py",
        "MAX_TURN = 0.5",
        "MAX_TURN = 1e9",
        ("tests/test_transpose.py",),
    ),
    Mutant(
        "jt: a step that raises the error is never halved",
        "solvers/transpose.py",
        "RETRIES = 30",
        "RETRIES = 0",
        ("tests/test_transpose.py", "tests/test_solvers.py"),
    ),
    Mutant(
        "follow: every target from the first start pose",
        "solvers/loop.py",
        "        if following and b > begin:",
        "        if following and b < begin:",
        ("tests/test_follow.py",),
    ),
    Mutant(
        "follow: a path solved without the follow flag",
        "solvers/options.py",
        "    follow_record[OPT_FOLLOW] = 1.0",
        "    follow_record[OPT_FOLLOW] = 0.0",
        ("tests/test_follow.py",),
    ),
    Mutant(
        "options: the rest weight used as the gain",
        "solvers/options.py",
        "    pull = weight / (1.0 + weight)",
        "    pull = weight",
        ("tests/test_solvers.py", "tests/test_solver_object.py"),
    ),
    Mutant(
        "options: the tolerance and the damping swapped in the record",
        "solvers/options.py",
        "            goal,\n            fraction,",
        "            fraction,\n            goal,",
        SOLVER_TESTS,
    ),
    Mutant(
        "options: a limited chain's record says free",
        "solvers/options.py",
        "            SEARCHED if chain._limited else 0.0,",
        "            0.0,",
        LIMIT_TESTS,
    ),
    Mutant(
        "options: the default budget for an iterative method 0",
        "solvers/options.py",
        '(0 if method == "analytic" else DEFAULT_MAX_ITERATIONS)',
        "0",
        SOLVER_TESTS,
    ),
    Mutant(
        "solve: a Solver reused for a value of another type (True for 1)",
        "solvers/__init__.py",
        "        type(max_iterations),\n        type(tolerance),\n",
        "        type(max_iterations),\n",
        ("tests/test_solver_object.py",),
    ),
    Mutant(
        "result: out= leaves the earlier status behind",
        "result.py",
        "    result._status = None  # made from the codes when first read (30 ns a target)",
        "    result._status = result._status if into is not None else None",
        ("tests/test_solver_object.py",),
    ),
    Mutant(
        "result: out= leaves the earlier target behind",
        "result.py",
        "    result._target = targets.reshape(*shape, 2)",
        "    result._target = result._target if into is not None else targets.reshape(*shape, 2)",
        ("tests/test_solver_object.py",),
    ),
    Mutant(
        "limited: the bound drops the drift of the joints before",
        "solvers/limited.py",
        "            drift += span * half[j]",
        "            drift += 0.0",
        ("tests/test_reach_search_bound.py", *LIMIT_TESTS),
    ),
    Mutant(
        "limited: the bound halves each joint's reach",
        "solvers/limited.py",
        "parts[k] = (norm(tx - x, ty - y) + drift) * half[k]",
        "parts[k] = 0.5 * (norm(tx - x, ty - y) + drift) * half[k]",
        ("tests/test_reach_search_bound.py", *LIMIT_TESTS),
    ),
    Mutant(
        "limits: a bound past 2**20 rad accepted",
        "checks.py",
        "np.abs(array).max(axis=1) > LARGEST_ANGLE",
        "np.abs(array).max(axis=1) > 1e300",
        ("tests/test_extreme_values.py",),
    ),
    Mutant(
        "loop: a free start angle past 2**20 rad taken as it is",
        "solvers/loop.py",
        "            value = math.atan2(math.sin(value), math.cos(value))",
        "            pass",
        ("tests/test_extreme_values.py",),
    ),
    Mutant(
        "checks: an integer beyond floats raises OverflowError",
        "checks.py",
        "    except OverflowError:  # an integer beyond floats (10**400)",
        "    except ZeroDivisionError:",
        ("tests/test_extreme_values.py",),
    ),
    Mutant(
        "blend: the shortest turn blended (leaves the limits)",
        "solvers/blend.py",
        "start[i] + weight * (row[i] - start[i])",
        "start[i] + weight * np.arctan2(np.sin(row[i] - start[i]), np.cos(row[i] - start[i]))",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "blend: a tip the weight moved off the target called converged",
        "solvers/blend.py",
        "        row[results + CODE] = BLENDED",
        "        row[results + CODE] = CONVERGED",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "blend: the weight's pose from the wrong side (answer toward start)",
        "solvers/blend.py",
        "start[i] + weight * (row[i] - start[i])",
        "row[i] + weight * (start[i] - row[i])",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "blend: the loop forgets the weight (an iterative solve unblended)",
        "solvers/loop.py",
        "    blending = weight != 1.0",
        "    blending = False",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "blend: the start pose kept after the solve, not before",
        "solvers/loop.py",
        "        if blending:\n            copy_into(angles[0], work[START_ROW], 0)",
        "        if False:\n            copy_into(angles[0], work[START_ROW], 0)",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "rigid reach: the hole of the links' annulus left out",
        "solvers/rigid.py",
        "    inner = max(0.0, 2.0 * longest - total)",
        "    inner = 0.0",
        LOCK_TESTS,
    ),
    Mutant(
        "rigid reach: a link's fixed bends not added up",
        "solvers/rigid.py",
        "        offset += lows[tail]",
        "        offset = lows[tail]",
        LOCK_TESTS,
    ),
    Mutant(
        "rigid reach: the fixed prefix's end taken as the root",
        "solvers/rigid.py",
        "    rx = tx - px",
        "    rx = tx",
        LOCK_TESTS,
    ),
    Mutant(
        "rigid reach: a free-or-fixed chain of a limit narrower than a turn",
        "solvers/rigid.py",
        "        if not (span >= TWO_PI or span == 0.0):",
        "        if not (span >= 0.5 or span == 0.0):",
        ("tests/test_limits_reach.py::test_dls_random_limited_chains",),
    ),
    Mutant(
        "rigid reach: the second link's heading from the elbow turned the wrong way",
        "solvers/rigid.py",
        "        h2 = scratch[0] + scratch[1]",
        "        h2 = scratch[0] - scratch[1]",
        LOCK_TESTS,
    ),
    Mutant(
        "rigid reach: in the hole, every link along the target (none folded back)",
        "solvers/rigid.py",
        "            world = toward + math.pi",
        "            world = toward",
        LOCK_TESTS,
    ),
    Mutant(
        "rigid reach: a link's last bone's heading not carried to the next link",
        "solvers/rigid.py",
        "        previous = start + offset",
        "        previous = start",
        LOCK_TESTS,
    ),
    Mutant(
        "blend: after a step, every answer's status read as converged",
        "solvers/runner.py",
        "    out[:, 3 * n + 2 + CODE_FIELD] = np.asarray(codes, dtype=np.float64).reshape(-1)",
        "    out[:, 3 * n + 2 + CODE_FIELD] = 0.0",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "blend: the blended tip's joints not recomputed",
        "solvers/blend.py",
        "    joints_into(lengths, row[:n], joints)\n",
        "    joints_into(lengths, start, joints)\n",
        ("tests/test_blend_weight.py",),
    ),
    Mutant(
        "precomputed: the stored pictures solved again while the kernels compile",
        "lesson/precomputed.py",
        "            if _serving:",
        "            if False:",
        ("tests/test_precomputed.py",),
    ),
    Mutant(
        "app: the page served meanwhile kept after the compiled kernels take over",
        "web/app.py",
        "    render_page.cache_clear()\n",
        "",
        ("tests/test_startup.py",),
    ),
    Mutant(
        "scheduler: a heavy request queued for a heavy process while the kernels compile",
        "web/scheduler.py",
        "            if self.warming:\n",
        "            if False:\n",
        ("tests/test_startup.py",),
    ),
    Mutant(
        "runner: the plain copies of the kernels left in sys.modules",
        "solvers/runner.py",
        "            sys.modules.pop(name, None)",
        "            pass",
        ("tests/test_startup.py",),
    ),
    Mutant(
        "stiffness: the give is W, not its inverse (a stiff joint turns more)",
        "solvers/stiffness.py",
        "    return 1.0 / (1.0 + stiffness)",
        "    return 1.0 + stiffness",
        STIFF_STEP_TESTS,
    ),
    Mutant(
        "stiffness: an infinite stiffness not made a limit (the unlocked chain's reach told)",
        "solvers/solver.py",
        "self._locked = None if stiff is None or not np.isinf(stiff).any() else np.isinf(stiff)",
        "self._locked = None",
        LOCK_TESTS,
    ),
    Mutant(
        "stiffness: dls's aiming turn of the root not scaled by its give",
        "solvers/dls.py",
        "    turn = give[0] * math.atan2(ex * ty - ey * tx, ex * tx + ey * ty)",
        "    turn = math.atan2(ex * ty - ey * tx, ex * tx + ey * ty)",
        STIFF_STEP_TESTS,
    ),
    Mutant(
        "stiffness: dls's 2 x 2 system J Jᵀ unweighted",
        "solvers/dls.py",
        "        sxy += give[i] * jx[i] * jy[i]",
        "        sxy += jx[i] * jy[i]",
        STIFF_STEP_TESTS,
    ),
    Mutant(
        "stiffness: dls's turn of each joint unweighted",
        "solvers/dls.py",
        "            turn_i = give[i] * (jx[i] * yx + jy[i] * yy)",
        "            turn_i = jx[i] * yx + jy[i] * yy",
        STIFF_STEP_TESTS,
    ),
    Mutant(
        "stiffness: dls's rest pull projected in the unweighted metric",
        "solvers/dls.py",
        "            toward[i] -= give[i] * (jx[i] * zx + jy[i] * zy)",
        "            toward[i] -= jx[i] * zx + jy[i] * zy",
        (
            "tests/test_stiffness.py::test_the_rest_pull_moves_in_the_null_space_of_the_weighted_metric",
        ),
    ),
    Mutant(
        "stiffness: jt's gradient unweighted",
        "solvers/transpose.py",
        "        g = give[i] * (ax * gy - ay * gx)",
        "        g = ax * gy - ay * gx",
        STIFF_STEP_TESTS,
    ),
    Mutant(
        "locked: one target's answer tells the locked chain's limits",
        "solvers/steps.py",
        "            return None  # the batch path turns the start, or says what is wrong\n"
        "        result._limits = chain.limits  # the caller's chain's limits (at_limit)\n",
        "            return None  # the batch path turns the start, or says what is wrong\n",
        LOCK_ALIKE_TESTS,
    ),
    Mutant(
        "locked: one target's lock outside its joint's limits let through",
        "solvers/steps.py",
        "        if init is not None and chain.limits is not None:  # a lock outside them: refused",
        "        if False:  # a lock outside them: refused",
        (
            "tests/test_stiffness.py::test_a_start_outside_the_limits_is_refused_at_a_locked_joint_or_a_free_one",
        ),
    ),
    Mutant(
        "locked: a traced single solve sent the straight way (its trace dropped)",
        "solvers/steps.py",
        "        plain = not (following or out is not None or self.options.trace)",
        "        plain = not (following or out is not None)",
        ("tests/test_stiffness.py::test_a_locked_single_solve_keeps_its_trace",),
    ),
    Mutant(
        "locked: one target's start beyond 2**20 rad refused, not turned the batch way",
        "solvers/steps.py",
        "            return None  # the batch path turns the start, or says what is wrong",
        "            raise",
        LOCK_ALIKE_TESTS,
    ),
    Mutant(
        "locked: the loop's own reach of a free-or-fixed chain skipped (the annulus told)",
        "solvers/loop.py",
        "    elif LOCKS and options[OPT_LIMITED] == FREE_OR_FIXED:",
        "    elif False:",
        LOCK_FOUND_TESTS,
    ),
    Mutant(
        "locked: the loop's own reach gives DLS no nearest pose to start from",
        "solvers/loop.py",
        "            seed_bend = int(options[OPT_BEND])",
        "            seed_bend = 0",
        LOCK_FOUND_TESTS,
    ),
    Mutant(
        "locked: the loop's nearest pose made with the other bend",
        "solvers/loop.py",
        "            seed_bend = int(options[OPT_BEND])",
        "            seed_bend = -int(options[OPT_BEND])",
        LOCK_FOUND_TESTS,
    ),
    Mutant(
        "locked: the loop starts from a nearest pose where there is none (a pose left before)",
        "solvers/loop.py",
        "            if posed:  # (joints[following] is free until the step below)",
        "            if True:  # (joints[following] is free until the step below)",
        (
            "tests/test_stiffness.py::"
            "test_a_locked_chains_answer_in_a_batch_is_its_answer_alone_whatever_came_before",
        ),
    ),
    Mutant(
        "locked: a lock without limits still searched (not marked free or fixed)",
        "solvers/steps.py",
        "            if self.chain.limits is None:  # every joint free or fixed: the loop finds",
        "            if False:  # every joint free or fixed: the loop finds",
        LOCK_FOUND_TESTS,
    ),
    Mutant(
        "locked: a free-or-fixed chain's single solve still searched",
        "solvers/steps.py",
        "                part._record, part._limited = record, False",
        "                part._record, part._limited = record, True",
        LOCK_FOUND_TESTS,
    ),
    Mutant(
        "locked: a free-or-fixed chain's batch still searched",
        "solvers/runner.py",
        "    if record[OPT_LIMITED] == SEARCHED:",
        "    if record[OPT_LIMITED] != 0.0:",
        LOCK_FOUND_TESTS,
    ),
    Mutant(
        "fairness: the fee per message back to the untimed CPU alone",
        "web/scheduler.py",
        "MESSAGE_SECONDS = 0.0005",
        "MESSAGE_SECONDS = 0.0002",
        (
            "tests/test_fairness.py::test_a_sparse_page_is_not_queued_behind_a_flood_of_cheap_messages",
        ),
    ),
    Mutant(
        "solve cache: a list option's key without its items' types (True == 1)",
        "solvers/__init__.py",
        "        return (kind, *value, *map(type, value))",
        "        return (kind, *value)",
        (
            "tests/test_stiffness.py::test_solve_keeps_one_solver_for_a_list_or_tuple_of_stiffness",
            "tests/test_solver_object.py::test_solve_keeps_no_answer_of_one_rest_or_pole_for_another",
        ),
    ),
    Mutant(
        "solve cache: a rest pose left out of the key",
        "solvers/__init__.py",
        "        _items(rest),\n",
        "        None,\n",
        (
            "tests/test_solver_object.py::test_solve_keeps_no_answer_of_one_rest_or_pole_for_another",
        ),
    ),
    Mutant(
        "solve cache: a pole left out of the key",
        "solvers/__init__.py",
        "        _items(pole),\n",
        "        None,\n",
        (
            "tests/test_solver_object.py::test_solve_keeps_no_answer_of_one_rest_or_pole_for_another",
        ),
    ),
    Mutant(
        "solve(): a drag loop's short key without the stiffness",
        "solvers/__init__.py",
        "            None if stiffness is None else _items(stiffness),\n",
        "",
        (
            "tests/test_solver_object.py::test_solve_keeps_a_drag_loops_solver_apart_from_every_option",
        ),
    ),
    Mutant(
        "solve(): a drag loop's short key without the tolerance's type",
        "solvers/__init__.py",
        "            type(tolerance),\n            type(weight),\n",
        "            type(weight),\n",
        (
            "tests/test_solver_object.py::test_solve_keeps_a_drag_loops_solver_apart_from_every_option",
        ),
    ),
    Mutant(
        "solve(): a drag loop's short key without the weight's type",
        "solvers/__init__.py",
        "            type(weight),\n",
        "",
        (
            "tests/test_solver_object.py::test_solve_keeps_a_drag_loops_solver_apart_from_every_option",
        ),
    ),
    Mutant(
        "solve(): a drag loop's short key taken with CCD's max_step given",
        "solvers/__init__.py",
        "        and max_step is None\n",
        "",
        (
            "tests/test_solver_object.py::test_solve_keeps_a_drag_loops_solver_apart_from_every_option",
        ),
    ),
    Mutant(
        "Solver call: a stepped Solver's one-point call drops its start",
        "solvers/solver.py",
        "                return self.solve(point, init)",
        "                return self.solve(point, None)",
        (
            "tests/test_solver_object.py::"
            "test_a_call_with_a_step_around_the_solve_answers_and_refuses_as_solve_does",
        ),
    ),
    Mutant(
        "stiffness: NaN let through (only a negative refused)",
        "solvers/stiffness.py",
        "    bad = np.flatnonzero(~(array >= 0.0))",
        "    bad = np.flatnonzero(array < 0.0)",
        ("tests/test_stiffness.py::test_bad_stiffness_is_refused_with_what_was_expected",),
    ),
    Mutant(
        "angle: the wrist on the far side of the target",
        "solvers/angle.py",
        "    return x - hand[0], y - hand[1]",
        "    return x + hand[0], y + hand[1]",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the last joint not turned back by all the others",
        "solvers/tip.py",
        "            total += solved[i]",
        "            total = solved[i]",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the last joint's angle not taken to (-π, π]",
        "solvers/tip.py",
        "        last = wrap_angle(angle - total)",
        "        last = angle - total",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the hand one bone length the first bone's",
        "solvers/angle.py",
        "    length = float(lengths[-1])",
        "    length = float(lengths[0])",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the last joint left below its limits' low end",
        "solvers/tip.py",
        "            last += np.ceil((low - last) / (2.0 * math.pi)) * (2.0 * math.pi)",
        "            last += 0.0",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the hand drawn along the wrist's heading, not the angle",
        "solvers/tip.py",
        "        heading = total + last",
        "        heading = total",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the joints up to the wrist shifted by one",
        "solvers/tip.py",
        "            row[n + i] = solved[first + i]",
        "            row[n + i] = solved[first + i - 1]",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's wrist solved straight, past its lock",
        "solvers/solver.py",
        "        self._angle_alone = self._wrist is not None and self._wrist._plain",
        "        self._angle_alone = self._wrist is not None",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the wrist's min_error not carried to the tip",
        "solvers/tip.py",
        "        for field in range(ERROR + 1, len(RESULT_FIELDS)):",
        "        for field in range(ERROR + 2, len(RESULT_FIELDS)):",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's start outside the last joint's limits let through",
        "solvers/steps.py",
        "        if init is not None and limits is not None and not low <= init[-1] <= limits",
        "        if False and limits is not None and not low <= init[-1] <= limits",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's wrist started from the wrong n - 1 joints",
        "solvers/steps.py",
        "wrist._loop_inputs(point, None if init is None else init[:-1])",
        "wrist._loop_inputs(point, None if init is None else init[1:])",
        ANGLE_TESTS,
    ),
    Mutant(
        "one target the kernel refused answered with the refused row, not refused",
        "result.py",
        "    if code < 0.0:",
        "    if False:",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's wrist loop aimed at the target, not the wrist",
        "solvers/tip.py",
        "    wrist_loop(data, options, wrists, starts,",
        "    wrist_loop(data, options, targets, starts,",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's limited wrist chain's reach searched at the target, not the wrist",
        "solvers/steps.py",
        "                wrist._search(wrists, found)",
        "                wrist._search(targets, found)",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target goes the batch's way, not its one kernel call",
        "solvers/solver.py",
        "        if self._angle_alone:\n            return self._angled_one(point, start)",
        "        if False:\n            return self._angled_one(point, start)",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's wrist on a limited chain not searched for its reach",
        "solvers/steps.py",
        "                found,\n                lengths,",
        "                wrist._empty[1],\n                lengths,",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: a closed form's one target takes a start pose it must refuse",
        "solvers/solver.py",
        "        if self._kernel < 0:  # the closed form takes no start pose\n"
        "            if init is not None:",
        "        if self._kernel < 0:  # the closed form takes no start pose\n"
        "            if False:",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: one target's wrist called straight past the lock on its joints",
        "solvers/solver.py",
        "        self._angle_alone = self._wrist is not None and self._wrist._plain",
        "        self._angle_alone = self._wrist is not None",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the wrist chain given the wrong bones' limits",
        "solvers/angle.py",
        "    limits = None if chain.limits is None else chain.limits[:-1]",
        "    limits = None if chain.limits is None else chain.limits[1:]",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: a last joint limited to less than a turn let through",
        "solvers/angle.py",
        "        if not high - low >= 2.0 * math.pi:",
        "        if not high - low >= 0.0:",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the start pose of the wrong n - 1 joints",
        "solvers/steps.py",
        "            init = init[..., :-1]",
        "            init = init[..., 1:]",
        ANGLE_TESTS,
    ),
    Mutant(
        "angle: the wrist's branch not the one asked for",
        "solvers/solver.py",
        "                    angle=None,\n",
        "                    angle=None,\n                    bend=None,\n",
        ANGLE_TESTS,
    ),
)


def run_mutant(mutant: Mutant, python: str) -> tuple[Mutant, bool, float, str]:
    """Apply ``mutant`` to a copy of src/, run its tests there; (mutant, killed, s, tail)."""
    with tempfile.TemporaryDirectory(prefix="ikchain-mutant-") as tmp:
        copy = Path(tmp) / "src"
        shutil.copytree(ROOT / "src", copy, ignore=shutil.ignore_patterns("__pycache__"))
        target = copy / "ikchain" / mutant.path
        text = target.read_text(encoding="utf-8")
        if mutant.old and text.count(mutant.old) != 1:
            raise SystemExit(
                f"mutant {mutant.name!r}: expected its code once in {mutant.path}, "
                f"found it {text.count(mutant.old)} times (the code moved: update the list)"
            )
        target.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
        env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(copy))
        if mutant.compiled:  # one kernel cache for all of them: the kernels are the same
            env.pop("NUMBA_DISABLE_JIT")
            env["NUMBA_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / "ikchain-mutants-numba")
        started = time.perf_counter()
        done = subprocess.run(
            [
                python,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                "-k",
                SKIP,
                *mutant.tests,
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
    tail = (done.stdout.strip().splitlines() or [""])[-1]
    # pytest's 5: no test ran (all deselected, or none found), which kills nothing
    return mutant, done.returncode not in (0, 5), seconds, tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/mutation.py", description=__doc__.split("\n")[0])
    parser.add_argument("-k", default="", help="only mutants whose name contains this")
    parser.add_argument("--budget", type=int, default=0, help="survivors allowed (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run side by side")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if args.k in m.name]
    # The tests must pass on the unmutated copy first, or every mutant would "die".
    for compiled in (False, True):
        tests = sorted({test for m in chosen if m.compiled == compiled for test in m.tests})
        if not tests:
            continue
        baseline = Mutant("no mutation (the baseline)", "kinematics.py", "", "", tuple(tests))
        _, failed, seconds, tail = run_mutant(baseline, sys.executable)
        if failed:
            print(f"the tests fail with no mutation ({tail}): fix them first", flush=True)
            return 2
        kind = "compiled" if compiled else "plain Python"
        print(
            f"baseline ({kind}): the tests pass unmutated in {seconds:.1f} s ({tail})", flush=True
        )
    print(
        f"{len(chosen)} mutants ({sum(m.compiled for m in chosen)} serving the page compiled, "
        f"the rest NUMBA_DISABLE_JIT=1), {args.jobs} at a time",
        flush=True,
    )
    survivors = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for mutant, killed, seconds, tail in pool.map(
            lambda m: run_mutant(m, sys.executable), chosen
        ):
            verdict = "killed  " if killed else "SURVIVED"
            print(f"  {verdict} {seconds:5.1f} s  {mutant.name}  ({tail})", flush=True)
            if not killed:
                survivors.append(mutant)
    score = 1 - len(survivors) / len(chosen) if chosen else 1.0
    print(f"{len(chosen) - len(survivors)}/{len(chosen)} killed ({100 * score:.0f} %)")
    return 0 if len(survivors) <= args.budget else 1


if __name__ == "__main__":
    raise SystemExit(main())
