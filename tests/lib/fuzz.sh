# Shared set-up of the libFuzzer integration tests (sourced): run from the
# repository root, fail/skip as the other tests, and clang with jansson's
# development files (installed when root may, else the test is skipped).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

if ! command -v clang >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang >/dev/null 2>&1
	fi
	command -v clang >/dev/null || skip "clang is not installed (apt-get install clang)"
fi
pkg-config --exists jansson || skip "jansson development files missing"
