# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The front-end exported to ONNX computes what torch computes, step by step, and keeps its weights.

The check is teacher-forced (kame_ros/frontend/export/parity.py): two
free-running streams part for good at the first near-tie that torch and
onnxruntime break differently, which says nothing about either.
"""
import json
import shutil
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from kame_ros.frontend.checkpoint import load_frontend_models
from kame_ros.frontend.export import onnx_files
from kame_ros.frontend.export.exporter import export_frontend
from kame_ros.frontend.export.layout import ExportError, package_versions
from kame_ros.frontend.export.parity import compare, record_torch, speech_like
from kame_ros.frontend.export.rewrite import rewrite_for_onnxruntime
from kame_ros.frontend.export.runtime import ExportedFrontEnd, load_or_export, StatefulGraph
from kame_ros.frontend.moshi_engine import MoshiFrontEnd
from kame_ros.frontend.tiny import save_checkpoint
from kame_ros.oracle.events import OracleEvent

FRAMES = 120


@pytest.fixture(scope='module')
def exported(tmp_path_factory):
    directory = tmp_path_factory.mktemp('export')
    checkpoint = save_checkpoint(directory / 'kame', kame=True)
    models = load_frontend_models(str(checkpoint), progress=lambda s: None)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter('always')
        export_frontend(models, directory / 'onnx', progress=lambda s: None)
    assert not [w for w in said if 'training mode' in str(w.message)], 'exported in eval mode'
    return models, directory / 'onnx'


ORACLE_SCRIPT = {10: [OracleEvent('oracle.reset', 1, 1, 0)],
                 11: [OracleEvent('oracle.append', 1, 1, 0, 'the robot is ')],
                 40: [OracleEvent('oracle.reset', 2, 1, 1)],
                 42: [OracleEvent('oracle.append', 2, 1, 1, 'paris is the capital of france ')],
                 70: [OracleEvent('oracle.done', 2, 1, 1)]}


def run(models, exported, script, mode):
    fe = MoshiFrontEnd(models, mode=mode, seed=7, exported=exported)
    fe.start()
    outputs = []
    for i, pcm in enumerate(speech_like(FRAMES)):
        for event in script.get(i, []):
            fe.on_oracle(event)
        outputs.append(fe.step(pcm))
    fe.stop()
    return outputs


@pytest.fixture(scope='module')
def torch_runs(exported):
    """Record torch's conversation, every step: without oracle (plain), and KAME's."""
    models, _ = exported
    return {mode: record_torch(MoshiFrontEnd(models, mode=mode, seed=7), speech_like(FRAMES),
                               ORACLE_SCRIPT if mode == 'kame' else None)
            for mode in ('plain', 'kame')}


@pytest.mark.parametrize('mode,threads', [('plain', 0), ('kame', 0), ('kame', 1)])
def test_exported_graphs_compute_what_torch_computes(exported, torch_runs, mode, threads):
    models, directory = exported
    record = torch_runs[mode]
    parity = compare(ExportedFrontEnd(directory, threads=threads, progress=lambda s: None),
                     record, models, progress=print)
    assert parity.ok, '\n'.join(parity.failures[:10])
    # Every graph was compared, every step: nothing passed by being skipped.
    dep_q = models.lm.dep_q
    assert parity.compared['temporal'] == parity.compared['temporal state'] == FRAMES
    assert all(parity.compared[f'depth_{k}'] == FRAMES for k in range(dep_q))
    assert parity.compared['mimi_encode'] == FRAMES * dep_q
    assert parity.compared['mimi_decode'] >= FRAMES - 2
    assert parity.compared['temporal argmax'] > FRAMES * 0.9, 'clear winners to compare'
    assert len({tuple(c.flatten().tolist()) for c in record.codes}) > FRAMES // 4, \
        'the microphone is encoded into varied codes'
    assert max(float(pcm.abs().max()) for _, pcm in record.decoded.values()) > 100 / 32768
    if mode == 'kame':
        conditions = [c for _, c, _, _ in record.temporal if c is not None]
        assert len({float(c.abs().sum()) for c in conditions}) > 10, 'the oracle was fed'


def _cache_slot_off_by_one(monkeypatch):
    append = StatefulGraph._append

    def shifted(self, entries):
        moved = [e if i % 2 == 0 else (e + 1) % max(1, self.caches[i // 2].shape[2])
                 for i, e in enumerate(entries)]
        append(self, moved)
    monkeypatch.setattr(StatefulGraph, '_append', shifted)


def _state_not_carried(monkeypatch):
    step = StatefulGraph.run

    def forgetting(self, *inputs):
        outputs = step(self, *inputs)
        for tensor, initial in zip(self.state, self.initial):
            tensor.copy_(initial)
        return outputs
    monkeypatch.setattr(StatefulGraph, 'run', forgetting)


@pytest.mark.parametrize('fault,far', [(_cache_slot_off_by_one, ('temporal', 'depth_1')),
                                       (_state_not_carried, ('temporal', 'mimi_encode',
                                                             'mimi_decode'))])
def test_the_parity_check_fails_on_a_broken_runtime(exported, torch_runs, monkeypatch, fault,
                                                    far):
    models, directory = exported
    fault(monkeypatch)
    parity = compare(ExportedFrontEnd(directory, progress=lambda s: None), torch_runs['kame'],
                     models, progress=print)
    print('\n'.join(parity.failures[:3]))
    assert not parity.ok
    for graph in far:
        assert any(f.startswith(f'{graph} ') for f in parity.failures), graph
        assert parity.worst[graph] > 100 * 1e-4, f'{graph}: far outside the tolerance'


def test_every_graph_keeps_its_weights_beside_it_and_the_folder_moves(exported, tmp_path):
    """Moshi 7B's graphs are past protobuf's 2 GB: every export takes the external-data road."""
    models, directory = exported
    manifest = json.loads((directory / 'manifest.json').read_text())
    for name, entry in manifest['graphs'].items():
        graph = directory / entry['file']
        assert entry['data'] == [f'{entry["file"]}.data'], name
        assert onnx_files.data_files(graph) == entry['data']
        weights = (directory / entry['data'][0]).stat().st_size
        assert (directory / entry['data'][0]).stat().st_mode == graph.stat().st_mode, \
            f'{name}: its weights are as readable as the graph'
        assert weights > graph.stat().st_size / 4, f'{name}: its weights are in the data file'
        big = [t for t in onnx_files.structure(graph).graph.initializer
               if t.data_location != onnx.TensorProto.EXTERNAL
               and len(t.raw_data) > onnx_files.INLINE_BYTES]
        assert not big, f'{name}: {[t.name for t in big]} inside the graph'
    moved = tmp_path / 'moved'
    shutil.copytree(directory, tmp_path / 'copy')
    shutil.move(tmp_path / 'copy', moved)  # a folder moved whole: nothing points at the old one
    a = run(models, ExportedFrontEnd(moved, progress=lambda s: None), ORACLE_SCRIPT, 'kame')
    b = run(models, ExportedFrontEnd(directory, progress=lambda s: None), ORACLE_SCRIPT, 'kame')
    assert [o.text_token for o in a] == [o.text_token for o in b]
    (moved / 'temporal.onnx.data').unlink()
    with pytest.raises(ExportError, match='temporal.onnx needs its weights temporal.onnx.data'):
        ExportedFrontEnd(moved, progress=lambda s: None)


def test_the_manifest_records_the_versions_and_loading_names_a_difference(exported, tmp_path):
    _, directory = exported
    manifest = json.loads((directory / 'manifest.json').read_text())
    assert manifest['versions'] == package_versions()
    assert all(manifest['versions'][p] for p in ('torch', 'moshi', 'onnx', 'onnxruntime'))
    said = []
    ExportedFrontEnd(directory, progress=said.append)
    assert not [line for line in said if 'warning' in line]
    other = tmp_path / 'other'
    shutil.copytree(directory, other)
    versions = dict(manifest['versions'], onnxruntime='1.0.0')
    (other / 'manifest.json').write_text(json.dumps({**manifest, 'versions': versions}))
    said = []
    ExportedFrontEnd(other, progress=said.append)
    warned = [line for line in said if line.startswith('warning')]
    now = package_versions()['onnxruntime']
    assert len(warned) == 1 and 'onnxruntime 1.0.0' in warned[0] and now in warned[0], warned
    assert 'torch' not in warned[0], 'only what differs is named'


def test_io_binding_keeps_the_state_off_the_host_and_changes_nothing(exported):
    models, directory = exported
    bound = ExportedFrontEnd(directory, progress=lambda s: None)
    copied = ExportedFrontEnd(directory, progress=lambda s: None, binding=False)
    a = run(models, bound, ORACLE_SCRIPT, 'kame')
    b = run(models, copied, ORACLE_SCRIPT, 'kame')
    assert [o.text_token for o in a] == [o.text_token for o in b]
    assert all(np.array_equal(x.pcm, y.pcm) for x, y in zip(a, b) if x.pcm is not None)
    # Plain session.run: the state goes in and comes out, the caches go in, every step.
    per_step = sum(2 * t.nbytes for g in copied.graphs.values() for t in g.state) \
        + sum(t.nbytes for g in copied.graphs.values() for t in g.caches)
    assert bound.host_state_bytes == 0
    # Spinning workers took the cores: p99 5x its p50 on 2 cores (docs/measurements.md).
    options = bound.graphs['temporal'].session.get_session_options()
    assert options.get_session_config_entry('session.intra_op.allow_spinning') == '0'
    assert copied.host_state_bytes >= FRAMES * per_step * 0.9, 'every step copied it'


def test_cache_writes_are_slice_writes_not_element_scatters(exported):
    """No ScatterElements over a KV cache: an element-by-element kernel, 7.5 of a 10 ms step."""
    _, directory = exported
    for path in sorted(directory.glob('*.onnx')):
        graph = onnx.load(str(path)).graph
        assert 'ScatterElements' not in {n.op_type for n in graph.node}, path.name
        largest = max((int(np.prod(i.dims)) for i in graph.initializer
                       if i.data_type == onnx.TensorProto.INT64), default=0)
        assert largest < 1000, f'{path.name}: an index tensor of {largest} elements is left'


def _scatter_model(indices: np.ndarray, path):
    """Write a one-node graph: ScatterElements on axis 0 of a (3, 2, 4) input, constant indices."""
    from onnx import helper, numpy_helper, TensorProto
    update_shape = list(indices.shape)
    graph = helper.make_graph(
        [helper.make_node('ScatterElements', ['data', 'idx', 'update'], ['out'], axis=0)], 'g',
        [helper.make_tensor_value_info('data', TensorProto.FLOAT, [3, 2, 4]),
         helper.make_tensor_value_info('update', TensorProto.FLOAT, update_shape)],
        [helper.make_tensor_value_info('out', TensorProto.FLOAT, [3, 2, 4])],
        [numpy_helper.from_array(indices.astype(np.int64), 'idx')])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 18)]), str(path))


@pytest.mark.parametrize('indices,rewritten', [(np.full((1, 2, 4), 1), True),
                                               (np.array([[[1, 1, 1, 1], [2, 2, 2, 2]]]), False),
                                               (np.full((2, 2, 4), 1), False)])
def test_rewrite_turns_only_whole_slice_writes_into_concat(tmp_path, indices, rewritten):
    path = tmp_path / 'scatter.onnx'
    _scatter_model(indices, path)
    rng = np.random.default_rng(0)
    feeds = {'data': rng.standard_normal((3, 2, 4)).astype(np.float32),
             'update': rng.standard_normal(indices.shape).astype(np.float32)}
    expected = ort.InferenceSession(str(path)).run(None, feeds)[0]
    rewrite_for_onnxruntime(path)
    ops = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert ('ScatterElements' not in ops) == rewritten
    assert np.array_equal(ort.InferenceSession(str(path)).run(None, feeds)[0], expected)


def test_manifest_lists_every_graph_and_bad_directories_are_clear(exported, tmp_path):
    models, directory = exported
    manifest = json.loads((directory / 'manifest.json').read_text())
    assert set(manifest['graphs']) == {'mimi_encode', 'mimi_decode', 'temporal',
                                       *(f'depth_{k}' for k in range(models.lm.dep_q))}
    assert all(entry['state'] for entry in manifest['graphs'].values())
    assert all(manifest['graphs'][g]['caches'] for g in ('temporal', 'mimi_encode', 'depth_0'))
    with pytest.raises(ExportError, match='no manifest.json'):
        ExportedFrontEnd(tmp_path, progress=lambda s: None)
    broken = tmp_path / 'broken'
    broken.mkdir()
    for f in directory.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / 'temporal.onnx').write_bytes(b'not onnx')
    with pytest.raises(ExportError, match='temporal.onnx'):
        ExportedFrontEnd(broken, progress=lambda s: None)
    old = tmp_path / 'old'
    old.mkdir()
    for f in directory.iterdir():
        (old / f.name).write_bytes(f.read_bytes())
    (old / 'manifest.json').write_text(json.dumps({**manifest, 'layout': 1}))
    with pytest.raises(ExportError, match='layout 1.*export again'):
        ExportedFrontEnd(old, progress=lambda s: None)
    said = []
    load_or_export(models, old, progress=said.append)
    assert any('another kame_ros version: exporting' in line for line in said)
    assert json.loads((old / 'manifest.json').read_text())['layout'] == manifest['layout']


def test_a_step_reads_the_kv_cache_and_returns_only_its_new_entries(exported):
    """The temporal cache goes in; one frame's keys and values and their slot come out."""
    _, directory = exported
    session = ort.InferenceSession(str(directory / 'temporal.onnx'))
    caches = [i for i in session.get_inputs() if i.name.startswith('cache_in.')]
    new = {o.name: o.shape for o in session.get_outputs() if o.name.startswith('cache_new.')}
    at = {o.name: o.shape for o in session.get_outputs() if o.name.startswith('cache_at.')}
    assert caches and len(new) == len(at) == len(caches)
    for cache in caches:
        name = cache.name.removeprefix('cache_in.')
        assert cache.shape[2] >= 100, cache.shape
        assert new[f'cache_new.{name}'] == [*cache.shape[:2], 1, cache.shape[3]]
        assert at[f'cache_at.{name}'] == [1]


