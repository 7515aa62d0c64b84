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
import urllib.error
import urllib.request

from kame_ros.storage import cache_root

RELEASES = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/'
PROG = 'kame_ros_fetch_sherpa_model'
DEFAULT_MODEL = 'sherpa-onnx-streaming-zipformer-en-2023-06-26'


def main(argv: list[str] | None = None) -> None:
    """Download and unpack one sherpa-onnx release archive."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.strip().split('\n')[0])
    parser.add_argument('--model', default=DEFAULT_MODEL)
    parser.add_argument('--dest', type=Path, default=None,
                        help='where to unpack (default: $KAME_ROS_CACHE or ~/.cache/kame_ros)')
    opts = parser.parse_args(argv)
    opts.dest = opts.dest or cache_root()
    archive = opts.dest / f'{opts.model}.tar.bz2'

    def report(blocks: int, block_size: int, total: int) -> None:
        done = min(blocks * block_size, total)
        print(f'\r{archive.name}: {done / 1e6:.1f} / {total / 1e6:.1f} MB', end='', flush=True)
    try:
        opts.dest.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SystemExit(f'{PROG}: cannot create {opts.dest}: {err.strerror}')
    try:
        urllib.request.urlretrieve(RELEASES + archive.name, archive, report)
        print('\nunpacking...')
        with tarfile.open(archive) as tar:
            tar.extractall(opts.dest, filter='data')
    except urllib.error.URLError as err:  # before OSError: it is one, with a reason
        raise SystemExit(f'{PROG}: cannot download {RELEASES + archive.name}: {err.reason}')
    except (OSError, tarfile.TarError) as err:
        raise SystemExit(f'{PROG}: {err}')
    finally:
        archive.unlink(missing_ok=True)
    print(f'model: {opts.dest / opts.model}')


if __name__ == '__main__':
    main()
