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

# fuzz_objects DIR CFLAGS... -- SOURCES...: each source compiled on its own
# into DIR/PATH.o (PATH: the source's, less .c), the objects' paths in
# FUZZ_OBJS; 1 at the first that does not compile. Through ccache when it
# is installed, like the Makefile's compiles: a target built as one clang
# command (sources and link together) is nothing ccache can keep, and the
# four fuzz targets compiled most of lab/ again in every run (about 19 s of
# CPU for test 71's alone). Give the sources coverage with
# -fsanitize=fuzzer-no-link and link with -fsanitize=fuzzer.
fuzz_objects() {
	local dir=$1 f o
	local flags=() cc=(clang)
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	command -v ccache >/dev/null && cc=(ccache clang)
	FUZZ_OBJS=()
	for f in "$@"; do
		o=$dir/${f%.c}.o
		mkdir -p "${o%/*}" || return 1
		"${cc[@]}" "${flags[@]}" -c -o "$o" "$f" || return 1
		FUZZ_OBJS+=("$o")
	done
}
