#!/usr/bin/python3
"""Rewrite the column tables of configs/README.md ("Outputs") as `acmesim list columns` prints them.

Each output file's columns are declared once, in its sink's table (io/columns.h); the README holds
them between "<!-- columns of FILE: acmesim list columns -->" and "<!-- end of columns of FILE -->".
tests/app/test_output_columns.cpp fails when they differ; this puts the program's back in place.

Usage (from the repository root, after scripts/build.sh): scripts/columns_doc.py [ACMESIM]
A file the program lists that the README has no block for is an error: place its two marker lines
once, by hand, where the table belongs.
"""
import re
import subprocess
import sys

README = "configs/README.md"
BLOCK = re.compile(r"<!-- columns of (\S+): acmesim list columns -->\n.*?<!-- end of columns of \1 -->\n", re.S)


def main():
    acmesim = sys.argv[1] if len(sys.argv) > 1 else "build/acmesim"
    printed = subprocess.run([acmesim, "list", "columns"], check=True, capture_output=True, text=True).stdout
    blocks = {m.group(1): m.group(0) for m in BLOCK.finditer(printed)}
    with open(README) as f:
        text = f.read()
    missing = [name for name in blocks if not re.search(f"<!-- columns of {re.escape(name)}: ", text)]
    if missing:
        sys.exit(f"{README}: no block for {', '.join(missing)}: add its marker lines where its table belongs")
    text = BLOCK.sub(lambda m: blocks.pop(m.group(1), ""), text)  # a block of a file no longer written goes
    with open(README, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
