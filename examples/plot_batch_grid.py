"""
A batch over a grid of targets
==============================

Targets of shape ``(..., 2)`` solve in one call, spread over the cores; every field of
the result gains the grid's shape. Here 40,000 targets on a 200 × 200 grid around a
three-bone chain, solved by DLS from the same start pose: the end error, the
iterations used and the status of each.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import ikchain

chain = ikchain.Chain([0.7, 0.5, 0.3])
side = np.linspace(-1.8, 1.8, 200)
xs, ys = np.meshgrid(side, side)
grid = np.stack((xs, ys), axis=-1)
ikchain.solve(chain, grid[:2, :2])  # the first solve loads (or compiles) the kernel

started = time.perf_counter()
result = ikchain.solve(chain, grid, method="dls")
seconds = time.perf_counter() - started
print(f"{grid.shape[0] * grid.shape[1]} targets, result fields shaped {result.error.shape}")
names, counts = np.unique(result.status.astype(str), return_counts=True)
for name, count in zip(names.tolist(), counts.tolist(), strict=True):
    print(f"  {name:15} {count:6d}")
print(
    f"most iterations: {result.iterations.max()}, "
    f"median among the converged: {np.median(result.iterations[result.converged]):.0f}"
)

fig, axes = plt.subplots(1, 3, figsize=(14, 4.4))
shown = axes[0].pcolormesh(xs, ys, result.error, shading="auto", cmap="magma")
fig.colorbar(shown, ax=axes[0], label="end error (m)")
axes[0].set_title("end error")
shown = axes[1].pcolormesh(xs, ys, result.iterations, shading="auto", cmap="cividis")
fig.colorbar(shown, ax=axes[1], label="iterations")
axes[1].set_title("iterations used")
statuses = list(ikchain.Status)
status_codes = np.vectorize(statuses.index)(result.status)
colours = plt.cm.tab10(np.arange(len(statuses)))
axes[2].pcolormesh(xs, ys, colours[status_codes], shading="auto")
for status, colour in zip(statuses, colours, strict=True):
    axes[2].plot([], [], "s", color=colour, label=str(status))
axes[2].legend(loc="upper right", fontsize=7)
axes[2].set_title("status of each target")
for ax in axes:
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
axes[0].set_ylabel("y (m)")
fig.tight_layout()
plt.show()

# %%
# The batch and a loop of single solves give the same numbers, to the bit; the batch
# is much faster (the time depends on the machine building these pages).
rows = grid[100, ::20]
singles = np.array([ikchain.solve(chain, target).angles for target in rows])
print("same as single solves:", bool(np.array_equal(singles, result.angles[100, ::20])))
print(f"the whole batch took {seconds * 1e3:.0f} ms")