@pytest.mark.parametrize('precision,similar', [('int8', 0.95), ('fp16', 0.999), ('int8w', 0.99)])
def test_lower_precisions_stay_close_to_fp32(exported, tmp_path, precision, similar):
    """The parity figure of each precision: text logits against fp32 over 30 carried steps."""
    models, fp32_dir = exported
    directory = export_frontend(models, tmp_path / precision, precision, progress=lambda s: None)
    low = ExportedFrontEnd(directory, progress=lambda s: None)
    fp32 = ExportedFrontEnd(fp32_dir, progress=lambda s: None)
    assert low.precision == precision and fp32.precision == 'fp32'
    rng = np.random.default_rng(0)
    k, dim = models.lm.num_codebooks, models.lm.dim
    similarity, same_top = [], 0
    for _ in range(30):  # same token stream into both temporal graphs, states carried
        tokens = torch.from_numpy(rng.integers(0, 60, (1, k, 1)))
        condition = torch.from_numpy(rng.standard_normal((1, 1, dim)).astype(np.float32))
        a = fp32.temporal(tokens, condition)[1].ravel().clone()
        b = low.temporal(tokens, condition)[1].ravel().clone()
        similarity.append(float(torch.nn.functional.cosine_similarity(a, b, dim=0)))
        same_top += int(a.argmax() == b.argmax())
    print(f'\n{precision} vs fp32 text logits: cosine similarity min {min(similarity):.5f}, '
          f'same argmax {same_top}/30')
    assert min(similarity) > similar
    out = run(models, low, ORACLE_SCRIPT, 'kame')
    assert all(np.isfinite(o.pcm).all() for o in out if o.pcm is not None)
