# Shared helpers for the integration tests (sourced).
# Every test runs from the repository root with ./mglrulab built.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
LAB="$ROOT/mglrulab"
TMP=$(mktemp -d /tmp/mglrulab-it.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# json_get FILE EXPR: tiny jq substitute on top of python3's json module.
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2"; }
need_kernel_source() {
	[ -f /usr/src/linux-source-6.12.tar.xz ] || skip "no /usr/src/linux-source-6.12.tar.xz (apt-get install linux-source-6.12)"
}
