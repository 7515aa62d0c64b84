#!/usr/bin/env bash
# Build kame_ros_interfaces (ament_cmake, rosidl) with colcon against the ROS 2 wheels of a
# venv, and install it into that venv as a wheel laid out like the ros-* ones, so that
# Python, `ros2 interface` and the ament index find it as they find std_msgs.
#
#   scripts/build_interfaces.sh VENV jazzy|kilted
#
# A robot does not need this: `colcon build` with the distribution installed builds the
# package. Here the build-time wheels (scripts/rosidl/build-<distro>.txt) go into a second
# venv layered on the runtime one, and colcon runs in a clean environment that names only
# that distribution's prefixes (scripts/colcon_in_venv.sh;
# ../shared/tools/rosidl_in_venv/README.md: the recipe behind
# ../shared/wheels/interop). Seconds of pip and about a minute of compiling on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$(cd "$1" && pwd)
DISTRO=$2
SITE="$VENV/lib/python3.11/site-packages"
BUILD_VENV="$VENV/.rosidl-build"
WS="$VENV/.rosidl-ws"
MAKE_WHEEL=../shared/tools/rosidl_in_venv/make_ros_wheel.py
[ -f "$MAKE_WHEEL" ] || { echo "build_interfaces: $MAKE_WHEEL not found (../shared beside the clone)" >&2; exit 1; }

if [ ! -x "$BUILD_VENV/bin/python" ]; then
  "$VENV/bin/python" -m venv --without-pip "$BUILD_VENV"
  echo "import site; site.addsitedir('$SITE')" > "$BUILD_VENV/lib/python3.11/site-packages/zz_runtime.pth"
fi
NO_DEPS=(); [ "$DISTRO" = kilted ] && NO_DEPS=(--no-deps)  # Kilted's ros-* wheels declare none
"$VENV/bin/python" -m pip --python "$BUILD_VENV/bin/python" install -q --disable-pip-version-check \
  "${NO_DEPS[@]}" -r "scripts/rosidl/build-$DISTRO.txt" 2>&1 | grep -v '^WARNING: Location' || true

rm -rf "$WS"
mkdir -p "$WS"
(cd "$WS" && bash "$ROOT/scripts/colcon_in_venv.sh" "$VENV" --log-base "$WS/log" build \
  --base-paths "$ROOT/kame_ros_interfaces" --build-base "$WS/build" --install-base "$WS/install" \
  --event-handlers console_direct-) \
  > "$WS/build.log" 2>&1 || { tail -40 "$WS/build.log" >&2; echo "build_interfaces: colcon build failed ($WS/build.log)" >&2; exit 1; }
"$VENV/bin/python" "$MAKE_WHEEL" "$WS/install/kame_ros_interfaces" --out "$WS/wheel" \
  --site-packages "$SITE" --site-packages "$BUILD_VENV/lib/python3.11/site-packages" \
  --summary "kame_ros_interfaces built with colcon against the ROS 2 $DISTRO wheels" >/dev/null
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall \
  "$WS"/wheel/ros_kame_ros_interfaces-*.whl 2>&1 | grep -v '^WARNING: Location' || true
"$VENV/bin/python" -c "import kame_ros_interfaces.msg, kame_ros_interfaces.action" \
  || { echo "build_interfaces: kame_ros_interfaces does not import" >&2; exit 1; }
