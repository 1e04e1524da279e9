"""
Following a moving target
=========================

:func:`ikchain.follow` solves a path of targets in order, each from the answer for the
one before it (a warm start, as an animation does), in one call. The path here is a
figure-of-eight that leaves the reachable annulus and comes back: outside it the
chain lies straight toward the target and says how far it falls short.
"""

import matplotlib.pyplot as plt
import numpy as np

import ikchain

chain = ikchain.Chain([0.6, 0.5, 0.4])
t = np.linspace(0.0, 2.0 * np.pi, 241)
path = np.stack((0.9 + 0.75 * np.sin(t), 0.55 * np.sin(2.0 * t)), axis=-1)

followed = ikchain.follow(chain, path, method="dls")
cold = ikchain.solve(chain, path, method="dls")  # every frame from the bent start pose
print(
    f"iterations, warm path: {followed.iterations.sum()}, "
    f"each frame from the start pose: {cold.iterations.sum()}"
)
print("frames out of reach:", int(np.sum(~followed.reachable)))

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6))
left.plot(path[:, 0], path[:, 1], color="0.7", lw=1)
left.add_patch(plt.Circle((0, 0), chain.outer_radius, fill=False, ls="--", color="0.6"))
for k in range(0, len(path), 20):
    joints = followed.joints[k]
    left.plot(joints[:, 0], joints[:, 1], "o-", ms=3, color=plt.cm.viridis(k / len(path)))
left.set_aspect("equal")
left.set_xlabel("x (m)")
left.set_ylabel("y (m)")
left.set_title("every 20th frame of the path")

right.plot(followed.iterations, label="iterations, warm (follow)")
right.plot(cold.iterations, label="iterations, cold", alpha=0.6)
right.set_xlabel("frame")
right.set_ylabel("iterations")
twin = right.twinx()
twin.plot(followed.error, color="k", lw=1, label="end error (m)")
twin.set_ylabel("end error (m)")
right.legend(loc="upper left")
twin.legend(loc="upper right")
right.set_title("per frame")
fig.tight_layout()
plt.show()

# %%
# The same answers as the loop of solves, each started from the last answer:
pose = None
for target in path[:30]:
    pose = ikchain.solve(chain, target, method="dls", init=pose).angles
print("same as the loop:", bool(np.array_equal(pose, followed.angles[29])))
