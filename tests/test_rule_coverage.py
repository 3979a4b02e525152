"""Every rule of every spec in ``seeds/`` is named by at least one test.

A rule is defined in a spec as a bold ID at the start of a list item (``- **G-R19** ...``); a
test names it in its name (``test_g_r19_...``) or its docstring or body (``G-R19``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "seeds").glob("*.md"))
DEFINED = re.compile(r"^\s*- \*\*([A-Z]-R\d+[a-z]?)\*\*", re.MULTILINE)


def test_every_spec_defines_rules() -> None:
    """The specs are found and each defines rules (so the check below cannot pass vacuously)."""
    assert {spec.stem for spec in SPECS} >= {"hearts", "guandan", "klaberjass"}
    assert all(DEFINED.search(spec.read_text()) for spec in SPECS)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.stem)
def test_every_rule_is_named_by_a_test(spec: Path) -> None:
    """Each rule ID defined in the spec appears in a test module (as ``X-R1`` or ``x_r1_``)."""
    here = Path(__file__).resolve()
    tests = "\n".join(
        path.read_text() for path in (ROOT / "tests").rglob("test_*.py") if path != here
    )
    missing = [
        rule
        for rule in sorted(set(DEFINED.findall(spec.read_text())))
        if not re.search(rf"{re.escape(rule)}(?![0-9a-z])", tests)
        and not re.search(rf"{rule.lower().replace('-', '_')}(?![0-9a-z])", tests)
    ]
    assert not missing, f"rules of {spec.name} no test names: {missing}"
