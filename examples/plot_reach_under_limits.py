"""
What the joint limits let a chain reach
=======================================

A free two-bone chain reaches an annulus. Joint limits cut it down to a smaller set
W, and the solver's ``min_error`` is the exact distance from a target to W (where
``certified``). Here a grid of targets is solved in one batch for three sets of
limits, and each target is coloured by that distance: zero inside W.
"""

import matplotlib.pyplot as plt
import numpy as np

import ikchain

lengths = [0.8, 0.6]
limit_sets = {
    "free": None,
    "elbow bends one way: [0°, 150°]": [[-np.pi, np.pi], [0.0, np.radians(150)]],
    "shoulder ±45°, elbow [0°, 120°]": [
        [np.radians(-45), np.radians(45)],
        [0.0, np.radians(120)],
    ],
}

side = np.linspace(-1.6, 1.6, 161)
xs, ys = np.meshgrid(side, side)
grid = np.stack((xs, ys), axis=-1)

fig, axes = plt.subplots(1, 3, figsize=(13, 4.6), sharey=True)
for ax, (name, limits) in zip(axes, limit_sets.items(), strict=True):
    chain = ikchain.Chain(lengths, limits=limits)
    result = ikchain.solve(chain, grid, method="analytic")
    shown = ax.pcolormesh(xs, ys, result.min_error, cmap="viridis", vmax=1.0, shading="auto")
    ax.contour(xs, ys, result.reachable.astype(float), levels=[0.5], colors="w")
    for radius in (chain.inner_radius, chain.outer_radius):
        ax.add_patch(plt.Circle((0, 0), radius, fill=False, ls="--", color="0.8"))
    ax.set_title(name)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    share = result.reachable.mean()
    print(
        f"{name}: {100 * share:.1f} % of the grid reachable, all certified: "
        f"{bool(np.all(result.certified))}"
    )
axes[0].set_ylabel("y (m)")
fig.colorbar(shown, ax=axes, label="min_error: distance to what the chain reaches (m)")
plt.show()

# %%
# Three bones: the same picture needs the reach search (branch and bound over the
# joints but the last two). ``dls`` (the default) ends at the nearest pose it found.
chain = ikchain.Chain(
    [0.5, 0.4, 0.3],
    limits=[[np.radians(-30), np.radians(120)], [0.0, np.radians(90)], [0.0, np.radians(90)]],
)
side = np.linspace(-1.3, 1.3, 71)
xs, ys = np.meshgrid(side, side)
result = ikchain.solve(chain, np.stack((xs, ys), axis=-1))
fig, ax = plt.subplots(figsize=(5.5, 4.8))
shown = ax.pcolormesh(xs, ys, result.min_error, cmap="viridis", shading="auto")
ax.contour(xs, ys, result.reachable.astype(float), levels=[0.5], colors="w")
fig.colorbar(shown, ax=ax, label="min_error (m)")
ax.set_aspect("equal")
ax.set_title("three bones, every joint limited")
ax.set_xlabel("x (m)")
ax.set_ylabel("y (m)")
names, counts = np.unique(result.status.astype(str), return_counts=True)
print(f"certified: {100 * result.certified.mean():.1f} %; statuses:")
for name, count in zip(names.tolist(), counts.tolist(), strict=True):
    print(f"  {name:15} {count:5d}")
plt.show()
