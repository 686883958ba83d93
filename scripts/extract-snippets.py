#!/usr/bin/env python3
"""Writes every ```cpp block of a Markdown file, in order, into one C++ file.

    extract-snippets.py DOC.md OUT.cpp

The build compiles OUT.cpp into a test (tests/docs), so the guide's code cannot rot. Each block
is preceded by a #line directive, so compiler errors point into the Markdown file.
"""
import pathlib
import sys


def main() -> int:
    doc, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    lines = doc.read_text(encoding="utf-8").splitlines()
    parts = [f"// Generated from {doc.name} by scripts/extract-snippets.py; do not edit.\n"]
    block, start = None, 0
    for number, line in enumerate(lines, start=1):
        if block is None and line.strip() == "```cpp":
            block, start = [], number + 1
        elif block is not None and line.strip() == "```":
            parts.append(f'#line {start} "{doc.resolve()}"\n' + "\n".join(block) + "\n")
            block = None
        elif block is not None:
            block.append(line)
    if block is not None:
        print(f"{doc}:{start - 1}: unterminated ```cpp block", file=sys.stderr)
        return 1
    if len(parts) == 1:
        print(f"{doc}: no ```cpp block", file=sys.stderr)
        return 1
    text = "".join(parts)
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
