"""``homeworlds.event`` holds MQTT and the hub's logic only (docs/code-overview.md): it
imports nothing of the web display above it, and its SQL lives in the store's APIs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.shared import REPO

EVENT = REPO / "host" / "homeworlds" / "event"
MODULES = sorted(EVENT.glob("*.py"))


def _imports(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_an_event_module_imports_no_web_and_writes_no_sql(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    imports = _imports(tree)
    assert not [m for m in imports if m == "homeworlds.web" or m.startswith(
        ("homeworlds.web.", "starlette", "uvicorn", "homeworlds.feed"))], imports
    assert "sqlite3" not in imports
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
               and n.attr in ("_read", "_write", "_conn")]
    assert private == [], f"{path.name} reaches into the store: {private}"
    strings = [n.value for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in strings if s.lstrip().upper().startswith(
        ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "CREATE "))], path.name


def test_the_event_package_is_all_there():
    assert {p.name for p in MODULES} >= {"hub.py", "publisher.py", "rounds.py", "payloads.py"}
