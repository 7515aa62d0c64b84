# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Two rewrites of the exported graphs so onnxruntime runs them well; values are unchanged.

* Boolean ``Where``: moshi keeps "first frame" flags as bool tensors and
  updates them with ``torch.where``; onnxruntime's CPU kernel has no bool
  ``Where``, so the selection runs on uint8 between two casts.
* ``select_scatter`` as ``Concat``: moshi's KV cache writes keys into
  ``cache[0]`` and values into ``cache[1]`` in place; the exporter turns a
  write into a view into ScatterElements over the whole cache with an index
  tensor as large as the cache, an element-by-element kernel that took 99 of
  the 101 ms of a 39 M-parameter step (7.5 of the 10 ms of the tiny
  model's temporal step once the exporter folded that index tensor into a
  constant, which this rewrite then missed). Writing into slice ``i`` of axis 0 is
  a concatenation of the slices before it, the new slice and those after.

The graph is read and written through ``onnx_files`` (weights external), so
this runs on a Moshi-7B-sized graph as on the tests' tiny ones.
"""
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

from kame_ros.frontend.export import onnx_files


def _bool_where(node, types: dict) -> list | None:
    if node.op_type != 'Where' or types.get(node.output[0]) != TensorProto.BOOL:
        return None
    cond, x, y = node.input
    out = node.output[0]
    return [helper.make_node('Cast', [x], [f'{out}.x8'], to=TensorProto.UINT8),
            helper.make_node('Cast', [y], [f'{out}.y8'], to=TensorProto.UINT8),
            helper.make_node('Where', [cond, f'{out}.x8', f'{out}.y8'], [f'{out}.w8']),
            helper.make_node('Cast', [f'{out}.w8'], [out], to=TensorProto.BOOL)]


def _select_index(node, producers: dict, initializers: dict) -> int | None:
    """
    Return ``i`` when ``node`` writes one whole slice of axis 0.

    The exporter spells the index tensor either ``Expand(const i)`` or, when
    it folds constants, as an initializer the size of the slice holding
    ``i`` everywhere; both mean "slice ``i``".
    """
    if node.op_type != 'ScatterElements':
        return None
    axis = next((a.i for a in node.attribute if a.name == 'axis'), 0)
    if axis != 0:
        return None
    source = node.input[1]
    expand = producers.get(source)
    if expand is not None:
        if expand.op_type != 'Expand':
            return None
        source = expand.input[0]
    value = initializers.get(source)
    if value is None:
        return None
    array = numpy_helper.to_array(value)
    if array.size == 0 or (expand is None and array.shape[0] != 1):
        return None
    first = array.ravel()[0]
    return int(first) if (array == first).all() else None


def _names_used(graph) -> set[str]:
    """Return every name ``graph``'s nodes (and their subgraphs) read, and its outputs."""
    used = {o.name for o in graph.output}
    for node in graph.node:
        used.update(node.input)
        for attribute in node.attribute:
            for sub in list(attribute.graphs) + ([attribute.g] if attribute.HasField('g') else []):
                used |= _names_used(sub)
    return used


def rewrite_for_onnxruntime(path: Path) -> None:
    """Apply both rewrites to the ONNX file at ``path`` (and its weights), in place."""
    with onnx_files.edit(path) as source:
        model = onnx_files.structure(source)
        types = {v.name: v.type.tensor_type.elem_type
                 for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
        onnx.load_external_data_for_model(model, str(source.parent))
        _rewrite(model.graph, types)
        onnx_files.save(model, path)


def _rewrite(graph, types: dict) -> None:
    """Rewrite ``graph``'s bool Wheres and whole-slice scatters; drop what they left unused."""
    types = dict(types)
    types.update({v.name: v.type.tensor_type.elem_type
                  for v in list(graph.input) + list(graph.output)})
    producers = {o: n for n in graph.node for o in n.output}
    initializers = {i.name: i for i in graph.initializer}
    nodes, constants = [], False
    for node in graph.node:
        replaced = _bool_where(node, types)
        index = None if replaced else _select_index(node, producers, initializers)
        if index is not None:
            data, _, update = node.input
            out = node.output[0]
            constants = True
            for name, value in ((f'{out}.i', index), (f'{out}.i1', index + 1)):
                graph.initializer.append(numpy_helper.from_array(np.array([value], np.int64),
                                                                 name))
            replaced = [
                helper.make_node('Slice', [data, 'rw.axis0', f'{out}.i', 'rw.axis0'],
                                 [f'{out}.before']),
                helper.make_node('Slice', [data, f'{out}.i1', 'rw.big', 'rw.axis0'],
                                 [f'{out}.after']),
                helper.make_node('Concat', [f'{out}.before', update, f'{out}.after'], [out],
                                 axis=0)]
        nodes += replaced or [node]
    del graph.node[:]
    graph.node.extend(nodes)
    if constants:
        for name, value in (('rw.axis0', 0), ('rw.big', np.iinfo(np.int64).max)):
            graph.initializer.append(numpy_helper.from_array(np.array([value], np.int64), name))
    # The replaced writes' index tensors are as large as the cache: drop them from the file.
    used = _names_used(graph)
    unused = [i for i in graph.initializer if i.name not in used]
    for initializer in unused:
        graph.initializer.remove(initializer)
