"""Shared fixtures and hypothesis settings."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import ikchain

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def lesson_chain() -> ikchain.Chain:
    """The lesson's default two-bone chain, L = (0.8, 0.6)."""
    return ikchain.Chain([0.8, 0.6])


def two_bone_end(l1: float, l2: float, a0: float, da: float) -> np.ndarray:
    """Closed-form tip of a two-bone chain, written out independently of the package."""
    return np.array(
        [l1 * np.cos(a0) + l2 * np.cos(a0 + da), l1 * np.sin(a0) + l2 * np.sin(a0 + da)]
    )
