#!/usr/bin/env bash
# Compiles (syntax only) every engine and CLI source against another LibTorch's headers, to
# find what TorchCompat.h must cover before a GPU machine does. No linking: the other
# LibTorch's libraries may need a newer C library than this machine's.
#
#   scripts/check-torch2-headers.sh BUILD_DIR TORCH_INCLUDE [JOBS]
#   TB_CHECK_ONLY=REGEX scripts/check-torch2-headers.sh ...   (only the sources whose path matches)
#
# BUILD_DIR: a configured build of this tree (its compile commands are reused).
# TORCH_INCLUDE: the other LibTorch's include directory, the one holding ATen/, c10/ and torch/:
#   a pip torch's  $(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))')/include,
#   or Debian trixie's libtorch-dev unpacked:  apt-get download libtorch-dev (2.6) &&
#   dpkg -x libtorch-dev_*.deb /tmp/torch2  ->  /tmp/torch2/usr/include
# Prints one line per failing file and its first errors; exits 1 when any failed.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR TORCH_INCLUDE [JOBS]}
inc=${2:?usage: $0 BUILD_DIR TORCH_INCLUDE [JOBS]}
jobs=${3:-1}
[ -f "$inc/torch/csrc/api/include/torch/torch.h" ] || { echo "$inc has no torch/csrc/api/include/torch/torch.h" >&2; exit 2; }
version=$(cat "$inc/torch/csrc/api/include/torch/version.h" "$inc/torch/headeronly/version.h" 2>/dev/null |
  awk '/define TORCH_VERSION_MAJOR/{a=$3} /define TORCH_VERSION_MINOR/{b=$3}
       /define TORCH_VERSION_PATCH/{c=$3} END{if (a != "") print "LibTorch " a "." b "." c}' || true)
version=${version:-unknown version}
# The C++ standard that LibTorch's CMake files ask for (20 from 2.10 or so), when they sit beside
# the headers (Debian: lib/<arch>/cmake/Torch; pip: share/cmake/Torch); else the build's own.
std=$(grep -ho 'CXX_STANDARD [0-9]*' "$inc"/../lib/*/cmake/Torch/TorchConfig.cmake \
  "$inc"/../share/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -1 | awk '{print $2}' || true)
out=$(mktemp -d)
ninja -C "$build" -t compdb >"$out/compdb.json"
python3 - "$out/compdb.json" "$inc" "$out/commands" "${std:-0}" <<'PY'
import json, os, re, shlex, sys
entries, inc, dest, std = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], int(sys.argv[4])
seen, lines = set(), []
for e in entries:
    f = e["file"]
    if not f.endswith(".cpp") or f in seen: continue
    if not re.search(r"/(engine|app/cli|examples)/", f): continue
    if os.environ.get("TB_CHECK_ONLY") and not re.search(os.environ["TB_CHECK_ONLY"], f): continue
    seen.add(f)
    args = shlex.split(e["command"])
    # Drop the launcher, the precompiled header and the outputs; the other LibTorch's
    # headers come first, before the installed 1.13 ones in /usr/include.
    args = args[args.index(next(a for a in args if a.endswith(("c++", "g++", "clang++")))):]
    keep, skip = [], False
    for a in args:
        if skip: skip = False; continue
        if a in ("-include", "-o", "-MF", "-MT"): skip = True; continue
        if a in ("-MD", "-Winvalid-pch", "-c") or a.endswith(".cpp"): continue
        if a == "/usr/include/torch/csrc/api/include": a = inc + "/torch/csrc/api/include"
        if a.startswith("-std=c++") and std > int(a[len("-std=c++"):]): a = f"-std=c++{std}"
        keep.append(a)
    keep[1:1] = ["-isystem", inc, "-isystem", inc + "/torch/csrc/api/include", "-fsyntax-only",
                 "-include", "torch/torch.h"]
    lines.append(shlex.join(keep + [f]) + " # " + f)
open(dest, "w").write("\n".join(lines) + "\n")
print(f"{len(lines)} sources", file=sys.stderr)
PY
echo "checking against LibTorch headers in $inc ($version${std:+, C++$std}), $jobs at a time" >&2
fail=0
export out
check() {
  local cmd=$1 file=${1##*# }
  if ! eval "${cmd% # *}" >"$out/$(basename "$file").log" 2>&1; then
    echo "FAIL $file"; grep -m5 "error" "$out/$(basename "$file").log" | sed 's/^/    /'
    return 1
  fi
}
export -f check
xargs -d '\n' -P "$jobs" -I{} bash -c 'check "$@"' _ {} <"$out/commands" || fail=1
[ $fail = 0 ] && echo "all sources compile against $version" || echo "logs in $out"
exit $fail
