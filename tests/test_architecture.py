"""The host's layers and public APIs (docs/code-overview.md), checked on the source.

Every import in ``host/homeworlds`` is read from the syntax tree — at module level, inside a
function or under ``TYPE_CHECKING`` alike, since each is a dependency — and held to four
rules:

* every module lies in a package (only the ``homeworlds`` entry points lie at the top), and
  every package has its place in ``LAYERS``;
* no import runs up a layer; imports within a layer are allowed, but neither the packages
  nor the modules import each other in a circle;
* no private name (``_name``) is imported from another module, nor a private module from
  outside its package;
* a package that declares a flat public API (``__all__`` in its ``__init__``) is imported
  from as a package by every caller outside it — host, tests and benchmarks — as
  ``homeworlds.rules`` always was (tests/rules/test_public_api.py).
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.shared import REPO

HOST = REPO / "host" / "homeworlds"

#: Lowest first. A package may import from its own layer and the layers below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("data", "rules", "tools", "identity"),
    ("notation", "clock"),
    ("replay", "table", "ai", "store", "pixels"),
    ("hints", "link", "sim", "feed", "bringup"),
    ("display",),
    ("session",),
    ("web", "event", "remote"),
    ("runtime",),
    ("commands",),
    ("cli", "__main__"),
)

#: The modules that may lie at the top of ``homeworlds``: the command's entry points.
ENTRY_POINTS = {"__init__", "cli", "__main__"}


@dataclass(frozen=True, slots=True)
class Import:
    source: Path  # the importing file
    line: int
    module: str  # the module imported from (absolute)
    names: tuple[str, ...]  # the names imported from it; () for ``import module``

    def where(self) -> str:
        return f"{self.source.relative_to(REPO)}:{self.line}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(HOST.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def host_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(HOST.rglob("*.py"))}


@functools.cache
def imports_of(path: Path, package: str) -> tuple[Import, ...]:
    """Every import of ``homeworlds`` in ``path``; ``package``: the package relative
    imports start from."""
    return tuple(_imports_of(path, package))


def _imports_of(path: Path, package: str) -> Iterator[Import]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "homeworlds" or module.startswith("homeworlds."):
                yield Import(path, node.lineno, module, tuple(a.name for a in node.names))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("homeworlds."):
                    yield Import(path, node.lineno, alias.name, ())


def host_imports() -> dict[str, list[Import]]:
    found = {}
    for name, path in host_modules().items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found[name] = list(imports_of(path, package))
    return found


def top(module: str) -> str:
    """The package (or entry-point module) right under ``homeworlds`` that holds ``module``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_of(package: str) -> int:
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise KeyError(package)


def imported_modules(imp: Import, modules: dict[str, Path]) -> set[str]:
    """The host modules an import loads: the module itself, or the submodules it names."""
    targets = {imp.module} if imp.module in modules else set()
    targets |= {f"{imp.module}.{name}" for name in imp.names
                if f"{imp.module}.{name}" in modules}
    return targets


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_module_lies_in_a_package_that_has_a_layer():
    loose = sorted(path.stem for path in HOST.glob("*.py") if path.stem not in ENTRY_POINTS)
    assert loose == [], f"modules loose at the top of homeworlds: {loose}"
    packages = sorted(path.parent.name for path in HOST.glob("*/__init__.py"))
    placed = {name for layer in LAYERS for name in layer}
    assert [p for p in packages if p not in placed] == [], "give each package its layer"
    assert sorted(placed - set(packages) - ENTRY_POINTS) == [], "LAYERS names a lost package"
    assert len(placed) == sum(len(layer) for layer in LAYERS), "a package in two layers"


def test_no_import_runs_up_a_layer():
    upward = []
    for name, found in host_imports().items():
        for imp in found:
            if top(imp.module) and layer_of(top(imp.module)) > layer_of(top(name)):
                upward.append(f"{imp.where()}: {top(name)} imports {imp.module}")
    assert upward == [], "imports up a layer:\n" + "\n".join(upward)


def test_packages_do_not_import_each_other_in_a_circle():
    edges: dict[str, set[str]] = defaultdict(set)
    for name, found in host_imports().items():
        for imp in found:
            if top(imp.module) and top(imp.module) != top(name):
                edges[top(name)].add(top(imp.module))
    assert cycles(edges) == []


def test_modules_do_not_import_each_other_in_a_circle():
    modules = host_modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, found in host_imports().items():
        for imp in found:
            edges[name] |= imported_modules(imp, modules) - {name}
    assert cycles(edges) == []


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_is_imported_from_another_module():
    modules = host_modules()
    offenders = []
    for top_dir in ("host", "benchmarks"):
        for path in sorted((REPO / top_dir).rglob("*.py")):
            name = module_name(path) if HOST in path.parents else ""
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            for imp in imports_of(path, package):
                offenders += [f"{imp.where()}: {n} from {imp.module}"
                              for n in imp.names if _is_private(n)]
                for target in imported_modules(imp, modules) | {imp.module}:
                    owner = target.rpartition(".")[0]
                    if (_is_private(target.rpartition(".")[2])
                            and not (package == owner or package.startswith(owner + "."))):
                        offenders.append(f"{imp.where()}: private module {target}")
    assert offenders == [], "private names used from outside:\n" + "\n".join(offenders)


def flat_packages() -> dict[str, set[str]]:
    """Each package that declares ``__all__``, with the names it exports."""
    flat = {}
    for init in sorted(HOST.glob("*/__init__.py")):
        package = module_name(init)
        exported = getattr(importlib.import_module(package), "__all__", None)
        if exported is not None:
            flat[package] = set(exported)
    return flat


def test_every_exported_name_is_there_once():
    for package, exported in flat_packages().items():
        module = importlib.import_module(package)
        assert len(module.__all__) == len(exported), f"{package}.__all__ repeats a name"
        assert sorted(n for n in exported if not hasattr(module, n)) == [], package


def test_callers_import_a_flat_package_from_the_package():
    flat = flat_packages()
    offenders = []
    for top_dir in ("host", "tests", "benchmarks"):
        for path in sorted((REPO / top_dir).rglob("*.py")):
            name = module_name(path) if HOST in path.parents else ""
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            for imp in imports_of(path, package):
                owner = ".".join(imp.module.split(".")[:2])
                if (owner not in flat or imp.module == owner
                        or name == owner or name.startswith(owner + ".")):
                    continue
                offenders += [f"{imp.where()}: {n} from {imp.module}"
                              for n in imp.names if n in flat[owner]]
    assert offenders == [], "import these from their package:\n" + "\n".join(offenders)


#: Packages held to "nothing outside a class touches its private names" (issue 26 moved
#: them off the private names of other objects; the others follow as they are reworked).
PRIVATE_ATTRIBUTES_CHECKED = ("session", "runtime", "feed")


def test_no_private_attribute_of_another_object_is_touched():
    offenders = []
    for package in PRIVATE_ATTRIBUTES_CHECKED:
        for path in sorted((HOST / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Attribute) and _is_private(node.attr)
                        and not (isinstance(node.value, ast.Name)
                                 and node.value.id in ("self", "cls"))):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: "
                                     f"{ast.unparse(node)}")
    assert offenders == [], "private names of other objects:\n" + "\n".join(offenders)
