#!/usr/bin/env bash
# Towerbench on a GPU machine: builds the headless configuration (no Qt) against the CUDA
# LibTorch of the machine's PyTorch, then runs every CUDA path and prints a table of what ran,
# what was skipped and why, and steps/s.
#
#   scripts/gpu-check.sh [--phase all|build|check] [--build DIR] [--carry DIR] [--device DEV]
#                        [--tests cuda|all] [--jobs N] [--report FILE]
#
#   --phase build   configure and build only; check: run the checks on an existing build (a GPU
#                   lease's commands are limited to 10 minutes: build in one, check in the next)
#   --build DIR     build directory (default build-gpu)
#   --carry DIR     what scripts/gpu-carry.sh put together on a machine with Debian's archive:
#                   debs/ (nlohmann-json, libpng, libjpeg, zlib, Gloo, protobuf, QtCore, QtTest
#                   development files, each group unpacked into the build directory only when
#                   the machine lacks it) and
#                   fashion-mnist/ (the IDX files; without them the Fashion-MNIST rows are
#                   skipped). Default .gpu-carry
#   --device DEV    the GPU (default cuda:0). "cpu" runs every row on the CPU: a dry run of this
#                   script on a machine without a GPU, with the CUDA-only rows skipped
#   --tests cuda    (default) build and run the Qt Test executables that hold CUDA cases
#                   (test_Strategies, test_StagingInput, test_MixedPrecision,
#                   test_GpuUtilizationTracker, test_Nvml); "all": every engine test executable.
#                   Both need QtCore and QtTest: the machine's, or carried (gpu-carry.sh)
#   --report FILE   also write the table there (markdown)
#
# Needs: CMake, Ninja, a C++ compiler, python3 with torch (its LibTorch: headers, libraries, CMake
# files). Qt and the network are not needed. Exit status: 0 when no row failed.
set -uo pipefail

phase=all
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-gpu
carry=$root/.gpu-carry
device=cuda:0
jobs=$(nproc)
report=
tests=cuda
while [ $# -gt 0 ]; do
  case $1 in
    --phase) phase=$2; shift 2 ;;
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --carry) carry=$(realpath -m "$2"); shift 2 ;;
    --device) device=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --report) report=$(realpath -m "$2"); shift 2 ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $phase in all | build | check) ;; *) echo "gpu-check: --phase all, build or check" >&2; exit 2 ;; esac
case $tests in cuda | all) ;; *) echo "gpu-check: --tests cuda or all" >&2; exit 2 ;; esac
cuda=0
[[ $device == cuda* ]] && cuda=1
mkdir -p "$build"
rows=$build/gpu-check-rows.tsv   # this call's table
built=$build/gpu-check-build.tsv  # the build phase's rows, shown again by a later check phase
work=$build/gpu-check
: >"$rows"
[ "$phase" = check ] && [ -f "$built" ] && cp "$built" "$rows"
mkdir -p "$work"

# One row of the table: check, status (ran | skipped | FAILED), detail, steps/s.
row() {
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$rows"
  printf '%-9s %s: %s %s\n' "[$2]" "$1" "$3" "${4:+($4 steps/s)}"
}
py() { python3 - "$@"; }

