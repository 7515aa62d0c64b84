# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The package's layers: an import never reaches up a layer, and there is no import cycle.

    audio, wire, words, storage, models, settings, worker_thread
    ->  stt, oracle, frontend, records
    ->  ros
    ->  nodes, behaviours
    ->  tools, bench
    (run.py sits with the tools: it starts nodes)

Imports inside functions count too: a lazy import up a layer is still a dependency.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / 'kame_ros' / 'kame_ros'
LAYERS = {'audio': 0, 'wire': 0, 'stt': 1, 'oracle': 1, 'frontend': 1, 'records': 1,
          'ros': 2, 'nodes': 3, 'tools': 4, 'bench': 4, 'run': 4, 'words': 0,
          'storage': 0, 'models': 0, 'worker_thread': 0, 'settings': 0,
          'behaviours': 3}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def imports(path: Path) -> set[str]:
    """Return the kame_ros modules a file imports, at the top or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == 'kame_ros' or m.startswith('kame_ros.')}


def layer(module: str) -> int | None:
    parts = module.split('.')
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != '__pycache__'}
    modules = {p.stem for p in PACKAGE.glob('*.py') if p.stem != '__init__'}
    assert packages | modules <= set(LAYERS), 'a new package needs its place in LAYERS'


def test_no_import_reaches_up_a_layer():
    violations = []
    for path in PACKAGE.rglob('*.py'):
        here = layer(module_name(path))
        for target in imports(path):
            there = layer(target)
            if here is not None and there is not None and there > here:
                violations.append(f'{module_name(path)} -> {target}')
    assert not violations, violations


def test_no_import_cycles():
    modules = {module_name(p): p for p in PACKAGE.rglob('*.py')}
    graph = {m: {t for t in imports(p) if t in modules and t != m} for m, p in modules.items()}
    done, stack = set(), []

    def visit(m: str) -> None:
        if m in stack:
            raise AssertionError('import cycle: ' + ' -> '.join(stack[stack.index(m):] + [m]))
        if m in done:
            return
        stack.append(m)
        for t in sorted(graph[m]):
            visit(t)
        stack.pop()
        done.add(m)
    for m in sorted(graph):
        visit(m)
