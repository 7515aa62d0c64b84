# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
torch.compile's kernel cache, a folder per CPU kind: one CPU's kernels never run on another.

moshi compiles a few small functions (RMS norm, RoPE, the gating) with
torch.compile; on the CPU, inductor writes C++ kernels for the vector
instructions it picks (AVX-512, AVX2 or none, ``ATEN_CPU_CAPABILITY``)
into one cache folder, ``/tmp/torchinductor_<user>``, and reuses them on
the next run without asking which instructions they were built for. Run
once under another capability (or on a copied disk image) and the front-end
ran kernels of the other kind: logits up to 1e32, or a failed compile. The
folder is therefore keyed by torch's version, the capability in force and
the CPU's own feature flags; a folder the user chose
(``TORCHINDUCTOR_CACHE_DIR``) is left alone.
"""
import hashlib
import os
from pathlib import Path
import platform

from kame_ros.storage import cache_root

CACHE_VARIABLE = 'TORCHINDUCTOR_CACHE_DIR'


def cpu_key() -> str:
    """Name this CPU kind: torch version, ATen capability and a digest of the CPU's flags."""
    import torch
    flags = platform.machine()
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith(('flags', 'Features')):  # x86, then aarch64 (a Jetson)
                flags += ' ' + ' '.join(sorted(line.split(':', 1)[1].split()))
                break
    except OSError:
        flags += ' ' + platform.processor()
    digest = hashlib.sha256(flags.encode()).hexdigest()[:12]
    version = torch.__version__.replace('+', '_')
    return f'torch{version}-{torch.backends.cpu.get_cpu_capability().lower()}-{digest}'


def key_compile_cache() -> Path:
    """Point inductor's cache at this CPU kind's folder (unless set); return the folder in use."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen:
        return Path(chosen)
    folder = cache_root() / 'torchinductor' / cpu_key()
    os.environ[CACHE_VARIABLE] = str(folder)
    return folder
