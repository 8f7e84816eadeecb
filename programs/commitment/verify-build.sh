#!/usr/bin/env bash
# Rebuilds the commitment program into a temporary directory and checks that the result is
# byte-identical to the committed commitment.so (sha256). Exit 0 when identical, 1 otherwise.
# Requires the same toolchain as build.sh (Debian clang 14.0.6 + python3); see README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash "$here/build.sh" "$tmp" >/dev/null
committed="$(sha256sum "$here/commitment.so" | cut -d' ' -f1)"
rebuilt="$(sha256sum "$tmp/commitment.so" | cut -d' ' -f1)"
echo "committed commitment.so: $committed"
echo "rebuilt   commitment.so: $rebuilt"
if [ "$committed" != "$rebuilt" ]; then
  echo "verify-build.sh: the rebuilt program differs from the committed commitment.so" >&2
  exit 1
fi
echo "verify-build.sh: reproducible build OK"
