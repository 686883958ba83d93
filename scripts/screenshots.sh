#!/usr/bin/env bash
# Takes the README's screenshots under Xvfb: the window on the default project, started with
# Run > Start, captured after SECONDS (default 170) of training (window-running.png), then the
# Devices and Strategy tab of the same window (devices-strategy.png).
#   scripts/screenshots.sh [SECONDS]
# Needs xvfb (installed by setup.sh) and, for the capture only, x11-apps (xwd), xdotool and
# netpbm: apt-get install --no-install-recommends x11-apps xdotool netpbm
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-170}
out="$root/docs/screenshots"
mkdir -p "$out"
work=$(mktemp -d)  # the run directory goes here, not into the repository
trap 'rm -rf "$work"' EXIT
cd "$work"
XDG_CONFIG_HOME="$work/config" xvfb-run -a -s "-screen 0 1440x900x24" bash -c '
  "$0/build/bin/towerbench" "$0/projects/fashion-mnist-convnet.json" &
  pid=$!
  wid=$(xdotool search --sync --onlyvisible --name "Towerbench" | head -1)
  sleep 5
  # No window manager under Xvfb: no focus, so click Start (top left of the run tool bar).
  xdotool windowmove "$wid" 0 0 windowsize "$wid" 1440 900
  sleep 1
  xdotool mousemove 48 35 click 1 mousemove 900 400
  sleep "$1"
  xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > "$2/window-running.png"
  xdotool mousemove 140 858 click 1  # the "Devices and Strategy" tab under the project dock
  sleep 1
  xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > "$2/devices-strategy.png"
  kill "$pid"
' "$root" "$seconds" "$out"
echo "wrote $out/window-running.png and $out/devices-strategy.png"
