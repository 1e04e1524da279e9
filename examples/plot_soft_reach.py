"""
Soft reach eases the knee
=========================

A two-bone leg whose target slides out past its reach straightens with a jolt: near
full stretch the knee angle's rate grows without bound. With ``soft=s`` the solver aims
at targets beyond ΣL − s from an eased distance that approaches ΣL without reaching
it, so the knee eases into full stretch. The status says ``softened`` wherever the tip
stops short by design.
"""

import matplotlib.pyplot as plt
import numpy as np

import ikchain
from ikchain.solvers.soft import eased_from_distance

chain = ikchain.Chain([0.8, 0.6])
distances = np.linspace(1.0, 1.8, 401)
targets = np.stack((distances, np.zeros_like(distances)), axis=-1)

fig, (left, middle, right) = plt.subplots(1, 3, figsize=(14, 4.2))
for soft in (0.0, 0.1, 0.2, 0.3):
    result = ikchain.solve(chain, targets, method="analytic", soft=soft)
    knee = np.degrees(result.angles[:, 1])
    label = "hard clamp (soft = 0)" if soft == 0 else f"soft = {soft} m"
    left.plot(distances, knee, label=label)
    rate = np.abs(np.gradient(knee, distances))
    middle.semilogy(distances, rate, label=label)
    aimed = (
        np.minimum(distances, chain.total_length)  # the hard clamp: straight at ΣL
        if soft == 0
        else eased_from_distance(distances, chain.total_length, soft)
    )
    right.plot(distances, aimed, label=label)
    softened = int(np.sum(result.status == ikchain.Status.SOFTENED))
    print(f"{label:22} largest knee rate {rate.max():9.1f} °/m, softened targets {softened}")
left.set_xlabel("target distance (m)")
left.set_ylabel("knee angle (°)")
left.set_title("the knee as the target slides out")
middle.set_xlabel("target distance (m)")
middle.set_ylabel("|d knee / d distance| (°/m)")
middle.set_title("its rate: the pop, and the easing")
middle.set_ylim(10.0, None)  # beyond reach the hard knee stays at 0: no rate to draw
right.set_xlabel("target distance d (m)")
right.set_ylabel("distance aimed at (m)")
right.set_title("the eased distance")
for ax in (left, middle, right):
    ax.axvline(chain.total_length, color="0.6", ls="--", lw=1)
left.legend()
fig.tight_layout()
plt.show()

# %%
# The result stays honest about the true target: its error is measured from it.
result = ikchain.solve(chain, [1.35, 0.0], method="analytic", soft=0.2)
print(f"{result.status}: {result.error:.4f} m from the true target; reachable {result.reachable}")
