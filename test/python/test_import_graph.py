"""The modules of python/tinyml import one another without a cycle: each
module's dependencies sit below it, so a module can be read, tested and
moved knowing only those, and no import hides in a function body to dodge a
cycle.

The graph is read from the source with `ast`, not by importing it. Its
nodes are the modules of the package (a package is its `__init__.py`), and
a module depends on another when any of its `import` or `from ... import`
statements names it, at the top of the module or inside a function, a class
or an `if` (`TYPE_CHECKING` too: a type is a dependency). Relative imports
are resolved against the importing module's package. `from pkg import name`
depends on the module `pkg.name` when there is one, else on `pkg`; a name
that `pkg/__init__.py` does not bind is a module without Python source here
(the compiled `_tinyml`), outside the graph. `import a.b.c` depends on
`a.b.c` only, not on the packages `a` and `a.b` that Python runs first.

Package faces: a package's `__init__.py` is the door to its modules, not a
module they build on. So a name taken from a face that re-exports it
(`from .groups import top_level_ops`) is a dependency on the module defining
it, followed through re-exports of re-exports, and the face's own imports
of its package's modules are re-exports, not dependencies: the
registrations (`from . import lower_to_linalg`) and the lazy forwarders of
`tinyml.frontend` (`import_onnx`, which loads `onnx` only when called).
Otherwise a module taking `top_level_ops` from `tinyml.transforms.fusion`
would depend on every module that face gathers, and cycles would be drawn
between modules that never use each other. A face's imports from outside
its package stay dependencies.
"""
from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "python" / "tinyml"


def module_files(root: Path, package: str) -> dict[str, Path]:
    """The module name of every Python file under `root`, the folder of
    `package`."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imports_of(module: str, is_package: bool, tree: ast.Module) -> list[tuple[str, list[str]]]:
    """Every import statement of a module as (absolute module, names
    imported from it); `import a.b` gives ("a.b", [])."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            if node.level == 0:
                source = node.module
            else:
                source = f"{base}.{node.module}" if node.module else base
            found.append((source, [alias.name for alias in node.names]))
    return found


def bound_names(tree: ast.Module) -> set[str]:
    """The names a module binds: defines, assigns or imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).partition(".")[0] for alias in node.names}
    return names


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of `package` -> the modules of `package` it depends on."""
    modules = module_files(root, package)
    trees = {module: ast.parse(path.read_text(), str(path)) for module, path in modules.items()}
    packages = {module for module, path in modules.items() if path.name == "__init__.py"}
    imports = {module: imports_of(module, module in packages, tree)
               for module, tree in trees.items()}

    def defining_module(source: str, name: str) -> str | None:
        """The module `from source import name` depends on."""
        if f"{source}.{name}" in modules:
            return f"{source}.{name}"
        if source not in packages:
            return source
        for origin, names in imports[source]:
            if name in names and origin in modules:
                return defining_module(origin, name)
        return source if name in bound_names(trees[source]) else None

    def inside(module: str, face: str) -> bool:
        return module.startswith(face + ".")

    graph = {}
    for module in modules:
        targets = set()
        for source, names in imports[module]:
            targets |= {defining_module(source, name) for name in names} if names else {source}
        graph[module] = {target for target in targets
                         if target in modules and target != module
                         and not (module in packages and inside(target, module))}
    return graph


def cycle_of(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return None


def test_tinyml_has_no_import_cycle():
    graph = import_graph(PACKAGE_ROOT, "tinyml")
    assert len(graph) > 50 and sum(map(len, graph.values())) > 100, "the graph was not read"
    cycle = cycle_of(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


#: The base layer: the IR helpers and the dialect's classes, which every
#: phase builds on and which build on no phase.
BASE_LAYER = ("tinyml.ir", "tinyml.dialects")


def test_the_base_layer_imports_no_phase():
    graph = import_graph(PACKAGE_ROOT, "tinyml")
    base = [module for module in graph if module.startswith(BASE_LAYER)]
    assert "tinyml.ir.analysis" in base
    outside = {f"{module} -> {target}" for module in base for target in graph[module]
               if not target.startswith(BASE_LAYER)}
    assert not outside, f"the base layer imports a phase: {sorted(outside)}"


@pytest.fixture
def package(tmp_path: Path):
    """A package `pkg` from {relative path: source}."""
    def make(files: dict[str, str]) -> Path:
        for name, source in files.items():
            path = tmp_path / "pkg" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
        return tmp_path / "pkg"
    return make


def test_an_import_inside_a_function_closes_a_cycle(package):
    root = package({"__init__.py": "", "a.py": "from .b import f\n",
                    "b.py": "def f():\n    from . import a\n"})
    assert set(cycle_of(import_graph(root, "pkg"))) == {"pkg.a", "pkg.b"}


def test_a_name_from_a_package_face_is_a_dependency_on_its_module(package):
    # `lower` takes `root` through the face of `fusion`, which also gathers
    # `patterns`, a user of `lower`: no cycle, `lower` never runs `patterns`.
    root = package({"__init__.py": "",
                    "fusion/__init__.py": "from .groups import root\nfrom . import patterns\n",
                    "fusion/groups.py": "def root(): ...\n",
                    "fusion/patterns.py": "from ..lower import lower\n",
                    "lower.py": "from .fusion import root\n"})
    graph = import_graph(root, "pkg")
    assert graph["pkg.lower"] == {"pkg.fusion.groups"}
    assert graph["pkg.fusion"] == set()
    assert cycle_of(graph) is None


def test_a_face_importing_from_outside_its_package_can_close_a_cycle(package):
    root = package({"__init__.py": "",
                    "fusion/__init__.py": "from ..lower import lower\nERROR = 1\n",
                    "lower.py": "from .fusion import ERROR\n"})
    assert set(cycle_of(import_graph(root, "pkg"))) == {"pkg.fusion", "pkg.lower"}
