"""
Convergence of each method near full stretch
============================================

As the target nears the chain's full reach ΣL, the chain nears a singular pose: every
joint's turn moves the tip almost along the same line, tangent to the reach circle,
and the tip Jacobian's condition number grows without bound. CCD, FABRIK and the
Jacobian transpose slow down by orders of magnitude; damped least squares barely
notices. :func:`ikchain.reach.sweeps_to_tolerance` is the computation behind the
lesson's table 2b and the bench's figure.
"""

import matplotlib.pyplot as plt
import numpy as np

import ikchain
from ikchain.reach import sweeps_to_tolerance

chain = ikchain.Chain([0.8, 0.6])
methods = ("ccd", "fabrik", "jt", "dls")
ratios = (0.75, 0.85, 0.93, 0.958, 0.975, 0.988, 0.995, 0.999)
rows = sweeps_to_tolerance(chain, ratios, methods, tolerance=1e-9, max_iterations=50_000)

print(f"{'d/ΣL':>6} " + " ".join(f"{m:>7}" for m in methods) + "   cond(J) at DLS's answer")
for row in rows:
    counts = " ".join(
        f"{'-' if row.iterations[m] is None else row.iterations[m]:>7}" for m in methods
    )
    print(f"{row.ratio:6.3f} {counts}   {row.condition['dls']:8.1f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
for method in methods:
    its = [np.nan if row.iterations[method] is None else row.iterations[method] for row in rows]
    left.loglog(1.0 - np.array(ratios), its, "o-", label=method)
left.invert_xaxis()  # toward full stretch, to the right
left.set_xlabel("1 - d/ΣL: how far short of full stretch")
left.set_ylabel("iterations to an end error of 1e-9 m")
left.set_title("iterations against reach")
left.legend()
right.loglog(1.0 - np.array(ratios), [row.condition["dls"] for row in rows], "o-", color="k")
right.invert_xaxis()
right.set_xlabel("1 - d/ΣL")
right.set_ylabel("condition number of the tip Jacobian")
right.set_title("why: the Jacobian nears singular")
fig.tight_layout()
plt.show()

# %%
# The error, iteration by iteration
# ---------------------------------
# At d/ΣL = 0.995 every method from the same bent start pose, with ``trace=True``.
# The first-order methods creep at a constant rate; DLS converges quadratically.
direction = np.radians(30.0)
target = 0.995 * chain.total_length * np.array([np.cos(direction), np.sin(direction)])
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for method in methods:
    result = ikchain.solve(chain, target, method=method, trace=True, max_iterations=1500)
    ax.semilogy(np.maximum(result.trace, 1e-17), label=f"{method} ({result.status})")
    print(f"{method:7} {result.status!s:15} {result.iterations:5d} iterations")
ax.axhline(1e-9, color="0.5", ls=":", label="tolerance")
ax.set_xscale("symlog", linthresh=10)
ax.set_xlabel("iteration")
ax.set_ylabel("end error (m)")
ax.set_title("d/ΣL = 0.995")
ax.legend()
plt.show()
