"""
The two elbow branches
======================

A two-bone chain reaches a target inside its annulus with two mirror poses, one on
each side of the line from the root to the target: ``bend=+1`` turns the second joint
counter-clockwise, ``bend=-1`` clockwise. The closed form gives both, and the law of
cosines checks the elbow angle independently.
"""

import math

import matplotlib.pyplot as plt
import numpy as np

import ikchain

chain = ikchain.Chain([0.8, 0.6])
L1, L2 = chain.lengths
targets = np.array([[1.0, 0.5], [-0.6, 0.9], [0.3, -0.7], [1.38, 0.1]])

fig, ax = plt.subplots(figsize=(6, 6))
inner, outer = chain.inner_radius, chain.outer_radius
for radius in (inner, outer):
    ax.add_patch(plt.Circle((0, 0), radius, fill=False, ls="--", color="0.6"))

for target in targets:
    for bend, colour in ((1, "tab:blue"), (-1, "tab:orange")):
        result = ikchain.solve(chain, target, method="analytic", bend=bend)
        joints = result.joints
        ax.plot(joints[:, 0], joints[:, 1], "o-", color=colour, lw=2, ms=4)
        # independent check: cos(dA) = (d² - L1² - L2²) / (2 L1 L2)
        d = math.hypot(*target)
        cosine = (d * d - L1 * L1 - L2 * L2) / (2 * L1 * L2)
        check = bend * math.acos(max(-1.0, min(1.0, cosine)))
        print(
            f"target {target}, bend {bend:+d}: dA = {math.degrees(result.angles[1]):8.3f}°, "
            f"law of cosines {math.degrees(check):8.3f}°, error {result.error:.1e} m"
        )
    ax.plot(*target, "x", color="k", ms=10, mew=2)

ax.plot([], [], "o-", color="tab:blue", label="bend = +1")
ax.plot([], [], "o-", color="tab:orange", label="bend = -1")
ax.set_aspect("equal")
ax.set_xlim(-1.5, 1.5)
ax.set_ylim(-1.5, 1.5)
ax.set_xlabel("x (m)")
ax.set_ylabel("y (m)")
ax.set_title("L = (0.8, 0.6): both branches for four targets")
ax.legend(loc="lower left")
plt.show()

# %%
# Near full stretch (the last target) the two branches nearly
# coincide: the elbow angle is small and both poses lie close to the straight line.