# ---- the machine
torch_info=$(python3 -c 'import torch, sys
print(torch.__version__, torch.version.cuda or "none", int(torch.cuda.is_available()),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-", sep="|")' 2>&1) || {
  row "PyTorch" FAILED "python3 cannot import torch: ${torch_info##*$'\n'}"
  exit 1
}
IFS='|' read -r torch_version torch_cuda torch_gpu gpu_name <<<"$torch_info"
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')

if [ "$phase" != check ]; then
  row "PyTorch" ran "torch $torch_version, CUDA $torch_cuda, GPU: $gpu_name"

  # ---- what CMake needs besides LibTorch: the machine's own, else the carried Debian packages
  # of each missing group (unpacked into the build directory, never into the system). A
  # carried runtime library that the machine already has is left out, so that nothing of the
  # machine's is shadowed through LD_LIBRARY_PATH.
  have_header() { for d in /usr/include /usr/local/include; do [ -e "$d/$1" ] && return 0; done; return 1; }
  have_qt_test() {
    for d in /usr/lib/x86_64-linux-gnu/cmake /usr/lib/cmake /usr/local/lib/cmake /usr/lib64/cmake; do
      [ -f "$d/Qt6Test/Qt6TestConfig.cmake" ] && [ -f "$d/Qt6Core/Qt6CoreConfig.cmake" ] && return 0
    done
    return 1
  }
  # A .deb is an ar archive holding data.tar.*: dpkg-deb where there is one, else ar and tar.
  unpack_deb() {
    if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$1" "$2"; return; fi
    local member
    member=$(ar t "$1" | grep '^data\.tar') || return 1
    case $member in
      *.xz) ar p "$1" "$member" | tar -xJ -C "$2" ;;
      *.zst) ar p "$1" "$member" | zstd -dc | tar -x -C "$2" ;;
      *.gz) ar p "$1" "$member" | tar -xz -C "$2" ;;
      *) ar p "$1" "$member" | tar -x -C "$2" ;;
    esac
  }
  declare -A group_debs=(
    [nlohmann-json]="nlohmann-json3-dev"
    [libpng]="libpng-dev libpng16-16"
    [libjpeg]="libjpeg62-turbo-dev libjpeg62-turbo"
    [zlib]="zlib1g-dev"
    [gloo]="libgloo-dev"
    [protobuf]="libprotobuf-dev libprotobuf32 libprotobuf-lite32 libprotoc32 protobuf-compiler"
    [qt-test]="qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin libqt6core6 libqt6test6 libicu72 libdouble-conversion3 libpcre2-16-0 libb2-1 libglib2.0-0"
  )
  missing=()
  have_header nlohmann/json.hpp || missing+=(nlohmann-json)
  have_header png.h || have_header libpng16/png.h || missing+=(libpng)
  have_header jpeglib.h || have_header x86_64-linux-gnu/jpeglib.h || missing+=(libjpeg)
  have_header zlib.h || missing+=(zlib)
  # c10d's ProcessGroupGloo.hpp includes Gloo's headers: PyTorch's package may bring them
  # under torch/include, Debian's in libgloo-dev (the library itself is inside LibTorch).
  torch_include=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "include"))')
  have_header gloo/algorithm.h || [ -f "$torch_include/gloo/algorithm.h" ] || missing+=(gloo)
  { have_header google/protobuf/message.h && command -v protoc >/dev/null; } || missing+=(protobuf)
  have_qt_test || missing+=(qt-test)
  deps=
  if [ ${#missing[@]} -gt 0 ]; then
    deps=$build/deps
    rm -rf "$deps" && mkdir -p "$deps"
    unpacked=() absent=() kept=()
    for group in "${missing[@]}"; do
      for package in ${group_debs[$group]}; do
        f=$(ls "$carry"/debs/"${package}"_*.deb 2>/dev/null | head -1)
        if [ -z "$f" ]; then absent+=("$package"); continue; fi
        unpack_deb "$f" "$deps" || { row dependencies FAILED "cannot unpack $f"; exit 1; }
        unpacked+=("$package")
      done
    done
    # A shared library the machine has already (the same soname in ld.so's cache) is never
    # shadowed through LD_LIBRARY_PATH, which python3 and the tests' helpers inherit too: the
    # carried copy is set aside and its symbolic links (libjpeg.so, libjpeg.so.62) point to
    # the machine's own file, which then serves the link and every process.
    libdir=$deps/usr/lib/x86_64-linux-gnu
    mkdir -p "$deps/set-aside"
    for lib in "$libdir"/lib*.so.*; do
      [ -f "$lib" ] && [ ! -L "$lib" ] || continue
      soname=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
      [ -n "$soname" ] || continue
      own=$(ldconfig -p 2>/dev/null | awk -v s="$soname" '$1 == s && $NF ~ /^\// {print $NF; exit}')
      [ -n "$own" ] || continue
      real=$(readlink -f "$lib")
      for link in "$libdir"/*; do
        [ -L "$link" ] && [ "$(readlink -f "$link")" = "$real" ] && ln -sfn "$own" "$link"
      done
      mv "$lib" "$deps/set-aside/"
      kept+=("$soname")
    done
    if [ ${#absent[@]} -gt 0 ]; then
      # Without Qt Test the CUDA test cases cannot be built, but the CLI checks still run;
      # anything else missing stops the build.
      hard=0
      for package in "${absent[@]}"; do [[ " ${group_debs[qt-test]} " == *" $package "* ]] || hard=1; done
      if [ $hard = 1 ]; then
        row dependencies FAILED "not on this machine: ${missing[*]}; not carried in $carry/debs: ${absent[*]} (run scripts/gpu-carry.sh where Debian's archive is reachable)"
        exit 1
      fi
    fi
    detail="not on this machine: ${missing[*]}; unpacked ${#unpacked[@]} carried Debian packages into $deps"
    [ ${#kept[@]} -gt 0 ] && detail+="; kept this machine's own ${kept[*]}"
    [ ${#absent[@]} -gt 0 ] && detail+="; not carried: ${absent[*]}"
    row dependencies ran "$detail"
  else
    row dependencies ran "all on this machine (nlohmann-json, libpng, libjpeg, zlib, Gloo headers, protobuf, QtCore and QtTest)"
  fi
  echo "$deps" >"$build/gpu-check-deps"
fi
deps=$(cat "$build/gpu-check-deps" 2>/dev/null || true)
if [ -n "$deps" ]; then
  export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PATH=$deps/usr/bin:$PATH
fi

# The Qt Test executables that hold CUDA cases (skipped without a GPU, run with one), and
# fake_nvml, which two of them load.
cuda_tests=(test_Strategies test_StagingInput test_MixedPrecision test_GpuUtilizationTracker test_Nvml
            test_Resume)

# ---- configure and build
if [ "$phase" != check ]; then
  args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOWERBENCH_WITH_QT=OFF
        -DTOWERBENCH_BUILD_BENCH=OFF "-DCMAKE_PREFIX_PATH=$torch_prefix${deps:+;$deps/usr}")
  [ -x "${deps:-/nonexistent}/usr/bin/protoc" ] && args+=("-DProtobuf_PROTOC_EXECUTABLE=$deps/usr/bin/protoc")
  # PyTorch's pip package brings NCCL as a wheel of its own (nvidia-nccl-cu12 or -cu13: a
  # libnccl.so.2 and nccl.h under site-packages/nvidia); use that one, so that the process
  # holds one NCCL, LibTorch's. Otherwise CMake looks under the CUDA toolkit.
  site=$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')
  nccl_h=$(find "$site/nvidia" -name nccl.h -path '*include*' 2>/dev/null | head -1)
  nccl_lib=$(find "$site/nvidia" -name 'libnccl.so*' 2>/dev/null | sort | head -1)
  if [ -n "$nccl_h" ] && [ -n "$nccl_lib" ]; then
    args+=("-DNCCL_INCLUDE_DIR=$(dirname "$nccl_h")" "-DNCCL_LIBRARY=$nccl_lib")
  fi
  start=$(date +%s)
  if ! cmake "${args[@]}" >"$work/configure.log" 2>&1; then
    row configure FAILED "cmake failed; the end of $work/configure.log: $(grep -A3 -m1 'CMake Error' "$work/configure.log" | tr '\n' ' ' | cut -c1-400)"
    exit 1
  fi
  row configure ran "$(grep -o 'Towerbench: .*' "$work/configure.log" | head -1); $(grep -o 'NCCL: .*' "$work/configure.log" | head -1)"
  targets=(towerbench-cli)
  if grep -q 'engine tests with QtCore' "$work/configure.log"; then
    targets+=("${cuda_tests[@]}" fake_nvml)
    [ "$tests" = all ] && targets=(all)
  fi
  # -k 0: every file that fails is reported in one run, not only the first.
  if ! ninja -C "$build" -j "$jobs" -k 0 "${targets[@]}" >"$work/build.log" 2>&1; then
    row build FAILED "ninja failed in $(grep -c '^FAILED: ' "$work/build.log") steps ($(grep '^FAILED: ' "$work/build.log" | grep -o '[^/ ]*\.cpp\.o' | sort -u | head -8 | tr '\n' ' ')); first error: $(grep -m1 -A2 'error' "$work/build.log" | tr '\n' ' ' | cut -c1-400)"
    exit 1
  fi
  row build ran "${targets[*]} in $(($(date +%s) - start)) s with $jobs jobs; towerbench-cli needs $(readelf -d "$build/bin/towerbench-cli" | grep -c 'Qt') Qt libraries"
fi
cp "$rows" "$built"
[ "$phase" = build ] && exit 0

cli=$build/bin/towerbench-cli
[ -x "$cli" ] || { row build FAILED "no $cli: run --phase build first"; exit 1; }

# ---- the headless CTest suite, and the devices as the CLI sees them
if (cd "$build" && ctest -L headless --output-on-failure >"$work/ctest.log" 2>&1); then
  row "headless tests" ran "$(grep -o '[0-9]*% tests passed.*' "$work/ctest.log" | head -1)"
else
  row "headless tests" FAILED "$(grep -E 'tests passed|Failed' "$work/ctest.log" | tr '\n' ' ' | cut -c1-300)"
fi

# ---- the Qt Test executables: their CUDA cases run here when a GPU is seen, and are skipped
# (saying why) on the CPU. On a GPU, a case skipped for want of CUDA is a failure.
if [ "$tests" = all ]; then
  mapfile -t qt_tests < <(cd "$build" && ctest -N | sed -n 's/^ *Test *#[0-9]*: \(test_[A-Za-z0-9_]*\)$/\1/p')
else
  qt_tests=("${cuda_tests[@]}")
fi
for t in "${qt_tests[@]}"; do
  if ! (cd "$build" && ctest -N -R "^$t\$" | grep -q "Total Tests: 1"); then
    row "$t" skipped "not built: no QtCore/QtTest on this machine nor carried (scripts/gpu-carry.sh)"
    continue
  fi
  started=$(date +%s)
  (cd "$build" && ctest -R "^$t\$" -V --timeout 600) >"$work/$t.log" 2>&1
  status=$?
  passed=$(grep -c 'PASS   :' "$work/$t.log")
  # QTest's lines: "FAIL!  : TestX::caseName() message", "SKIP   : TestX::caseName() reason".
  case_of='s/.*\(FAIL!\|SKIP\)  *: [A-Za-z0-9_]*::\([A-Za-z0-9_]*\)() *\(.*\)/\2/'
  failed=$(grep -E 'FAIL!  :' "$work/$t.log" | sed "$case_of" | sort -u | tr '\n' ' ')
  skips=$(grep -E 'SKIP   :' "$work/$t.log" |
    sed 's/.*SKIP  *: [A-Za-z0-9_]*::\([A-Za-z0-9_]*\)() *\(.*\)/\1 (\2)/' | cut -c1-160)
  cuda_skips=$(grep -E 'SKIP   :' "$work/$t.log" | grep -E 'no CUDA|no GPU|has no CUDA|built without NCCL' |
    sed "$case_of" | sort -u | tr '\n' ' ')
  detail="$passed passed in $(($(date +%s) - started)) s"
  [ -n "$skips" ] && detail+="; skipped: $(echo "$skips" | tr '\n' ';' | sed 's/;$//')"
  verdict=ran
  if [ $status -ne 0 ] || [ -n "$failed" ]; then
    verdict=FAILED
    detail+="; failed: ${failed:-exit $status (see $work/$t.log)}"
  elif [ $cuda = 1 ] && [ -n "$cuda_skips" ]; then
    verdict=FAILED
    detail+="; on $device these must run: $cuda_skips"
  fi
  row "$t" "$verdict" "$detail"
done

"$cli" devices >"$work/devices.txt" 2>&1
row "devices" ran "$(grep -E "^  $device|^  cpu|NCCL|NVML|nvml|GPU trackers" "$work/devices.txt" | tr '\t\n' '  ' | cut -c1-400)"

# ---- training: every strategy on the device, against the same strategy on the CPU
fmnist=
[ -f "$carry/fashion-mnist/train-images-idx3-ubyte.gz" ] && fmnist=$carry/fashion-mnist
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] && [ -z "$fmnist" ] &&
  fmnist=/usr/share/datasets/fashion-mnist

# make_project SOURCE OUT EDIT...: scripts/make-project.py (relative paths made absolute, a
# throughput callback, the keys set).
make_project() { python3 "$root/scripts/make-project.py" "$@"; }

# last_stat RUN_DIR NAME: the last value of NAME in the run's stats.json ("" if none)
last_stat() {
  py "$@" <<'PY'
import json, sys
try:
    stats = json.load(open(sys.argv[1] + "/stats.json"))
except Exception:
    sys.exit(0)
values = [s[sys.argv[2]] for s in stats if sys.argv[2] in s]
print(f"{values[-1]:.4g}" if values else "")
PY
}

# within A B LIMIT: status 0 when A and B are numbers at most LIMIT apart
within() {
  py "$@" <<'PY'
import sys
try:
    a, b, limit = map(float, sys.argv[1:4])
except ValueError:
    sys.exit(1)
sys.exit(0 if abs(a - b) <= limit else 1)
PY
}

# train NAME PROJECT [launch N] : trains into $work/runs/NAME; returns the CLI's status
train() {
  local name=$1 project=$2 dir=$work/runs/$1
  rm -rf "$dir"
  if [ "${3:-}" = launch ]; then
    "$cli" launch --nproc-per-node "$4" "$project" --run-dir "$dir" >"$work/$name.log" 2>&1
  else
    "$cli" train "$project" --run-dir "$dir" >"$work/$name.log" 2>&1
  fi
}

towers_of() {  # strategy device -> the devices JSON
  case $1 in
    sync_parameter_server | sync_replicated | async) echo "[\"$2\", \"$2\"]" ;;
    *) echo "[\"$2\"]" ;;
  esac
}

compare_strategy() {  # project-name source-project strategy [extra edits...]
  local pname=$1 src=$2 strategy=$3; shift 3
  local label="$pname / $strategy"
  local ps=()
  [[ $strategy == sync_parameter_server || $strategy == async ]] && ps=("trainer.ps_device=\"$device\"")
  local dev_json cpu_json
  dev_json=$(towers_of "$strategy" "$device")
  cpu_json=$(towers_of "$strategy" cpu)
  make_project "$src" "$work/$pname-$strategy-dev.json" "trainer.strategy=\"$strategy\"" \
    "trainer.devices=$dev_json" "${ps[@]}" "$@" || { row "$label" FAILED "cannot write the project"; return; }
  make_project "$src" "$work/$pname-$strategy-cpu.json" "trainer.strategy=\"$strategy\"" \
    "trainer.devices=$cpu_json" "$@"
  if [ "$strategy" = distributed ]; then
    # One rank per process; with one GPU, one rank (NCCL refuses two ranks on one GPU).
    train "$pname-$strategy-dev" "$work/$pname-$strategy-dev.json" launch 1
    local status=$?
    train "$pname-$strategy-cpu" "$work/$pname-$strategy-cpu.json" launch 1
  else
    train "$pname-$strategy-dev" "$work/$pname-$strategy-dev.json"
    local status=$?
    train "$pname-$strategy-cpu" "$work/$pname-$strategy-cpu.json"
  fi
  if [ $status -ne 0 ]; then
    row "$label on $dev_json" FAILED "exit $status: $(grep -iE 'error|fail' "$work/$pname-$strategy-dev.log" | tail -2 | tr '\n' ' ' | cut -c1-300)"
    return
  fi
  local d=$work/runs/$pname-$strategy-dev c=$work/runs/$pname-$strategy-cpu
  local ve vc sd sc comm
  ve=$(last_stat "$d" validation_error); vc=$(last_stat "$c" validation_error)
  sd=$(last_stat "$d" ThroughputTracker/steps_per_sec); sc=$(last_stat "$c" ThroughputTracker/steps_per_sec)
  comm=$(grep -ohE 'NCCL[^,;]*|in-process all-reduce|Gloo|towers share a GPU[^;]*' "$d"/log*.log 2>/dev/null | sort -u | head -2 | tr '\n' ' ')
  local verdict=ran
  if [ -n "$ve" ] && [ -n "$vc" ]; then
    py "$ve" "$vc" <<'PY' || verdict=FAILED
import sys
a, b = map(float, sys.argv[1:3])
sys.exit(0 if abs(a - b) <= 0.03 else 1)
PY
  else
    verdict=FAILED
  fi
  row "$label on $dev_json" "$verdict" "validation error $ve (CPU $vc, limit ±0.03)${comm:+; $comm}" "$sd (CPU $sc)"
}

synthetic=$root/projects/synthetic-mlp.json
for strategy in simple queue_input sync_parameter_server sync_replicated async distributed; do
  compare_strategy synthetic "$synthetic" "$strategy"
done
if [ -n "$fmnist" ]; then
  for strategy in queue_input sync_replicated distributed; do
    compare_strategy fashion-mlp "$root/projects/fashion-mnist-mlp.json" "$strategy" \
      "+fmnist=$fmnist" "max_epoch=1"
  done
else
  row "fashion-mnist-mlp" skipped "no Fashion-MNIST IDX files in $carry/fashion-mnist or /usr/share/datasets"
fi

if [ $cuda = 1 ]; then
  # ---- NCCL in one process: one tower (one GPU cannot hold two NCCL ranks)
  make_project "$synthetic" "$work/nccl.json" 'trainer.strategy="sync_replicated"' "trainer.devices=[\"$device\"]"
  if train nccl "$work/nccl.json"; then
    row "NcclCommunicator (sync_replicated, 1 tower)" ran "$(grep -ohE 'SyncReplicatedTrainer: .*' "$work/runs/nccl/log.log" | head -1)" "$(last_stat "$work/runs/nccl" ThroughputTracker/steps_per_sec)"
  else
    row "NcclCommunicator (sync_replicated, 1 tower)" FAILED "$(tail -2 "$work/nccl.log" | tr '\n' ' ')"
  fi

  # ---- GPU trackers through the real NVML
  make_project "$synthetic" "$work/tracker.json" "trainer.devices=[\"$device\"]" +gpu_tracker
  if train tracker "$work/tracker.json"; then
    util=$(last_stat "$work/runs/tracker" "GPUUtil/$device"); mem=$(last_stat "$work/runs/tracker" "PeakMemory(MB)/$device")
    if [ -n "$util" ] && [ -n "$mem" ]; then
      row "gpu_tracker (NVML)" ran "GPUUtil/$device $util, PeakMemory(MB)/$device $mem"
    else
      row "gpu_tracker (NVML)" FAILED "no GPUUtil/PeakMemory scalars: $(grep -i nvml "$work/runs/tracker/log.log" | head -1)"
    fi
  else
    row "gpu_tracker (NVML)" FAILED "$(tail -2 "$work/tracker.log" | tr '\n' ' ')"
  fi

  # ---- resume on the GPU (issue 25, F1 and F5): Adam's state back on cuda:0 and the CUDA
  # generator restored (dropout). 2 epochs in one go against 1 epoch, then --resume to 2.
  make_project "$synthetic" "$work/resume.json" "trainer.devices=[\"$device\"]" \
    'optimizer={"type": "adam", "learning_rate": 0.01}' 'model.dropout=0.3' 'max_epoch=2'
  train resume-whole "$work/resume.json"
  whole_status=$?
  rm -rf "$work/runs/resume-split"
  "$cli" train "$work/resume.json" --run-dir "$work/runs/resume-split" --max-epoch 1 >"$work/resume-split.log" 2>&1 &&
    "$cli" train "$work/resume.json" --run-dir "$work/runs/resume-split" --resume --max-epoch 2 >>"$work/resume-split.log" 2>&1
  split_status=$?
  if [ $whole_status -ne 0 ] || [ $split_status -ne 0 ]; then
    row "resume on the GPU (adam, dropout)" FAILED "exit $whole_status / $split_status: $(grep -iE 'error|fail' "$work/resume-split.log" "$work/resume-whole.log" | tail -2 | tr '\n' ' ' | cut -c1-300)"
  else
    # Every epoch's cost and validation error, at full precision, within 1e-6 (relative).
    detail=$(py "$work/runs/resume-whole" "$work/runs/resume-split" <<'PY'
import json, sys
def series(run, name):
    return [s[name] for s in json.load(open(run + "/stats.json")) if name in s]
worst, lines = 0.0, []
for name in ("cost", "validation_error"):
    a, b = series(sys.argv[1], name), series(sys.argv[2], name)
    if len(a) != len(b) or not a:
        print(f"{name}: {len(b)} values resumed, {len(a)} uninterrupted"); sys.exit(1)
    worst = max([worst] + [abs(x - y) / max(1.0, abs(x)) for x, y in zip(a, b)])
    lines.append(f"{name} {b[-1]:.6g} resumed, {a[-1]:.6g} uninterrupted")
print("; ".join(lines) + f"; largest relative difference {worst:.2g}")
sys.exit(0 if worst <= 1e-6 else 1)
PY
)
    compared=$?
    verdict=ran
    [ $compared -eq 0 ] || verdict=FAILED
    row "resume on the GPU (adam, dropout)" "$verdict" "$detail"
  fi

  # ---- StagingInput: queue_input with and without staging
  for staging in true false; do
    make_project "$synthetic" "$work/staging-$staging.json" 'trainer.strategy="queue_input"' \
      "trainer.devices=[\"$device\"]" "trainer.staging=$staging" "max_epoch=6"
    if train "staging-$staging" "$work/staging-$staging.json"; then
      row "StagingInput (queue_input, staging $staging)" ran "validation error $(last_stat "$work/runs/staging-$staging" validation_error)" "$(last_stat "$work/runs/staging-$staging" ThroughputTracker/steps_per_sec)"
    else
      row "StagingInput (queue_input, staging $staging)" FAILED "$(tail -2 "$work/staging-$staging.log" | tr '\n' ' ')"
    fi
  done
  # Issue 33: staging on must not be slower than off (5% for noise).
  on=$(last_stat "$work/runs/staging-true" ThroughputTracker/steps_per_sec)
  off=$(last_stat "$work/runs/staging-false" ThroughputTracker/steps_per_sec)
  if [ -n "$on" ] && [ -n "$off" ]; then
    verdict=ran
    py "$on" "$off" <<'PY' || verdict=FAILED
import sys
on, off = map(float, sys.argv[1:3])
sys.exit(0 if on >= 0.95 * off else 1)
PY
    row "StagingInput on >= off" "$verdict" "on $on, off $off steps/s (limit: on >= 0.95 x off)"
  else
    row "StagingInput on >= off" FAILED "a staging run has no steps/s"
  fi

  # ---- issue 33: the resident training set (data.resident) trains as the streaming pipeline
  # does (the same batches) and reports host_syncs_per_step; the project's default callbacks
  # with a steady-state epoch (500 steps).
  for resident in false true; do
    make_project "$synthetic" "$work/resident-$resident.json" 'trainer.strategy="queue_input"' \
      "trainer.devices=[\"$device\"]" "data.resident=$resident" "max_epoch=2" "steps_per_epoch=500"
    train "resident-$resident" "$work/resident-$resident.json" ||
      row "resident dataset ($resident)" FAILED "$(tail -2 "$work/resident-$resident.log" | tr '\n' ' ')"
  done
  rf=$work/runs/resident-false rt=$work/runs/resident-true
  vf=$(last_stat "$rf" validation_error) vt=$(last_stat "$rt" validation_error)
  syncs=$(last_stat "$rt" ThroughputTracker/host_syncs_per_step)
  verdict=ran
  within "$vf" "$vt" 1e-3 || verdict=FAILED
  row "resident dataset (data.resident)" "$verdict" "validation error $vt (streaming $vf, limit ±1e-3); $(grep -ohE 'data.resident: [^(]*\([^)]*\) held on [a-z0-9:]*' "$rt/log.log" | head -1)" "$(last_stat "$rt" ThroughputTracker/steps_per_sec) (streaming $(last_stat "$rf" ThroughputTracker/steps_per_sec))"
  verdict=ran
  py "${syncs:-nan}" <<'PY' || verdict=FAILED
import sys
v = float(sys.argv[1])
sys.exit(0 if v <= 0.1 else 1)
PY
  row "host_syncs_per_step (steady state, default callbacks)" "$verdict" "$syncs reads of the device a step in epoch 2 (limit 0.1)"

  # ---- issue 33: TF32 for matrix products and convolutions ("all") against none, on the ConvNet
  # when Fashion-MNIST is here (else the synthetic MLP): both train, and agree.
  tf32src=$synthetic tf32edits=()
  if [ -n "$fmnist" ]; then
    tf32src=$root/projects/fashion-mnist-convnet.json tf32edits=("+fmnist=$fmnist" "max_epoch=1" "steps_per_epoch=200")
  fi
  for tf32 in none all; do
    make_project "$tf32src" "$work/tf32-$tf32.json" "trainer.devices=[\"$device\"]" \
      "speed={\"tf32\": \"$tf32\"}" "${tf32edits[@]}"
    train "tf32-$tf32" "$work/tf32-$tf32.json" ||
      row "TF32 $tf32" FAILED "$(tail -2 "$work/tf32-$tf32.log" | tr '\n' ' ')"
  done
  a=$(last_stat "$work/runs/tf32-all" validation_error) n=$(last_stat "$work/runs/tf32-none" validation_error)
  verdict=ran
  within "$a" "$n" 0.03 || verdict=FAILED
  row "TF32 all vs none" "$verdict" "validation error $a (none: $n, limit ±0.03); $(grep -ohE 'speed: TF32[^;]*' "$work/runs/tf32-all/log.log" | head -1)" "$(last_stat "$work/runs/tf32-all" ThroughputTracker/steps_per_sec) (none: $(last_stat "$work/runs/tf32-none" ThroughputTracker/steps_per_sec))"
  # ---- the sweep queue (issue 27): a CUDA project's trials each get one GPU (the slot's entry
  # of CUDA_VISIBLE_DEVICES) seen as cuda:0; two trials, one slot, hyperband on.
  make_project "$synthetic" "$work/sweep-base.json" "trainer.devices=[\"$device\"]" \
    "max_epoch=3" "run_root=\"$work/runs\""
  py "$work/sweep.json" <<'PY'
import json, sys
json.dump({"project": "sweep-base.json", "method": "grid",
           "metric": {"name": "validation_error"},
           "parameters": {"optimizer.learning_rate": {"values": [0.05, 0.02]}},
           "early_terminate": {"type": "hyperband", "min_iter": 1, "eta": 3}},
          open(sys.argv[1], "w"))
PY
  rm -rf "$work/sweeps"
  if "$cli" sweep "$work/sweep.json" --sweep-dir "$work/sweeps/s" --slots 1 >"$work/sweep.log" 2>&1; then
    detail=$(py "$work/sweeps/s/sweep-state.json" <<'PY'
import json, sys
state = json.load(open(sys.argv[1]))
ok, parts = True, []
for t in state["trials"]:
    devices = json.load(open(t["run_dir"] + "/project.json"))["trainer"]["devices"]
    ok &= t["state"] in ("finished", "pruned") and devices == ["cuda:0"]
    parts.append(f"trial {t['index']} {t['state']} on {devices[0]}, {len(t['metric'])} epochs")
print("; ".join(parts))
sys.exit(0 if ok else 1)
PY
)
    checked=$?
    verdict=ran
    [ $checked -eq 0 ] || verdict=FAILED
    row "sweep queue (one GPU per slot)" "$verdict" "$detail"
  else
    row "sweep queue (one GPU per slot)" FAILED "$(tail -3 "$work/sweep.log" | tr '\n' ' ' | cut -c1-300)"
  fi
else
  row "NcclCommunicator" skipped "no GPU (--device $device)"
  row "gpu_tracker (NVML)" skipped "no GPU (--device $device)"
  row "resume on the GPU" skipped "no GPU (--device $device): tests/engine/train/test_Resume on the CPU"
  row "StagingInput side stream" skipped "no GPU: CPU towers take the host batch (tests/engine/input/test_StagingInput)"
  row "resident dataset, host_syncs_per_step, TF32" skipped "no GPU: the CPU paths are tests/app/test_Projects"
  row "sweep queue (one GPU per slot)" skipped "no GPU: the queue on the CPU is tests/app/test_Sweeps"
fi

# ---- mixed precision on the Fashion-MNIST ConvNet (the synthetic MLP without the data)
precisions="32 bf16-mixed"
[ $cuda = 1 ] && precisions="32 bf16-mixed 16-mixed"
if [ -n "$fmnist" ]; then
  pname=convnet; src=$root/projects/fashion-mnist-convnet.json; extra=("+fmnist=$fmnist" "max_epoch=2")
  [ $cuda = 0 ] && extra+=("steps_per_epoch=60")
else
  pname=synthetic; src=$synthetic; extra=()
fi
for precision in $precisions; do
  make_project "$src" "$work/precision-$precision.json" "precision=\"$precision\"" \
    "trainer.devices=[\"$device\"]" "${extra[@]}"
  if train "precision-$precision" "$work/precision-$precision.json"; then
    d=$work/runs/precision-$precision
    detail="$pname: validation error $(last_stat "$d" validation_error), cost $(last_stat "$d" cost)"
    [ "$precision" = 16-mixed ] && detail+=", grad_scale $(last_stat "$d" grad_scale), skipped_steps $(last_stat "$d" skipped_steps)"
    row "precision $precision" ran "$detail" "$(last_stat "$d" ThroughputTracker/steps_per_sec)"
  else
    row "precision $precision" FAILED "$(grep -iE 'error' "$work/precision-$precision.log" | tail -1 | cut -c1-300)"
  fi
done
[ $cuda = 0 ] && row "precision 16-mixed" skipped "needs CUDA towers (CPU autocast has no float16)"

# ---- the table
table=$(py "$rows" "$device" "$torch_version" "$gpu_name" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
out = [f"gpu-check on {sys.argv[2]} ({sys.argv[4]}), torch {sys.argv[3]}", "",
       "| check | result | detail | steps/s |", "|---|---|---|---|"]
for r in rows:
    r += [""] * (4 - len(r))
    out.append("| " + " | ".join(c.replace("|", "/") for c in r[:4]) + " |")
failed = sum(r[1] == "FAILED" for r in rows)
skipped = sum(r[1] == "skipped" for r in rows)
out += ["", f"{len(rows)} rows: {len(rows) - failed - skipped} ran, {skipped} skipped, {failed} failed"]
print("\n".join(out))
PY
)
echo
echo "$table"
[ -n "$report" ] && echo "$table" >"$report"
! grep -q $'\tFAILED\t' "$rows"
