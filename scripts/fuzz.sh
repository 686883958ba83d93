#!/usr/bin/env bash
# Coverage-guided fuzzing of the file readers (fuzz/README.md).
#
#   scripts/fuzz.sh --build [TARGET...]  builds the targets (default: all) into build-fuzz/
#   scripts/fuzz.sh TARGET SECONDS   builds, then fuzzes TARGET for SECONDS
#
# TARGET is one of: csv_table zip_archive image_decode run_scalars checkpoint_index idx_file
# npy_file run_status checkpoint_file project_json stats_json.
# The targets are built with clang++ (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer)
# straight from the engine's sources, not with CMake: the normal build (gcc) only replays the
# corpora (fuzz/CMakeLists.txt, the fuzz_replay_* tests). The campaign works on a copy of
# fuzz/corpus/TARGET under build-fuzz/corpus/TARGET (the inputs it finds stay there; copy the
# useful ones into fuzz/corpus/TARGET by hand) and writes the inputs that fail into
# fuzz/crashes/TARGET/, which the replay tests then run too.
#
# Needs clang-14 and libclang-rt-14-dev (scripts/setup.sh); CXX overrides the compiler.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/build-fuzz"
cxx="${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++ || true)}"
targets=(csv_table zip_archive image_decode run_scalars checkpoint_index idx_file npy_file
  run_status checkpoint_file project_json stats_json)

usage() {
  echo "usage: $0 --build [TARGET...] | TARGET SECONDS   (TARGET: ${targets[*]})" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
if [[ -z "$cxx" ]]; then
  echo "fuzz.sh: no clang++ (install clang-14 and libclang-rt-14-dev: scripts/setup.sh)" >&2
  exit 1
fi

sanitize=(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
cxxflags=(-std=c++17 -O1 -g -fno-omit-frame-pointer "${sanitize[@]}" -I"$repo")
# LibTorch's headers (every source gets them; only some include them): for the readers that
# make tensors (IdxFile, NpyFile), CheckpointIndex.h (it includes Checkpoint.h and with it
# TrainingState) and Callback.h (RunStatus.cpp's RunStatusWriter is a TrainingMonitor). LibTorch itself is not instrumented:
# only our code counts for coverage and is checked by the sanitizers.
torch_flags=(-isystem /usr/include/torch/csrc/api/include -D_GLIBCXX_USE_CXX11_ABI=1)

# The engine sources of each target, and what it links.
sources_of() {
  local common="engine/core/Check.cpp engine/core/Logging.cpp engine/core/AtomicFile.cpp"
  case "$1" in
    csv_table) echo "$common engine/data/formats/CsvTable.cpp" ;;
    zip_archive) echo "$common engine/data/formats/ZipArchive.cpp" ;;
    image_decode) echo "$common engine/data/formats/ImageDecode.cpp" ;;
    run_scalars) echo "$common engine/run/RunScalars.cpp" ;;
    checkpoint_index)
      echo "$common engine/checkpoint/CheckpointIndex.cpp fuzz/stub_checkpoint_file.cpp" ;;
    idx_file) echo "$common engine/data/formats/IdxFile.cpp" ;;
    npy_file) echo "$common engine/data/formats/ZipArchive.cpp engine/data/formats/NpyFile.cpp" ;;
    # RunStatus.cpp also holds RunStatusWriter (a TrainingMonitor, so Callback.cpp) and reads
    # the checkpoint index for the best values.
    run_status)
      echo "$common engine/run/RunStatus.cpp engine/callbacks/Callback.cpp" \
        "engine/checkpoint/CheckpointIndex.cpp fuzz/stub_checkpoint_file.cpp" ;;
    # JSONWriter is a TrainingMonitor (Callback.cpp).
    stats_json) echo "$common engine/monitors/JSONWriter.cpp engine/callbacks/Callback.cpp" ;;
    checkpoint_file)
      echo "$common engine/checkpoint/Checkpoint.cpp engine/checkpoint/OptimizerState.cpp" \
        "engine/checkpoint/PlainPickle.cpp engine/checkpoint/RngState.cpp" \
        "engine/checkpoint/ZipIntegrity.cpp engine/checkpoint/WeightsFile.cpp" \
        "engine/checkpoint/TorchSaveFile.cpp engine/checkpoint/Safetensors.cpp" \
        "engine/checkpoint/CheckpointIndex.cpp" ;;
    # Parsing and validation; the registry's built-in types (their factories reach every engine
    # library) come from the normal build's libraries (engine_libs), not instrumented.
    project_json)
      echo "$common engine/project/ProjectFiles.cpp engine/project/JsonReader.cpp" \
        "engine/project/ProjectJson.cpp engine/project/ProjectStructure.cpp" \
        "engine/project/Project.cpp engine/project/registry/ComponentRegistry.cpp" \
        "engine/project/registry/KeyDescription.cpp" ;;
    *) usage ;;
  esac
}
libs_of() {
  case "$1" in
    zip_archive) echo "-lz" ;;
    image_decode) echo "-lpng -ljpeg" ;;
    checkpoint_index | run_status | stats_json) echo "-lc10" ;;
    idx_file | npy_file | checkpoint_file) echo "-ltorch -ltorch_cpu -lc10 -lz" ;;
    project_json) engine_libs ;;
  esac
}

