#!/usr/bin/env bash
# Issue 33's benchmark matrix: Towerbench on a GPU against the engine's own limit, against
# PyTorch on the same GPU and against the machine's CPU, one markdown table.
#
#   bench/gpu-matrix.sh [--build DIR] [--device DEV] [--steps N] [--report FILE] [--python PATH]
#                       [--projects LIST] [--no-build] [--no-compile] [--workers W]
#                       [--validation-limit N] [--resnet-width W] [--carry DIR]
#
# Rows: the synthetic MLP (projects/synthetic-mlp.json), the Fashion-MNIST MLP and ConvNet
# (batch 128), a compute-bound ResNet in TorchScript on 32x32 RGB at batch 256
# (bench/resnet-bench.json; bench/make_resnet_bench.py writes the network and its data into the
# build directory) and the image-folder project (its PNGs from projects/assets, or made from
# Fashion-MNIST). Columns:
#   Towerbench  `towerbench-cli train` of the project (its strategy, callbacks and monitors;
#               trainer.devices set to DEV): steps/s and samples/s at precision 32 and
#               bf16-mixed, the throughput callback's figure of the second of two epochs (the
#               first warms up CUDA, cuDNN and the allocator); host_syncs_per_step from the
#               same entry ("-" where the callback does not put it); the GPU's utilisation
#               (nvidia-smi every 100 ms, averaged over that second epoch; "-" without it)
#   hand loop   bench_device_loop (bench/bench_device_loop.cpp): a hand-written LibTorch loop
#               over the project's model and optimizer with 50 batches resident on DEV, 32-bit:
#               the limit for the engine. Without it, the Fashion MLP and ConvNet rows on the
#               CPU take bench_train_throughput's hand loop (marked *), the others say "-"
#   PyTorch     bench/pytorch_matrix.py with the same project, 32-bit: a DataLoader as users
#               write it, the data preloaded on DEV, and torch.compile ("-" where it is missing
#               or fails)
#   CPU         Towerbench at precision 32 with trainer.devices ["cpu"], on this machine's cores
#   ratios      Towerbench 32 / hand loop, / PyTorch with its DataLoader, / CPU (steps/s)
#
#   --build DIR     the headless build of scripts/gpu-check.sh (default build-gpu). Reused when
#                   DIR/bin/towerbench-cli exists; otherwise built once by `gpu-check.sh --phase
#                   build`. bench_device_loop is then built in DIR if missing (the benchmarks
#                   switched on in its CMake cache; nothing else is rebuilt)
#   --device DEV    cuda:0 (default), cuda:N or cpu. "cpu" runs every column on the CPU: a dry
#                   run anywhere (the CPU column then repeats the device's)
#   --steps N       the unit of timed steps (default 200): an epoch of the synthetic MLP is
#                   10 N steps, of the Fashion MLP 4 N, of the ConvNet 2 N, of the ResNet and the
#                   image folder N; runs on the CPU divide that by 1, 4, 40, 100 and 4 (at least
#                   3). Every figure covers that many steps (PyTorch's and the hand loop's after
#                   10 warm-up steps, 3 on the CPU)
#   --report FILE   also write the table there
#   --python PATH   the Python with torch for PyTorch's columns and the ResNet maker (default:
#                   python3 when it imports torch, else /usr/bin/python3)
#   --projects L    the rows, comma-separated: synthetic,fashion-mlp,convnet,resnet,image-folder
#                   (default all; a GPU lease's command lasts 10 minutes: split the rows)
#   --no-build      configure and build nothing: what is missing is "-"
#   --no-compile    leave torch.compile out (its column "-")
#   --workers W     the PyTorch DataLoader's num_workers (default min(4, cores))
#   --validation-limit N  validate on the first N samples only (data.validation.limit); default:
#                   the project's own validation. The throughput excludes validation either way
#   --resnet-width W      the ResNet's first width (default 64; 16 makes a 16x lighter one for
#                   a quick run on a small CPU)
#   --carry DIR     as gpu-check.sh's (default .gpu-carry): Fashion-MNIST's IDX files from
#                   DIR/fashion-mnist when /usr/share/datasets/fashion-mnist has none
#
# Progress goes to stderr and each run's output to DIR/gpu-matrix/; the table to stdout. Exit
# status: 0 when no Towerbench run failed. What a figure does not show: a queue strategy's
# producer fills its queue (queue_size, 50 batches) while the first epoch's callbacks run, so
# the timed epoch starts with batches ready; with the default --steps that is at most a quarter
# of the image folder's and the ResNet's epoch, less of the others.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-gpu
carry=$root/.gpu-carry
device=cuda:0
steps=200
report=
python=
rows_wanted=synthetic,fashion-mlp,convnet,resnet,image-folder
no_build=0
compile=1
workers=
validation_limit=0
resnet_width=64
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --carry) carry=$(realpath -m "$2"); shift 2 ;;
    --device) device=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --report) report=$(realpath -m "$2"); shift 2 ;;
    --python) python=$2; shift 2 ;;
    --projects) rows_wanted=$2; shift 2 ;;
    --no-build) no_build=1; shift ;;
    --no-compile) compile=0; shift ;;
    --workers) workers=$2; shift 2 ;;
    --validation-limit) validation_limit=$2; shift 2 ;;
    --resnet-width) resnet_width=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) echo "gpu-matrix: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for n in "$steps" "$validation_limit" "$resnet_width" ${workers:+"$workers"}; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "gpu-matrix: $n is not a count" >&2; exit 2; }
