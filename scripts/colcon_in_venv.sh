#!/usr/bin/env bash
# colcon as an ament_cmake package needs it in a venv of the ROS 2 wheels: only that venv's
# prefixes plus its build tools ($VENV/.rosidl-build, installed by scripts/build_interfaces.sh),
# and the Python paths the wheels' CMake exports expect. Run from the workspace:
#
#   scripts/colcon_in_venv.sh VENV [colcon arguments: build --packages-up-to kame_ros ...]
#
# Used by scripts/build_interfaces.sh and by the tests' colcon build of a clean copy; a robot
# runs plain colcon with the distribution sourced.
set -euo pipefail
VENV=$(cd "$1" && pwd)
shift
SITE="$VENV/lib/python3.11/site-packages"
TOOLS="$VENV/.rosidl-build"
OPT=/opt/python/cp311-cp311
[ -x "$TOOLS/bin/python" ] || { echo "colcon_in_venv: no build tools in $TOOLS (run scripts/setup.sh)" >&2; exit 1; }
# The ros-* wheels were built under manylinux: their CMake exports name these two paths. They
# are linked to this venv's on every build: one machine-wide link may still point into another
# venv, or into one that was removed (CI failed so, after another checkout's venv was deleted).
inc=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
numpy=$("$VENV/bin/python" -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
# One build at a time on the machine (CI builds the two distributions' venvs at once): the lock
# is held by colcon itself (fd 9 survives the exec below) until the build ends.
exec 9>"${TMPDIR:-/tmp}/kame_ros_colcon_in_venv.lock"
flock 9
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO mkdir -p "$OPT/include" "$OPT/lib/python3.11/site-packages"
$SUDO ln -sfn "$inc" "$OPT/include/python3.11"
$SUDO ln -sfn "$numpy" "$OPT/lib/python3.11/site-packages/numpy"
libs=$(printf '%s:' "$VENV/lib" "$SITE"/ros_*.libs)
# The bootstrapper of the ros-* wheels (which re-executes Python with LD_LIBRARY_PATH set) is
# pre-empted with the same paths.
exec env -i HOME="$HOME" LANG=C.UTF-8 TERM=dumb \
  PATH="$TOOLS/bin:$VENV/bin:/usr/local/bin:/usr/bin:/bin" VIRTUAL_ENV="$TOOLS" \
  AMENT_PREFIX_PATH="$TOOLS:$VENV" CMAKE_PREFIX_PATH="$TOOLS:$VENV" \
  LD_LIBRARY_PATH="${libs%:}" _ROS_WHEELS_BOOTSTRAP_COMPLETE=1 \
  RMW_IMPLEMENTATION=rmw_fastrtps_cpp PYTHONDONTWRITEBYTECODE=1 \
  "$VENV/bin/colcon" "$@" \
    --cmake-args -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release \
      -DPython3_EXECUTABLE="$TOOLS/bin/python" \
      -DPython3_INCLUDE_DIR="$OPT/include/python3.11" \
      -DPython3_NumPy_INCLUDE_DIR="$numpy/_core/include"
