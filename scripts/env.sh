# Source me: activate the kame_ros venv and the ROS 2 environment variables
# the PyPI wheels need (ament index lives in the venv).
_kame_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VIRTUAL_ENV="${KAME_VENV:-$_kame_root/.venv}"
export PATH="$VIRTUAL_ENV/bin:$PATH"
export AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export RMW_IMPLEMENTATION="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
unset _kame_root
