# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_export_frontend: export a Moshi/KAME checkpoint's per-frame graphs to ONNX.

    kame_ros_export_frontend --checkpoint kyutai/moshiko-pytorch-bf16 --out ~/kame_onnx
    kame_ros_export_frontend --checkpoint ./kame --out ./kame_onnx --tensorrt --fp16

Then run the front-end with ``runtime:=onnx onnx_dir:=<out>`` (or let the
node export on first use). ``--tensorrt`` also builds native TensorRT
engines (``<graph>.plan``) on this machine's GPU.
"""
import argparse
from pathlib import Path
import sys
import time

from kame_ros.frontend.checkpoint import CheckpointError, load_frontend_models
from kame_ros.frontend.export.exporter import export_frontend
from kame_ros.frontend.export.layout import ExportError, PRECISIONS


def main(argv: list[str] | None = None) -> None:
    """Load, export, optionally build TensorRT engines."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--checkpoint', required=True, help='local directory or HF repo')
    parser.add_argument('--out', type=Path, required=True)
    parser.add_argument('--precision', choices=PRECISIONS, default='fp32')
    parser.add_argument('--tensorrt', action='store_true', help='also build .plan engines')
    parser.add_argument('--fp16', action='store_true', help='TensorRT: fp16 engines')
    opts = parser.parse_args(argv)
    t0 = time.perf_counter()

    def progress(step: str) -> None:
        print(f'[export {time.perf_counter() - t0:5.1f} s] {step}', flush=True)
    try:
        models = load_frontend_models(opts.checkpoint, progress=progress)
        export_frontend(models, opts.out, opts.precision, progress)
        if opts.tensorrt:
            from kame_ros.frontend.export.tensorrt import build_engines
            build_engines(opts.out, opts.fp16, progress=progress)
    except (CheckpointError, ExportError, ValueError) as err:
        sys.exit(f'kame_ros_export_frontend: {err}')


if __name__ == '__main__':
    main()
