#!/usr/bin/env bash
# Runs a Qt test on its own Xvfb display under a real window manager (openbox), with Qt's xcb
# platform: title bars, focus, modality and geometry as users get them, which the offscreen
# platform and a bare Xvfb do not have. Exits 77 (CTest's skip code here) with the reason when
# Xvfb or openbox is not installed (scripts/setup.sh installs both).
#
#   run-under-wm.sh TEST_BINARY [TEST ARGS...]
set -u
test_binary=$1
shift
for tool in Xvfb openbox xprop; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed (scripts/setup.sh installs it)"
    exit 77
  fi
done

# Xvfb picks a free display itself (-displayfd) and says which once it accepts clients.
fifo=$(mktemp -u)
mkfifo "$fifo"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$fifo" >/dev/null 2>&1 &
xvfb=$!
wm=""
trap 'kill $wm $xvfb 2>/dev/null; wait 2>/dev/null; rm -f "$fifo"' EXIT
number=$(timeout 30 head -n 1 "$fifo")
if [ -z "$number" ]; then
  echo "Xvfb did not start within 30 s"
  exit 1
fi
display=":$number"
DISPLAY=$display openbox --sm-disable >/dev/null 2>&1 &
wm=$!
# The window manager is up once it announces itself on the root window (slow on a loaded
# machine: up to 30 s).
for _ in $(seq 300); do
  DISPLAY=$display xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id" && break
  sleep 0.1
done
if ! DISPLAY=$display xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id"; then
  echo "openbox did not start on $display within 30 s"
  exit 1
fi
DISPLAY=$display QT_QPA_PLATFORM=xcb "$test_binary" "$@"
