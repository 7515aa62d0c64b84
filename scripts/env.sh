# Source me: activate the kame_ros venv and the ROS 2 environment variables
# the PyPI wheels need (ament index lives in the venv), for the distribution
# scripts/setup.sh recorded in the venv (ROS_DISTRO, as a ROS setup script sets it).
_kame_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VIRTUAL_ENV="${KAME_VENV:-$_kame_root/.venv}"
export PATH="$VIRTUAL_ENV/bin:$PATH"
export AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export RMW_IMPLEMENTATION="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
if [ -f "$VIRTUAL_ENV/kame_ros_distro" ]; then
  export ROS_DISTRO="$(cat "$VIRTUAL_ENV/kame_ros_distro")" ROS_VERSION=2
else
  echo "scripts/env.sh: $VIRTUAL_ENV is not set up; run: bash scripts/setup.sh" >&2
fi
unset _kame_root
