"""Fixtures of the package's unit tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def torch_module(request: pytest.FixtureRequest) -> None:
    """Import torch for a module that cross-checks against it, and give the
    module its ``torch`` and ``F`` (``torch.nn.functional``): when one of its
    tests runs, not when the run collects it (importing torch takes each
    process seconds). Without torch, the module's tests are skipped."""
    torch = pytest.importorskip("torch")
    request.module.torch = torch
    request.module.F = torch.nn.functional
