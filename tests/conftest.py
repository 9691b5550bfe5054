"""Hypothesis settings for this project's own tests: no deadline (CI machines are shared and
noisy; speed is measured by benchmarks/, never by timed tests), derandomized under CI so
a red build can be rerun as it was."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mcs-project-tests",
    deadline=None,
    derandomize=os.environ.get("CI") == "true",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("mcs-project-tests")
