#!/usr/bin/env bash
# Prepared GPU benchmark (any CUDA machine): a Moshi-7B-shaped front-end step with random
# weights, upstream LMGen vs this package's KAME front-end (oracle on every frame), with
# full-size Mimi, bf16, CUDA graphs (LMGen enables them on CUDA). Writes to ${OUT:-out}.
# Needs a CUDA torch; installs only moshi (no deps), the few modules it imports and
# onnxruntime-gpu for the exported-runtime rows.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
$PY -c "import torch; assert torch.cuda.is_available(), 'no CUDA'; print(torch.__version__, torch.cuda.get_device_name())"
$PY -m pip install -q --no-deps moshi==0.2.13 2>&1 | tail -1 || true
$PY -m pip install -q einops sentencepiece safetensors soxr matplotlib pyyaml 2>&1 | tail -1 || true
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv || true
PYTHONPATH=$PWD $PY -m kame_ros.bench.frontend --device cuda --dtype bfloat16 --full-mimi \
  --sizes large moshi7b --frames "${FRAMES:-200}" --out "${OUT:-out}/bench_frontend_gpu"
# The exported front-end on CUDA/TensorRT (onnxruntime-gpu; TensorRT provider when present):
# torch (cuda) vs onnxruntime with the best provider, same random-weight model, same run.
$PY -m pip install -q onnx onnxscript==0.7.2 onnxruntime-gpu 2>&1 | tail -1 || true
$PY -c "import onnxruntime as o; print('onnxruntime', o.__version__, o.get_available_providers())"
# State stays on the GPU (IO binding); rows with the state copied through the host show the
# difference. EXPORT_7B=1 adds the Moshi-7B shape (its export needs ~32 GB of host RAM).
PYTHONPATH=$PWD $PY -m kame_ros.bench.export --device cuda --fp16 --precisions fp32 fp16 \
  --sizes small large ${EXPORT_7B:+moshi7b} --frames "${FRAMES:-200}" \
  --out "${OUT:-out}/bench_export_gpu"
