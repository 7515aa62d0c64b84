#!/usr/bin/env bash
# The test command: install what is missing, then run every test (lint, core,
# real DDS between processes, real PulseAudio devices). Extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
source scripts/env.sh
# Tests isolate DDS themselves (localhost discovery, a domain id per test).
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
python -m pytest -p no:cacheprovider "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "test.sh: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit $rc
