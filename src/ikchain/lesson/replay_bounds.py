"""How large a replay may be: its iterations, its steps, and a bound of its reply.

Apart from :mod:`ikchain.lesson.replay` so that the page text (which cites these
numbers, :mod:`ikchain.lesson.words`) and the server's caps can read them without
the replay itself, which reads the page text for its chart's labels.
"""

from __future__ import annotations

#: Methods a replay can show (the closed form has no iterations to replay).
REPLAY_METHODS = ("ccd", "fabrik", "jt", "dls")
#: Methods whose replay can show a step after each joint's turn (CCD turns one joint
#: at a time; FABRIK, the Jacobian transpose and DLS move every joint at once).
JOINT_STEP_METHODS = ("ccd",)
#: Iterations one replay may ask for (each step is drawn; the page plays them all).
MAX_REPLAY_ITERATIONS = 200
#: Steps one replay may send back: each is solved, drawn and worded (about 0.1 ms a
#: step on one core), so that a replay at the caps stays within the 50 ms budget with
#: room to spare on a machine at load average 2 (``ikchain bench caps``); 4 bones ×
#: 64 iterations joint by joint (the figure's budget) still fit. With up to 4 bones
#: its reply stays under the server's reply cap (see :func:`reply_bytes_bound`). The
#: page asks for no more.
MAX_REPLAY_STEPS = 260


def steps_of(bones: int, iterations: int, method: str, joint_steps: bool) -> int:
    """How many steps a replay of at most ``iterations`` iterations can send back: the
    start pose, each iteration (a step a bone for CCD joint by joint), and one mirror
    step when the solve is held to a bend (:func:`ikchain.lesson.frames.keep_bend`)."""
    per_iteration = bones if (method in JOINT_STEP_METHODS and joint_steps) else 1
    return iterations * per_iteration + 2


def reply_bytes_bound(bones: int, steps: int, pictures: bool = True) -> int:
    """An upper bound of a replay reply's size (bytes), before any work: per step its
    joints (16 characters a coordinate), readings (at most 40 + 14 a joint angle), the
    cursor and the keys; with ``pictures`` (CCD joint by joint: as if every step were
    a joint's turn) the turn's picture, 69 characters of keys and punctuation, 9
    numbers (pivot, tip, the arc's end points and radius) of 16 characters, its
    direction (1), its angle's text (at most 10 bytes, "-179.99°") and the index of its
    ghost step, else ``"picture":null`` (15); the chart (about 20 characters a point,
    and 6 kB besides); the figure's frame of the same solve (6 kB); the target (45)."""
    per_step = 32 * (bones + 1) + 14 * bones + 360
    per_picture = 69 + 9 * 16 + 1 + 10 + len(str(steps)) if pictures else 15
    return 14_000 + 45 + steps * (per_step + per_picture + 20)


def most_iterations(bones: int, iterations: int, method: str, joint_steps: bool) -> int:
    """The most iterations, up to ``iterations`` and :data:`MAX_REPLAY_ITERATIONS`, whose
    replay fits in :data:`MAX_REPLAY_STEPS` steps (:func:`steps_of`): what the page asks
    for when the figure's own limit is larger."""
    fixed = steps_of(bones, 0, method, joint_steps)  # the start pose and the mirror step
    per_iteration = steps_of(bones, 1, method, joint_steps) - fixed
    fits = (MAX_REPLAY_STEPS - fixed) // per_iteration
    return max(0, min(iterations, MAX_REPLAY_ITERATIONS, fits))
