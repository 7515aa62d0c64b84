# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Every Python source carries the copyright and SPDX licence header.

ament_copyright is not published as a wheel; this is the same check for the
one licence this package uses.
"""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADER = ('# Copyright 2026 kame_ros developers\n'
          '# SPDX-License-Identifier: Apache-2.0\n')


@pytest.mark.linter
def test_copyright_headers():
    sources = [p for d in ('kame_ros', 'test') for p in (ROOT / d).rglob('*.py')]
    assert len(sources) > 10
    missing = [str(p.relative_to(ROOT)) for p in sources
               if not p.read_text().startswith(HEADER)]
    assert not missing, f'files without the licence header: {missing}'
