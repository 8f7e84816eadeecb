#!/usr/bin/env bash
# Builds the commitment program (c/commitment.c) into an SBPF v0 ELF.
#
# Usage: build.sh [OUTPUT_DIR]   (default: build/)
# Writes OUTPUT_DIR/commitment.so. The committed artifact is ./commitment.so; to refresh it,
# run `bash build.sh && cp build/commitment.so commitment.so`, and check it with verify-build.sh.
# Requires clang (Debian: apt-get install -y clang) and python3; installs nothing.
# Source for the toolchain choice and ELF format: README.md "Building".
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out_dir="${1:-$here/build}"
clang_bin="${CLANG:-clang}"

if ! command -v "$clang_bin" >/dev/null 2>&1; then
  echo "build.sh: clang not found (Debian/Ubuntu: apt-get install -y clang)" >&2
  exit 1
fi
mkdir -p "$out_dir"

# Compile from inside c/ with a relative file name so no absolute path reaches the object.
(cd "$here/c" && "$clang_bin" -target bpf -mcpu=v1 -O2 -fno-builtin -ffreestanding -nostdlib \
  -fno-stack-protector -Wall -Werror -c commitment.c -o "$out_dir/commitment.o")
python3 "$here/tools/sbpf_link.py" "$out_dir/commitment.o" "$out_dir/commitment.so"
echo "built $out_dir/commitment.so ($("$clang_bin" --version | head -n 1))"
