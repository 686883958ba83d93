#!/usr/bin/env bash
# Regenerates the key reference of docs/PROJECT-FORMAT.md (between its GENERATED markers) from
# the component registry: `towerbench-cli types --markdown`. Run after adding or changing a
# component type; test_Registry fails while the page differs.
#   scripts/update-key-reference.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# Built-in types only: plugins from the folders would add theirs.
generated=$("$build/bin/towerbench-cli" types --markdown --no-plugin-folders)
GENERATED="$generated" python3 - docs/PROJECT-FORMAT.md <<'PY'
import os, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
begin, end = "<!-- BEGIN GENERATED KEY REFERENCE -->", "<!-- END GENERATED KEY REFERENCE -->"
start, stop = text.index(begin) + len(begin), text.index(end)
text = text[:start] + "\n" + os.environ["GENERATED"].rstrip("\n") + "\n" + text[stop:]
open(path, "w", encoding="utf-8").write(text)
PY
echo "updated docs/PROJECT-FORMAT.md"
