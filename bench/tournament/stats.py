"""Means with 95% confidence intervals, and percentiles of decision times.

Duplicate results are compared per block (one deal with all its rotations), never per hand:
the hands of one block share their cards, so treating them as independent would make the
interval too narrow.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.96


@dataclass(frozen=True)
class Estimate:
    """A sample mean with the half-width of its normal 95% confidence interval."""

    mean: float
    half_width: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def text(self, digits: int = 2, percent: bool = False) -> str:
        """``mean ± half``; a signed number, or a percentage when ``percent``."""
        if percent:
            return f"{self.mean * 100:.1f}% ± {self.half_width * 100:.1f}%"
        return f"{self.mean:+.{digits}f} ± {self.half_width:.{digits}f}"


def estimate(values: Sequence[float]) -> Estimate:
    """The mean of ``values`` and its 95% interval (infinite with fewer than two values)."""
    if not values:
        return Estimate(math.nan, math.inf, 0)
    if len(values) < 2:
        return Estimate(values[0], math.inf, 1)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return Estimate(statistics.fmean(values), half, len(values))


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0..1); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(0, math.ceil(share * len(ordered)) - 1)
    return ordered[rank]


def timing_text(milliseconds: Sequence[float]) -> str:
    """``p50 / p99`` CPU milliseconds per decision, with the number of decisions."""
    if not milliseconds:
        return "no decisions"
    p50, p99 = percentile(milliseconds, 0.5), percentile(milliseconds, 0.99)
    return f"p50 {p50:.1f} ms, p99 {p99:.1f} ms ({len(milliseconds)} decisions)"
