"""The rules engine's flat public API (issue 11): callers import from ``homeworlds.rules``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import homeworlds.rules as rules

REPO = Path(__file__).resolve().parents[2]
RULES_DIR = REPO / "host" / "homeworlds" / "rules"


def test_every_exported_name_is_importable_once():
    assert len(set(rules.__all__)) == len(rules.__all__)
    missing = [name for name in rules.__all__ if not hasattr(rules, name)]
    assert missing == []


def test_the_package_imports_nothing_outside_the_engine():
    # A fresh interpreter: the rules engine must load without the rest of the host.
    code = ("import sys, homeworlds.rules; print(sorted(m for m in sys.modules "
            "if m.startswith('homeworlds.') and not m.startswith('homeworlds.rules')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def _submodule_imports_of_public_names(path: Path) -> list[str]:
    public = set(rules.__all__)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and node.module.startswith("homeworlds.rules.")):
            found += [f"{path.relative_to(REPO)}:{node.lineno}: {alias.name} from {node.module}"
                      for alias in node.names if alias.name in public]
    return found


def test_callers_import_public_names_from_the_package():
    offenders = []
    for top in ("host", "tests", "benchmarks"):
        for path in sorted((REPO / top).rglob("*.py")):
            if RULES_DIR not in path.parents:
                offenders += _submodule_imports_of_public_names(path)
    assert offenders == [], "import these from homeworlds.rules:\n" + "\n".join(offenders)