done
if [ "$steps" -lt 1 ] || [ "$resnet_width" -lt 1 ]; then
  echo "gpu-matrix: --steps and --resnet-width are at least 1" >&2
  exit 2
fi
case $device in
  cpu) cuda=0 ;;
  cuda) cuda=1; device=cuda:0 ;;
  cuda:[0-9]*) cuda=1 ;;
  *) echo "gpu-matrix: --device cpu or cuda:N" >&2; exit 2 ;;
esac
gpu_index=${device#cuda:}
warmup=3  # steps before the clock starts in the hand loop and PyTorch: compiling needs more
[ $cuda = 1 ] && warmup=10
cores=$(nproc)
[ -n "$workers" ] || workers=$((cores < 4 ? cores : 4))
if [ -z "$python" ]; then
  python=/usr/bin/python3
  python3 -c 'import torch' 2>/dev/null && python=$(command -v python3)
fi

say() { echo "gpu-matrix: $*" >&2; }
die() { say "$*"; exit 1; }
work=$build/gpu-matrix
results=$work/results.tsv  # row, key, value: what the table is made of
mkdir -p "$work/runs" "$work/projects" || die "cannot write $work"
: >"$results"
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }
py() { "$python" - "$@"; }

torch_info=$("$python" -c 'import torch; print(torch.__version__)' 2>&1) ||
  die "$python cannot import torch: ${torch_info##*$'\n'}"

# ---- the build: reused, or gpu-check.sh's build phase once
cli=$build/bin/towerbench-cli
if [ ! -x "$cli" ]; then
  [ $no_build = 1 ] && die "no $cli, and --no-build"
  say "no $cli: building the headless configuration (scripts/gpu-check.sh --phase build)"
  "$root/scripts/gpu-check.sh" --phase build --build "$build" --carry "$carry" --device "$device" \
    >"$work/build.log" 2>&1 || die "the build failed; the end of $work/build.log: $(tail -3 "$work/build.log" | tr '\n' ' ')"
fi
# What gpu-check.sh carried for this build (Debian packages unpacked into it), as it uses them.
deps=$(cat "$build/gpu-check-deps" 2>/dev/null || true)
if [ -n "$deps" ]; then
  export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PATH=$deps/usr/bin:$PATH
