"""
One target, a family of poses
=============================

Three bones have one more joint than the two equations of a planar target need, so a
reachable target has a one-parameter family of poses (self-motion: the joints move,
the tip stays). :func:`ikchain.family.angles_from_family` walks it in closed form; an
iterative solver lands on the member nearest its start, and DLS's rest pose picks the
member nearest a preferred pose.
"""

import matplotlib.pyplot as plt
import numpy as np

import ikchain

chain = ikchain.Chain([0.5, 0.4, 0.3])
target = np.array([0.9, 0.5])

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
positions = np.linspace(-1.0, 1.0, 21)
worst = 0.0
for s in positions:
    angles = ikchain.family.angles_from_family(chain, target, s)
    joints = ikchain.joints_from_angles(chain.lengths, angles)
    worst = max(worst, float(np.hypot(*(joints[-1] - target))))
    left.plot(joints[:, 0], joints[:, 1], "-", color=plt.cm.coolwarm((s + 1) / 2), lw=1.5)
left.plot(*target, "kx", ms=10, mew=2)
left.set_aspect("equal")
left.set_title("21 members of the family, s from -1 (blue) to +1 (red)")
left.set_xlabel("x (m)")
left.set_ylabel("y (m)")
print(f"largest tip distance from the target over the family: {worst:.1e} m")

# Where do the solvers land? Each from its own start pose, and DLS with rest poses.
starts = {"bent +": None, "bent -": -1}
for name, bend in starts.items():
    result = ikchain.solve(chain, target, bend=1 if bend is None else bend)
    s = ikchain.family.family_from_angles(chain, target, result.angles)
    right.plot(result.joints[:, 0], result.joints[:, 1], "o-", lw=2, label=f"DLS from {name}")
    print(f"DLS from the start pose {name}: family position {s:+.3f}")
for rest_deg in ([20.0, 0.0, 60.0], [80.0, -60.0, -20.0]):
    result = ikchain.solve(chain, target, rest=np.radians(rest_deg))
    s = ikchain.family.family_from_angles(chain, target, result.angles)
    right.plot(
        result.joints[:, 0], result.joints[:, 1], "s--", lw=1.5, label=f"DLS, rest {rest_deg}°"
    )
    print(f"DLS with rest pose {rest_deg}°: family position {s:+.3f}, {result.status}")
right.plot(*target, "kx", ms=10, mew=2)
right.set_aspect("equal")
right.legend(fontsize=8)
right.set_title("members the solver picks")
right.set_xlabel("x (m)")
fig.tight_layout()
plt.show()
