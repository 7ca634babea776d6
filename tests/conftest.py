"""Shared test settings: hypothesis profiles (CI runs more examples, never time-limited).

`dev` (100 examples) by default, `ci` (300) when CI is set; `TOOLFX_HYPOTHESIS_PROFILE` names
one explicitly, e.g. `properties` (10,000 examples), which `make properties` uses.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "properties",
    max_examples=10_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(
    os.environ.get("TOOLFX_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)
