"""A test whose tool (haproxy, redis-server, node) is missing: skipped here, failed in CI.

CI (``.ci/run``) installs the tools and sets ``RELPOS_REQUIRE_<TOOL>=1``; a missing tool then
fails the test instead of skipping it silently.
"""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

__all__ = ["node", "unavailable"]


def unavailable(reason: str, variable: str) -> NoReturn:
    """Skip with `reason`, or fail when the environment variable `variable` is ``1``."""
    if os.environ.get(variable) == "1":
        pytest.fail(f"{variable}=1 but {reason}")
    pytest.skip(reason)


def node() -> str:
    """The path of Node.js (Debian's ``nodejs``), for the tests of the browser's scripts."""
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        unavailable("node is not installed (apt-get install nodejs)", "RELPOS_REQUIRE_NODE")
    return found