fi
hand=$build/bin/bench_device_loop
if [ ! -x "$hand" ] && [ $no_build = 0 ]; then
  say "building bench_device_loop in $build"
  {
    if grep -q '^TOWERBENCH_BUILD_BENCH:BOOL=OFF' "$build/CMakeCache.txt" 2>/dev/null; then
      cmake -DTOWERBENCH_BUILD_BENCH=ON "$build"
    fi
    cmake --build "$build" --target bench_device_loop
  } >"$work/bench_device_loop-build.log" 2>&1 ||
    say "bench_device_loop did not build (its column is \"-\"): $work/bench_device_loop-build.log"
fi
# Where no bench_device_loop could be had, the Fashion-MNIST MLP and ConvNet rows on the CPU take
# bench_train_throughput's hand-written loop (the same models' defaults, 50 batches in memory).
fallback=$build/bin/bench_train_throughput

# ---- the data
fmnist=
for d in /usr/share/datasets/fashion-mnist "$carry/fashion-mnist"; do
  [ -f "$d/train-images-idx3-ubyte.gz" ] && { fmnist=$d; break; }
done

# make_project SOURCE OUT EDIT...: scripts/make-project.py (relative paths made absolute, a
# throughput callback, the keys set).
make_project() { python3 "$root/scripts/make-project.py" "$@"; }

# run_stats RUN_DIR [NVSMI_FILE]: "steps/s samples/s host_syncs nvml" of the run's last
# throughput entry (its second epoch), "-" for what is not there.
run_stats() {
  py "$@" <<'PY'
import datetime, json, sys
run = sys.argv[1]
try:
    stats = json.load(open(run + "/stats.json"))
except Exception:
    print("- - - -"); sys.exit(0)
entries = [s for s in stats if "ThroughputTracker/steps_per_sec" in s]
if not entries:
    print("- - - -"); sys.exit(0)
last = entries[-1]
syncs = [v for k, v in last.items() if k.endswith("host_syncs_per_step")]
fields = [f"{last['ThroughputTracker/steps_per_sec']:.1f}",
          f"{last.get('ThroughputTracker/samples_per_sec', 0):.0f}",
          f"{syncs[0]:.3g}" if syncs else "-"]
# NVML: the samples taken between the first and the last scalar of the timed epoch.
nvml = "-"
if len(sys.argv) > 2:
    epoch = last.get("epoch_num", 2)
    times = []
    try:
        for line in open(run + "/scalars.jsonl"):
            s = json.loads(line)
            if s.get("epoch") == epoch and s.get("name") == "cost":
                times.append(s["time"])
    except Exception:
        pass
    samples = []
    try:
        for line in open(sys.argv[2]):
            stamp, _, value = line.rpartition(",")
            t = datetime.datetime.strptime(stamp.strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
            samples.append((t, float(value)))
    except Exception:
        pass
    if times and samples:
        inside = [v for t, v in samples if min(times) <= t <= max(times)]
        if inside:
            nvml = f"{sum(inside) / len(inside):.0f}%({len(inside)})"
print(" ".join(fields + [nvml]))
PY
}

# towerbench NAME PROJECT PRECISION DEVICE STEPS: trains 2 epochs of STEPS steps into
# $work/runs/NAME (nvidia-smi sampling the GPU meanwhile); prints run_stats' fields.
towerbench() {
  local name=$1 project=$2 precision=$3 dev=$4 n=$5 sampler='' nvsmi=''
  local dir=$work/runs/$name
  rm -rf "$dir"
  if [[ $dev == cuda* ]] && command -v nvidia-smi >/dev/null; then
    nvsmi=$work/$name.nvidia-smi.csv
    nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader,nounits \
      -i "$gpu_index" -lms 100 >"$nvsmi" 2>/dev/null &
    sampler=$!
  fi
  say "$name: towerbench-cli train, $precision on $dev, 2 epochs of $n steps"
  "$cli" train "$project" --run-dir "$dir" --max-epoch 2 --steps-per-epoch "$n" \
    --set "trainer.devices=[\"$dev\"]" --set "precision=\"$precision\"" >"$work/$name.log" 2>&1
  local status=$?
  if [ -n "$sampler" ]; then
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
  fi
  if [ $status -ne 0 ]; then
    say "$name: FAILED (exit $status): $(grep -iE 'error|fail' "$work/$name.log" | tail -1 | cut -c1-200)"
    echo "FAILED FAILED - -"
    return
  fi
  run_stats "$dir" ${nvsmi:+"$nvsmi"}
}

# hand_loop NAME PROJECT DEVICE STEPS ROW: steps/s of the hand-written LibTorch loop, or "-".
hand_loop() {
  local name=$1 project=$2 dev=$3 n=$4 row=$5
  if [ -x "$hand" ]; then
    say "$name: bench_device_loop, 32 on $dev, $n steps"
    if "$hand" "$project" --device "$dev" --steps "$n" --warmup "$warmup" >"$work/$name.log" 2>&1; then
      awk '/^steps_per_sec/ {printf "%.1f", $2}' "$work/$name.log"
    else
      say "$name: bench_device_loop failed: $(tail -1 "$work/$name.log" | cut -c1-200)"
      echo "-"
    fi
    return
  fi
  local flag=
  case $row in
    fashion-mlp) flag=--mlp-steps ;;
    convnet) flag=--convnet-steps ;;
  esac
  if [ "$dev" = cpu ] && [ -n "$flag" ] && [ -x "$fallback" ]; then
    say "$name: no bench_device_loop; bench_train_throughput's hand loop, $n steps"
    local other=--convnet-steps
    [ $flag = --convnet-steps ] && other=--mlp-steps
    if "$fallback" --rounds 1 "$flag" "$n" "$other" 0 >"$work/$name.log" 2>&1; then
      awk '/\(median\)/ {printf "%.1f*", $3}' "$work/$name.log"
      return
    fi
  fi
  echo "-"
}

