# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
ONNX graphs on disk with their weights beside them: ``<graph>.onnx`` + ``<graph>.onnx.data``.

protobuf cannot serialize a message over 2 GB, and Moshi 7B's temporal
step alone holds ~7 B weights: a graph saved, checked or shape-inferred
as one message dies there (``EncodeError: Failed to serialize proto``).
So every graph, whatever its size, keeps its weights as external data,
and every step that edits one (the rewrite, fp16, int8) goes through
``edit``: the graph and its weights are set aside, the step reads them
by path, and the result is written back the same way. The tests' tiny
models take the road Moshi 7B takes, so the road is tested.
"""
from contextlib import contextmanager
from pathlib import Path
import shutil
from typing import Iterator

import onnx
from onnx.external_data_helper import _get_all_tensors, ExternalDataInfo, uses_external_data

DATA_SUFFIX = '.data'
# Tensors under this size (shapes, indices, scalars) stay inside the graph, where shape
# inference can read them without the data file.
INLINE_BYTES = 1024


def data_path(path: Path) -> Path:
    """Return where ``save`` puts the weights of the graph at ``path``."""
    return path.with_name(path.name + DATA_SUFFIX)


def data_files(path: Path) -> list[str]:
    """Return the external data files the graph at ``path`` reads (names relative to it)."""
    return sorted({ExternalDataInfo(t).location for t in _get_all_tensors(structure(path))
                   if uses_external_data(t)})


def structure(path: Path) -> onnx.ModelProto:
    """Load the graph alone (weights stay on disk): small enough for shape inference."""
    return onnx.load(str(path), load_external_data=False)


def load(path: Path) -> onnx.ModelProto:
    """Load the graph with its weights in memory."""
    return onnx.load(str(path), load_external_data=True)


def save(model: onnx.ModelProto, path: Path) -> None:
    """Write ``model`` to ``path``, its weights to ``data_path(path)`` (a new file each time)."""
    data_path(path).unlink(missing_ok=True)  # onnx appends to an existing data file
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_path(path).name, size_threshold=INLINE_BYTES)
    if data_path(path).exists():  # onnx creates it owner-only; readable as the graph is
        data_path(path).chmod(path.stat().st_mode & 0o777)


def check(path: Path) -> None:
    """Run onnx's checker by path (it reads external data itself; any size)."""
    onnx.checker.check_model(str(path))


@contextmanager
def edit(path: Path) -> Iterator[Path]:
    """
    Set the graph at ``path`` and its weights aside; yield where they are now.

    The caller writes the edited graph to ``path``; the old files are
    removed afterwards. Kept apart so a converter that appends to a data
    file of the same name, or reads while it writes, cannot mix the two.
    """
    aside = path.parent / f'.{path.name}.aside'
    shutil.rmtree(aside, ignore_errors=True)
    aside.mkdir()
    try:
        for name in [path.name, *data_files(path)]:
            (path.parent / name).rename(aside / name)
        yield aside / path.name
        check(path)
    finally:
        shutil.rmtree(aside, ignore_errors=True)