# What the normal build (build/, or TB_BUILD) links fuzz_replay_project_json with: its engine
# libraries (gcc, not instrumented) and theirs. project_json takes the built-in component types
# from them; the clang objects come first, so the archives' copies of them are not used.
engine_libs() {
  local build="${TB_BUILD:-$repo/build}" line
  line="$(awk '/^build fuzz\/fuzz_replay_project_json:/ {f = 1}
               f && /^ *LINK_LIBRARIES = / {sub(/^ *LINK_LIBRARIES = /, ""); print; exit}' \
          "$build/build.ninja" 2>/dev/null || true)"
  if [[ -z "$line" ]]; then
    echo "fuzz.sh: $build/build.ninja has no fuzz_replay_project_json: configure the project" >&2
    exit 1
  fi
  local lib
  for lib in ${line//\"/}; do
    # The engine's archives are named relative to the build directory.
    if [[ "$lib" == engine/* ]]; then echo -n "$build/$lib "; else echo -n "$lib "; fi
  done
}

# Compiles `source` (relative to the repository) into $object unless the object is newer than
# it and every header it included (clang's -MMD list).
compile() {
  local source="$1"
  object="$out/obj/${1//\//_}.o"
  local flags=("${cxxflags[@]}" "${torch_flags[@]}" -fsanitize=fuzzer-no-link)
  if [[ -f "$object" && -f "$object.d" ]]; then
    local stale=0 dep
    for dep in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$object.d"); do
      if [[ ! -e "$dep" || "$dep" -nt "$object" ]]; then
        stale=1
        break
      fi
    done
    [[ $stale == 0 ]] && return
  fi
  echo "fuzz.sh: compiling $source" >&2
  "$cxx" "${flags[@]}" -MMD -MF "$object.d" -c "$repo/$source" -o "$object"
}

build() {
  local target="$1" objects=() source
  for source in $(sources_of "$target") "fuzz/fuzz_$target.cpp"; do
    compile "$source"
    objects+=("$object")
  done
  # shellcheck disable=SC2046
  "$cxx" "${cxxflags[@]}" -fsanitize=fuzzer "${objects[@]}" $(libs_of "$target") \
    -o "$out/fuzz_$target"
}

mkdir -p "$out/obj"
if [[ "$1" == "--build" ]]; then
  shift
  [[ $# -gt 0 ]] || set -- "${targets[@]}"
  for t in "$@"; do
    printf '%s\n' "${targets[@]}" | grep -qx "$t" || usage
    build "$t"
    echo "fuzz.sh: built $out/fuzz_$t"
  done
  exit 0
fi

[[ $# -eq 2 && "$2" =~ ^[0-9]+$ ]] || usage
target="$1" seconds="$2"
printf '%s\n' "${targets[@]}" | grep -qx "$target" || usage
build "$target"

work="$out/corpus/$target"
crashes="$repo/fuzz/crashes/$target"
mkdir -p "$work" "$crashes"
cp -n "$repo/fuzz/corpus/$target/"* "$work/" 2>/dev/null || true
echo "fuzz.sh: fuzzing $target for ${seconds}s (corpus $work, $(ls "$work" | wc -l) inputs)"
log="$out/fuzz_$target.log"
set +e
# The campaign's scratch files (fuzz/FuzzScratch.h) go to /dev/shm; it runs in $out.
# A target's known leaks in libraries we do not build (fuzz/lsan_<target>.supp) are suppressed.
supp="$repo/fuzz/lsan_$target.supp"
[[ -f "$supp" ]] && export LSAN_OPTIONS="suppressions=$supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
(cd "$out" && "./fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$crashes/" "$work") >"$log" 2>&1
status=$?
set -e
# The last coverage line and the final stats (execs, cov, ft, corpus).
grep -E '^#[0-9]+.*(cov|DONE)' "$log" | tail -n 2
grep -E '^stat::' "$log" || true
echo "fuzz.sh: corpus $(ls "$work" | wc -l) inputs; log $log"
if [[ $status -ne 0 ]]; then
  echo "fuzz.sh: $target failed (exit $status): see $log; the input is in $crashes/" >&2
  grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 20 >&2 || true
  exit "$status"
fi