# ---- the rows: name, key, project, steps weight, CPU divisor
declare -A title=([synthetic]="synthetic MLP" [fashion-mlp]="Fashion MLP" [convnet]="Fashion ConvNet"
                  [resnet]="ResNet (TorchScript, 32x32x3)" [image-folder]="image folder (ConvNet, PNGs)")
declare -A source=([synthetic]=projects/synthetic-mlp.json [fashion-mlp]=projects/fashion-mnist-mlp.json
                   [convnet]=projects/fashion-mnist-convnet.json [resnet]=bench/resnet-bench.json
                   [image-folder]=projects/fashion-mnist-image-folder.json)
declare -A weight=([synthetic]=10 [fashion-mlp]=4 [convnet]=2 [resnet]=1 [image-folder]=1)
declare -A divisor=([synthetic]=1 [fashion-mlp]=4 [convnet]=40 [resnet]=100 [image-folder]=4)
IFS=, read -ra rows <<<"$rows_wanted"
for row in "${rows[@]}"; do
  [ -n "${source[$row]:-}" ] || die "unknown row $row (synthetic, fashion-mlp, convnet, resnet, image-folder)"
done

modes=dataloader,preloaded
[ $compile = 1 ] && modes+=,compile
for row in "${rows[@]}"; do
  put "$row" title "${title[$row]}"
  edits=()
  [ "$validation_limit" -gt 0 ] && edits+=("data.validation.limit=$validation_limit")
  case $row in
    fashion-mlp | convnet | image-folder)
      if [ -z "$fmnist" ]; then
        put "$row" skipped "no Fashion-MNIST IDX files in /usr/share/datasets/fashion-mnist or $carry/fashion-mnist"
        continue
      fi
      ;;
  esac
  case $row in
    fashion-mlp | convnet)
      [ "$fmnist" != /usr/share/datasets/fashion-mnist ] &&
        edits+=("data.train.dir=\"$fmnist\"" "data.validation.dir=\"$fmnist\"")
      ;;
    image-folder)
      pngs=$root/projects/assets/fashion-mnist-png
      if [ ! -d "$pngs/train" ]; then
        pngs=$work/fashion-mnist-png
        if [ ! -d "$pngs/train" ]; then
          say "image-folder: writing Fashion-MNIST as PNG folders into $pngs"
          rm -rf "$pngs.tmp"
          if ! "$python" "$root/scripts/make-image-folder.py" "$pngs.tmp" --limit 1000 --source "$fmnist" \
            >"$work/make-image-folder.log" 2>&1; then
            put "$row" skipped "scripts/make-image-folder.py failed: $(tail -1 "$work/make-image-folder.log" | cut -c1-200)"
            continue
          fi
          mv "$pngs.tmp" "$pngs"
        fi
      fi
      edits+=("data.train.dir=\"$pngs/train\"" "data.validation.dir=\"$pngs/test\"")
      ;;
    resnet)
      net=$work/resnet-w$resnet_width.pt
      if ! "$python" "$root/bench/make_resnet_bench.py" --out "$net" --data "$work/resnet-bench" \
        --width "$resnet_width" >"$work/make_resnet_bench.log" 2>&1; then
        put "$row" skipped "bench/make_resnet_bench.py failed: $(tail -1 "$work/make_resnet_bench.log" | cut -c1-200)"
        continue
      fi
      put "$row" title "${title[$row]}, width $resnet_width"
      edits+=("model.path=\"$net\""
              "data.train.features=\"$work/resnet-bench-train-images.npy\""
              "data.train.labels=\"$work/resnet-bench-train-labels.npy\""
              "data.validation.features=\"$work/resnet-bench-test-images.npy\""
              "data.validation.labels=\"$work/resnet-bench-test-labels.npy\"")
      ;;
  esac
  project=$work/projects/$row.json
  if ! make_project "$root/${source[$row]}" "$project" "${edits[@]}"; then
    put "$row" skipped "cannot write $project"
    continue
  fi
  n=$((steps * ${weight[$row]}))
  cpu_n=$((n / ${divisor[$row]}))
  [ $cpu_n -lt 3 ] && cpu_n=3
  dev_n=$n
  [ $cuda = 0 ] && dev_n=$cpu_n
  put "$row" batch "$(py "$project" <<<'import json, sys; print(json.load(open(sys.argv[1])).get("data", {}).get("batch_size", 128))')"
  put "$row" steps "$dev_n"
  put "$row" strategy "$(py "$project" <<<'import json, sys; print(json.load(open(sys.argv[1])).get("trainer", {}).get("strategy", "queue_input"))')"

  for precision in 32 bf16-mixed; do
    read -r sps samples syncs nvml < <(towerbench "$row-$device-$precision" "$project" "$precision" "$device" "$dev_n")
    put "$row" "tb-$precision" "$sps"
    put "$row" "tb-$precision-samples" "$samples"
    put "$row" "syncs-$precision" "$syncs"
    put "$row" "nvml-$precision" "$nvml"
  done
  put "$row" hand "$(hand_loop "$row-$device-hand" "$project" "$device" "$dev_n" "$row")"

  say "$row-$device-pytorch: bench/pytorch_matrix.py, $modes on $device, $dev_n steps"
  threads=()
  [ $cuda = 0 ] && threads=(--threads "$cores")
  log=$work/$row-$device-pytorch.log
  "$python" "$root/bench/pytorch_matrix.py" "$project" --device "$device" --steps "$dev_n" \
    --warmup "$warmup" --modes "$modes" --workers "$workers" "${threads[@]}" >"$log" 2>&1
  for mode in dataloader preloaded compile; do
    value=$(awk -v m="$mode" '$1 == "RESULT" && $2 == m {print $3; exit}' "$log")
    if [ -z "$value" ]; then
      if [ $compile = 1 ] || [ $mode != compile ]; then
        say "$row: PyTorch $mode: no result; the end of $log: $(tail -1 "$log" | cut -c1-200)"
      fi
      value=-
    elif [ "$value" = - ]; then
      why=$(awk -v m="$mode" '$1 == "RESULT" && $2 == m {$1 = $2 = $3 = ""; sub(/^ +/, ""); print; exit}' "$log")
      say "$row: PyTorch $mode: ${why:0:200}"
    else
      value=$(printf '%.1f' "$value")
    fi
    put "$row" "pt-$mode" "$value"
  done

  if [ $cuda = 1 ]; then
    read -r sps _ _ _ < <(towerbench "$row-cpu-32" "$project" 32 cpu "$cpu_n")
    put "$row" cpu "$sps"
    put "$row" cpu-steps "$cpu_n"
  else
    put "$row" cpu "$(awk -F'\t' -v r="$row" '$1 == r && $2 == "tb-32" {v = $3} END {print v}' "$results")"
    put "$row" cpu-steps "$cpu_n"
  fi
