# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_fetch_sherpa_model: download the standard English streaming zipformer (robots only).

Needs internet; prints progress; unpacks into ``--dest`` and prints the
directory to pass as the stt node's ``model`` parameter.
"""
import argparse
from pathlib import Path
import tarfile
import urllib.request

RELEASES = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/'
DEFAULT_MODEL = 'sherpa-onnx-streaming-zipformer-en-2023-06-26'


def main(argv: list[str] | None = None) -> None:
    """Download and unpack one sherpa-onnx release archive."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--model', default=DEFAULT_MODEL)
    parser.add_argument('--dest', type=Path, default=Path.home() / '.cache' / 'kame_ros')
    opts = parser.parse_args(argv)
    opts.dest.mkdir(parents=True, exist_ok=True)
    archive = opts.dest / f'{opts.model}.tar.bz2'

    def report(blocks: int, block_size: int, total: int) -> None:
        done = min(blocks * block_size, total)
        print(f'\r{archive.name}: {done / 1e6:.1f} / {total / 1e6:.1f} MB', end='', flush=True)
    urllib.request.urlretrieve(RELEASES + archive.name, archive, report)
    print('\nunpacking...')
    with tarfile.open(archive) as tar:
        tar.extractall(opts.dest, filter='data')
    archive.unlink()
    print(f'model: {opts.dest / opts.model}')


if __name__ == '__main__':
    main()
