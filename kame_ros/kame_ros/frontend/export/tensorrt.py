# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Native TensorRT engines from the exported graphs, for robots that run TensorRT without onnxruntime.

onnxruntime's TensorRT provider already builds and caches engines on first
use (runtime.py); this builds the same graphs ahead of time with the
``tensorrt`` Python API into ``<graph>.plan`` files, so a Jetson image can
ship them and measure them with ``trtexec --loadEngine``. Engines are
specific to the GPU and TensorRT version they were built with.
"""
import json
from pathlib import Path
from typing import Callable

from kame_ros.frontend.export.layout import ExportError, MANIFEST


def build_engines(directory: Path, fp16: bool = False, workspace_gib: float = 2.0,
                  progress: Callable[[str], None] = print) -> list[Path]:
    """Build one serialized engine per exported graph; return their paths."""
    try:
        import tensorrt as trt
    except ImportError as err:
        raise ExportError('TensorRT is not installed (JetPack ships it; on x86: '
                          'pip install tensorrt)') from err
    manifest = json.loads((Path(directory) / MANIFEST).read_text())
    logger = trt.Logger(trt.Logger.WARNING)
    plans = []
    for name, entry in manifest['graphs'].items():
        progress(f'building TensorRT engine for {name}{" (fp16)" if fp16 else ""}')
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        parser = trt.OnnxParser(network, logger)
        if not parser.parse_from_file(str(Path(directory) / entry['file'])):
            errors = '; '.join(str(parser.get_error(i)) for i in range(parser.num_errors))
            raise ExportError(f'TensorRT cannot parse {entry["file"]}: {errors}')
        config = builder.create_builder_config()
        config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, int(workspace_gib * 2**30))
        if fp16:
            config.set_flag(trt.BuilderFlag.FP16)
        engine = builder.build_serialized_network(network, config)
        if engine is None:
            raise ExportError(f'TensorRT could not build {name}')
        plan = Path(directory) / f'{name}.plan'
        plan.write_bytes(bytes(engine))
        plans.append(plan)
    return plans