done

# ---- the table
gpu=cpu
driver=
if [ $cuda = 1 ] && command -v nvidia-smi >/dev/null; then
  IFS=, read -r gpu driver < <(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i "$gpu_index")
fi
table=$(py "$results" "$device" "$gpu" "${driver# }" "$torch_info" "$steps" "$workers" \
  "$(git -C "$root" rev-parse --short HEAD 2>/dev/null)" "$rows_wanted" <<'PY'
import datetime, os, sys
path, device, gpu, driver, torch_version, steps, workers, commit, order = sys.argv[1:10]
cells = {}
for line in open(path):
    row, key, value = line.rstrip("\n").split("\t", 2)
    cells.setdefault(row, {})[key] = value
cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
def number(v):
    try:
        return float(str(v).rstrip("*"))
    except ValueError:
        return None
def ratio(a, b):
    a, b = number(a), number(b)
    return f"{a / b:.2f}" if a and b else "-"
on = f"{device} ({gpu}, driver {driver})" if device != "cpu" else f"cpu ({cpu})"
out = [f"gpu-matrix on {on}, torch {torch_version} for PyTorch's columns; CPU: {cpu}, "
       f"{os.cpu_count()} cores; commit {commit or '?'}, {datetime.date.today()}; --steps {steps}, "
       f"DataLoader workers {workers}", "",
       "| project | batch | strategy | steps | TB 32 steps/s | TB 32 samples/s | TB bf16 steps/s "
       "| TB bf16 samples/s | host syncs/step (32 / bf16) | GPU util (32 / bf16) | hand loop "
       "steps/s | PyTorch DataLoader | PyTorch preloaded | torch.compile | CPU TB 32 (steps) "
       "| TB / hand | TB / DataLoader | TB / CPU |",
       "|" + "---|" * 18]
notes = []
for row in order.split(","):
    c = cells.get(row, {})
    if "skipped" in c:
        notes.append(f"{c.get('title', row)}: skipped, {c['skipped']}")
        out.append(f"| {c.get('title', row)} |" + " - |" * 17)
        continue
    g = lambda k: c.get(k) or "-"
    syncs = g("syncs-32") if g("syncs-32") == g("syncs-bf16-mixed") else \
        f"{g('syncs-32')} / {g('syncs-bf16-mixed')}"
    util = "-" if g("nvml-32") == "-" and g("nvml-bf16-mixed") == "-" else \
        f"{g('nvml-32')} / {g('nvml-bf16-mixed')}"
    out.append("| " + " | ".join([
        g("title"), g("batch"), g("strategy"), g("steps"), g("tb-32"), g("tb-32-samples"),
        g("tb-bf16-mixed"), g("tb-bf16-mixed-samples"), syncs, util, g("hand"),
        g("pt-dataloader"), g("pt-preloaded"), g("pt-compile"),
        f"{g('cpu')} ({g('cpu-steps')})", ratio(g("tb-32"), g("hand")),
        ratio(g("tb-32"), g("pt-dataloader")), ratio(g("tb-32"), g("cpu"))]) + " |")
out.append("")
out.append("steps: timed steps (one epoch, the second of two for Towerbench); GPU util: "
           "nvidia-smi's mean over that epoch (samples); *: bench_train_throughput's hand loop "
           "(bench_device_loop not built); -: not measured (see the log lines above)")
out += notes
print("\n".join(out))
PY
)
echo
echo "$table"
[ -n "$report" ] && echo "$table" >"$report"
! grep -q $'\tFAILED$' "$results"
