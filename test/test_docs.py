# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The README is the front door: short, and every link in it and in docs/ leads somewhere."""
from pathlib import Path
import re

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]
LINK = re.compile(r'\]\(([^)\s]+)\)')


def anchors(page: Path) -> set[str]:
    """Return GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r'(?m)^#+ (.+)$', page.read_text())
    return {re.sub(r'[^\w\- ]', '', h.strip().lower()).replace(' ', '-') for h in headings}


def test_readme_is_short():
    assert (ROOT / 'README.md').stat().st_size <= 15_000


def test_every_relative_link_resolves():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r'^[a-z]+://', target):
                continue
            path, _, anchor = target.partition('#')
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                broken.append(f'{page.name}: {target}')
            elif anchor and resolved.suffix == '.md' and anchor not in anchors(resolved):
                broken.append(f'{page.name}: {target} (no such heading)')
    assert not broken, broken


def test_every_doc_page_is_reachable_from_the_readme():
    readme = (ROOT / 'README.md').read_text()
    linked = {Path(t.partition('#')[0]).name for t in LINK.findall(readme)}
    orphans = [p.name for p in PAGES[1:] if p.name not in linked]
    assert not orphans, f'docs pages not linked from the README: {orphans}'


def test_no_registry_host_is_named_anywhere():
    """Packages are found in the environment's package lists, never by naming a registry."""
    import subprocess
    # Spelled in pieces, so that this file does not name them either.
    hosts = ['pypi' + '.org', 'pythonhosted' + '.org', 'pypi.python' + '.org',
             'npmjs' + '.org', 'npmjs' + '.com', 'debian' + '.org', 'download.pytorch' + '.org']
    tracked = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    named = [f'{name}: {host}' for name in tracked if (ROOT / name).is_file()
             for host in hosts if host in (ROOT / name).read_text(errors='ignore').lower()]
    assert not named, named
