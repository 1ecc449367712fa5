"""The layers of reference_server: no module imports one from a layer above its own, and no import cycles."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "reference_server"

# lowest first; a module may import from its own layer and the layers below (docs/architecture.md)
LAYERS: list[set[str]] = [
    {"reference_server", "reference_server.settings", "reference_server.spec_files", "reference_server.platform"},
    {"reference_server.model"},
    {"reference_server.a2a"},
    {"reference_server.codecs"},
    {"reference_server.agent", "reference_server.workspace"},
    {"reference_server.hosting"},
    {"reference_server.bindings"},
    {"reference_server.clientcheck"},
    {"reference_server.process"},
    {"reference_server.conformance"},
    {"reference_server.cli", "reference_server.admin", "reference_server.__main__", "reference_server.pytest_plugin"},
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every reference_server module the file imports, TYPE_CHECKING imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reference_server"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("reference_server"))
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()}


def layer_of(module: str) -> int:
    for rank, layer in enumerate(LAYERS):
        if module in layer or any(module.startswith(prefix + ".") for prefix in layer - {"reference_server"}):
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS (and to docs/architecture.md)")


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = [f"{module} -> {target}" for module, targets in graph().items() for target in targets
              if layer_of(target) > layer_of(module)]
    assert upward == []


def test_the_domain_reaches_the_outside_only_through_its_ports() -> None:
    """model/ and a2a/ import only each other and settings: never the agent, the workspace's
    files, the platform, the codecs or the bindings (a2a/ports.py says what they are handed)."""
    domain = {m: t for m, t in graph().items() if m.startswith(("reference_server.model", "reference_server.a2a"))}
    assert len(domain) > 5, "the model and a2a packages were not found"
    allowed = ("reference_server.model", "reference_server.a2a", "reference_server.settings")
    assert [f"{m} -> {t}" for m, targets in domain.items() for t in targets if not t.startswith(allowed)] == []


def test_the_platform_knows_nothing_of_a2a() -> None:
    platform = {m: t for m, t in graph().items() if m.startswith("reference_server.platform")}
    assert len(platform) > 5, "the platform package was not found"
    assert [f"{m} -> {t}" for m, targets in platform.items() for t in targets
            if not t.startswith(("reference_server.platform", "reference_server.settings"))] == []


def test_there_are_no_import_cycles() -> None:
    edges = graph()
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(edges[module]):
            if target in path:
                cycles.append([*path[path.index(target):], target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(module)

    done: set[str] = set()
    for module in sorted(edges):
        if module not in done:
            visit(module, [module])
    assert cycles == []


def test_the_checks_see_an_upward_import(tmp_path: Path) -> None:
    # the test above must be able to fail: an import written the wrong way round is found
    source = tmp_path / "upward.py"
    source.write_text("from reference_server.codecs import v1\nfrom reference_server.model.types import Task\n")
    assert imports_of(source) >= {"reference_server.codecs.v1", "reference_server.model.types"}
    assert layer_of("reference_server.codecs.v1") > layer_of("reference_server.model.types")
