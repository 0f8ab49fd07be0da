#!/usr/bin/env bats
# helpers.bats -- the shared test helpers (common.bash, glu.bash, lime.bash)
# fail where they must: expect_error on a wrong status, program name,
# pattern, a second line or anything on stdout; glu_input on an unknown
# tag; glu_read_value on a log without GLU's line; qio_records on a file
# that is not QIO's; cval's columns.  Many Bats files check through these,
# so a helper that always passes would pass them all.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/glu.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() { lat_test_paths lat-convert lat-heatbath; }
setup() { lat_test_dirs; cd "$W"; }

# a stand-in program: MESSAGE on stderr as "prog: MESSAGE", exit STATUS
prog() { echo "prog: $1" >&2; return "$2"; }
# the command (a helper) must fail.  (A bare "! command" before a test's
# last line asserts nothing: bash's errexit ignores negated commands.)
fails() { if "$@" > /dev/null 2>&1; then echo "passed, should have failed: $*"; return 1; fi; }

@test "expect_error: passes on the status, the name and the pattern; the pattern is optional" {
    expect_error 1 prog 'a bad th.ng$' -- prog "a bad thing" 1
    expect_error 2 prog -- prog "whatever" 2
}

@test "expect_error: fails on another status, name or pattern, a second line, stdout, no --" {
    fails expect_error 2 prog 'bad' -- prog "a bad thing" 1
    fails expect_error 0 prog -- true
    fails expect_error 1 other -- prog "a bad thing" 1
    fails expect_error 1 prog 'good' -- prog "a bad thing" 1
    fails expect_error 1 prog -- sh -c 'echo "prog: one" >&2; echo "prog: two" >&2; exit 1'
    fails expect_error 1 prog -- sh -c 'echo out; echo "prog: x" >&2; exit 1'
    fails expect_error 1 prog 'a' 'b' -- prog "a b" 1
}

@test "glu_input: every tag once, the extents and formats given, KEY=VALUE replaces, an unknown tag fails" {
    glu_input SMEARING NERSC MILC 4 2 6 8 SMITERS=1 CONFIG_INFO=x_y > in
    [ "$(grep -c ' = ' in)" -eq "$(wc -l < in)" ]
    [ "$(sed 's/ = .*//' in | sort | uniq -d)" = "" ]
    grep -qx 'MODE = SMEARING' in
    grep -qx 'HEADER = NERSC' in
    grep -qx $'\tSTORAGE = MILC' in
    [ "$(sed -n 's/^\tDIM_\([0-3]\) = /\1:/p' in | tr '\n' ' ')" = "0:4 1:2 2:6 3:8 " ]
    grep -qx $'\tSMITERS = 1' in
    grep -qx 'CONFIG_INFO = x_y' in
    fails glu_input SMEARING NERSC MILC 4 2 6 8 NO_SUCH_TAG=1
}

@test "glu_read_value: the first '[IO] Calculated Trace' line; a failure without one, or asked for another value" {
    printf '[IO] other\n[IO] Calculated Trace :: -0.000774184637600  || Plaq :: 0.598545559082642 \n[IO] Calculated Trace :: 1  || Plaq :: 1 \n' > log
    [ "$(glu_read_value log plaquette)" = 0.598545559082642 ]
    [ "$(glu_read_value log trace)" = -0.000774184637600 ]
    fails glu_read_value log plaq
    echo '[IO] nothing read' > empty.log
    fails glu_read_value empty.log plaquette
}

@test "qio_records: lat's SciDAC file passes; the wrong size, an ILDG file and a broken file fail" {
    "$BIN/lat-heatbath" -q --sweeps 0 --start cold -L 2x2x2x2 -o u.lime
    "$CONV" --to scidac -o u.scidac u.lime
    qio_records u.scidac $((16 * 4 * 18 * 8))
    fails qio_records u.scidac $((16 * 4 * 18 * 4))
    fails qio_records u.lime $((16 * 4 * 18 * 8))
    head -c 200 u.scidac > cut.scidac
    fails qio_records cut.scidac $((16 * 4 * 18 * 8))
}

@test "cval: one column, several on one line, of lat-convert --check" {
    "$BIN/lat-heatbath" -q --sweeps 0 --start cold -L 2x2x2x4 -o u.lime
    [ "$(cval u.lime plaquette)" = 1 ]
    [ "$(cval u.lime lattice precision)" = "2x2x2x4 64" ]
}
