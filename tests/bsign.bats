#!/usr/bin/env bats
# bsign.bats -- the antiperiodic boundary sign that QUDA and SIMULATeQCD
# bake into a configuration (every time link at t = LT-1 times -1, det U =
# -1 on exactly those links for odd N; common/io/bsign.c).  The inputs are
# made by tests/bsign_flip.py, an encoder independent of lat (Python
# standard library: LIME framing, big-endian IEEE, the SciDAC checksum of
# FORMATS.md §3.7 with zlib.crc32, the plaquette and link trace it writes
# into usqcdInfo), from lat-heatbath configurations in 64 and 32 bits.
# Checked: detection in lat-convert --check (text, json, tsv) and
# lat-measure (which never refuses), the one-line refusal of every program
# that computes (an existing -o untouched), --strip-boundary-sign giving back
# the original data bit for bit, its refusal on a clean file, SU(2) where the
# sign cannot be seen, and broken files (det U = -1 elsewhere, or on part of
# the timeslice) refused naming the first bad link; GLU, when built beside
# the project, reads the sign file to the same plaquette and link trace.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/glu.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() {
    lat_test_paths lat-heatbath lat-convert lat-randomize-orbit || return 1
    export FLIP="$BATS_TEST_DIRNAME/bsign_flip.py" OMP_NUM_THREADS=1 LAT_DEVICE=cpu
    local d="$BATS_FILE_TMPDIR"
    cd "$d" || return 1
    "$BIN/lat-heatbath" -q -N 3 -b 5.7 -L 4x4x4x6 --start hot --therm 3 --sweeps 0 -s 5 -o c64.lime
    "$BIN/lat-convert" -q --precision 32 c64.lime -o c32.lime
    "$BIN/lat-randomize-orbit" -q --seed 7 c64.lime -o r64.lime
    "$BIN/lat-heatbath" -q -N 2 -b 2.3 -L 4x4x4x4 --start hot --therm 2 --sweeps 0 -s 3 -o su2.lime
    "$BIN/lat-heatbath" -q -N 5 -b 10 -L 4x4x4x4 --start hot --therm 1 --sweeps 0 -s 3 -o su5.lime
    # the boundary sign; the script prints the plaquette, link trace and
    # SciDAC sums it computed from the bytes it wrote
    python3 "$FLIP" c64.lime s64.lime > s64.txt
    python3 "$FLIP" c32.lime s32.lime > s32.txt
    python3 "$FLIP" su2.lime su2s.lime > su2s.txt
    python3 "$FLIP" su5.lime su5s.lime > su5s.txt
    # broken: one link of a random gauge elsewhere; the sign and one more;
    # the sign on all but one time link at t=LT-1; one time link there only
    python3 "$FLIP" r64.lime one.lime 1 2 3 2 1 > /dev/null
    python3 "$FLIP" s64.lime extra.lime 3 0 1 4 0 > /dev/null
    python3 "$FLIP" s64.lime partial.lime 2 1 0 5 3 > /dev/null
    python3 "$FLIP" c64.lime lone.lime 3 3 2 5 3 > /dev/null
}

setup() {
    T="$BATS_FILE_TMPDIR"
    cd "$BATS_TEST_TMPDIR" || return 1
}

# a value the flip script printed: key=value
flipped() { tr ' ' '\n' < "$T/$1.txt" | sed -n "s/^$2=//p"; }
# the number written with its sign changed
neg() { case $1 in -*) echo "${1#-}" ;; *) echo "-$1" ;; esac; }
# one value of lat-convert --check --format json (strings unquoted)
jval() { "$BIN/lat-convert" --check --format json "$1" | sed -E "s/.*\"$2\": \"?([^\",}]*)\"?.*/\1/"; }

@test "detected: lat-convert --check (text, json, tsv), 64 and 32 bits, the checksum the flipper wrote verified" {
    for p in 64 32; do
        run -0 "$BIN/lat-convert" --check "$T/s$p.lime"
        [[ "$output" == *"time links at t=LT-1 carry the antiperiodic sign (det U = -1)" ]]
        [[ "$output" == *"checksum scidac $(flipped s$p suma) $(flipped s$p sumb) ok"* ]]
        [ "$(jval "$T/s$p.lime" boundary_sign)" = antiperiodic ]
        run -0 "$BIN/lat-convert" --check --format tsv "$T/s$p.lime"
        [ "$(printf '%s\n' "$output" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "boundary_sign") c = i; next } { print $c }')" = antiperiodic ]
        # the clean file: no sign, no clause
        run -0 "$BIN/lat-convert" --check "$T/c$p.lime"
        [[ "$output" != *antiperiodic* && "$output" != *undetectable* ]]
        [ "$(jval "$T/c$p.lime" boundary_sign)" = none ]
    done
}

@test "lat-measure reports it: plaquette unchanged to the bit, link trace and Polyakov loop as the flipper computed" {
    for p in 64 32; do
        [ "$(mval "$T/s$p.lime" boundary_sign)" = antiperiodic ]
        [ "$(mval "$T/c$p.lime" boundary_sign)" = none ]
        # every plaquette holds zero or two of the flipped links
        for k in plaquette plaquette_spatial plaquette_temporal polyakov_abs; do
            [ "$(mval "$T/s$p.lime" $k)" = "$(mval "$T/c$p.lime" $k)" ]
        done
        close "$(mval "$T/s$p.lime" plaquette)" "$(flipped s$p plaq)" 1e-12
        close "$(mval "$T/s$p.lime" link_trace)" "$(flipped s$p linktr)" 1e-12
        ! close "$(mval "$T/s$p.lime" link_trace)" "$(mval "$T/c$p.lime" link_trace)" 1e-6 || false
        # each Polyakov line holds exactly one: P -> -P
        for k in polyakov_re polyakov_im; do
            [ "$(mval "$T/s$p.lime" $k)" = "$(neg "$(mval "$T/c$p.lime" $k)")" ]
        done
    done
    # the note on stderr, and json carries the key
    run --separate-stderr -0 "$BIN/lat-measure" --format json "$T/s64.lime"
    [[ "$output" == *'"boundary_sign": "antiperiodic"'* ]]
    [[ "$stderr" == *"carry the antiperiodic sign"* ]]
}

@test "every program that computes refuses it with one line naming cause and remedy; an existing -o untouched" {
    local why="s64.lime: the time links at t=LT-1=5 carry an antiperiodic boundary sign (det U = -1; written by QUDA/SIMULATeQCD): remove it with lat-convert --strip-boundary-sign"
    local p
    for p in lat-overrelax lat-anneal lat-randomize-orbit lat-fourier "lat-unitarity --reproject"; do
        echo keep > out.lime
        expect_error 1 "${p%% *}" -- "$BIN/"$p -o out.lime "$T/s64.lime"
        [ "$stderr" = "${p%% *}: $T/$why" ] || { echo "$p: $stderr"; return 1; }
        [ "$(cat out.lime)" = keep ]
    done
    echo keep > out.lime
    expect_error 1 lat-heatbath -- "$BIN/lat-heatbath" --start "$T/s64.lime" -b 5.7 --sweeps 1 -o out.lime
    [ "$stderr" = "lat-heatbath: $T/$why" ]
    [ "$(cat out.lime)" = keep ]
    # a pipe, 32 bits
    run --separate-stderr -1 bash -c "cat '$T/s32.lime' | '$BIN/lat-overrelax' -o out.lime"
    [[ "$stderr" == "lat-overrelax: standard input: the time links at t=LT-1=5 carry an antiperiodic boundary sign"* ]]
    [ "$(cat out.lime)" = keep ]
    # the pipelines run those programs
    expect_error 1 lat-anneal -- "$ROOT/pipelines/lat-gaugefix" -q -o out.lime "$T/s64.lime"
    [[ "$stderr" == *"--strip-boundary-sign" ]]
    run --separate-stderr -1 env PATH="$BIN:$PATH" "$ROOT/pipelines/lat-gribov-scan" -q -n 2 -o out.lime "$T/s64.lime"
    [[ "$stderr" == *"carry an antiperiodic boundary sign"*"--strip-boundary-sign" ]]
    [ "$(cat out.lime)" = keep ]
    # lat-unitarity without --reproject measures: it fails (det U = -1 is
    # not SU(3)) and says why
    run --separate-stderr -1 "$BIN/lat-unitarity" "$T/s64.lime"
    [[ "$stderr" == *"max |det U - 1| 2); the time links at t=LT-1 carry the antiperiodic sign"* ]]
}

@test "--strip-boundary-sign gives back the original configuration bit for bit (64 and 32 bits) with a history entry" {
    for p in 64 32; do
        run -0 "$BIN/lat-convert" -q --strip-boundary-sign "$T/s$p.lime" -o back.lime
        cmp <(lime_payload "$T/c$p.lime" ildg-binary-data) <(lime_payload back.lime ildg-binary-data)
        [ "$(jval back.lime checksum)" = "$(jval "$T/c$p.lime" checksum)" ]
        [ "$(jval back.lime boundary_sign)" = none ]
        [[ "$(last_results back.lime)" == *"boundary_sign=stripped (the 64 time links at t=LT-1 multiplied by -1)" ]]
        # and the programs that compute take it
        run -0 "$BIN/lat-randomize-orbit" -q -o r.lime back.lime
    done
    # odd N beyond 3: SU(5)
    [ "$(jval "$T/su5s.lime" boundary_sign)" = antiperiodic ]
    run -0 "$BIN/lat-convert" -q --strip-boundary-sign "$T/su5s.lime" -o back5.lime
    cmp <(lime_payload "$T/su5.lime" ildg-binary-data) <(lime_payload back5.lime ildg-binary-data)
}

@test "--strip-boundary-sign on a file without the sign: one line, exit 1, nothing written" {
    echo keep > out.lime
    expect_error 1 lat-convert -- "$BIN/lat-convert" --strip-boundary-sign -o out.lime "$T/c64.lime"
    [[ "$stderr" == *"c64.lime: no antiperiodic boundary sign to strip: the time links at t=LT-1=5 have det U = +1"* ]]
    [ "$(cat out.lime)" = keep ]
    expect_error 1 lat-convert -- "$BIN/lat-convert" --strip-boundary-sign -o new.lime "$T/c32.lime"
    [ ! -e new.lime ]
    expect_error 2 lat-convert -- "$BIN/lat-convert" --check --strip-boundary-sign "$T/s64.lime"
}

@test "SU(2): det(-U) = det U, so the sign is reported undetectable, never detected, and not stripped" {
    for f in su2 su2s; do
        [ "$(jval "$T/$f.lime" boundary_sign)" = undetectable ]
        [ "$(mval "$T/$f.lime" boundary_sign)" = undetectable ]
        run -0 "$BIN/lat-convert" --check "$T/$f.lime"
        [[ "$output" == *", boundary sign undetectable (even N)" && "$output" != *antiperiodic* ]]
    done
    # the links are SU(2) either way: the programs cannot tell and compute
    run -0 "$BIN/lat-randomize-orbit" -q -o r.lime "$T/su2s.lime"
    expect_error 1 lat-convert -- "$BIN/lat-convert" --strip-boundary-sign -o out.lime "$T/su2s.lime"
    [[ "$stderr" == *"SU(2): for even N det(-U) = det U"* ]]
    [ ! -e out.lime ]
}

@test "broken files: det U = -1 elsewhere or on part of the timeslice, refused by every reader naming the first bad link" {
    local p
    for p in "lat-convert --check" lat-measure lat-unitarity lat-overrelax; do
        expect_error 1 "${p%% *}" -- "$BIN/"$p "$T/one.lime"
        [[ "$stderr" == *"one.lime: broken configuration: the link U_y at site x=1 y=2 z=3 t=2 is minus an SU(3) matrix (det U = -1; 1 such link outside the time links at t=LT-1=5)"* ]]
    done
    expect_error 1 lat-measure -- "$BIN/lat-measure" "$T/extra.lime"
    [[ "$stderr" == *"the link U_x at site x=3 y=0 z=1 t=4 is minus an SU(3) matrix"* ]]
    expect_error 1 lat-measure -- "$BIN/lat-measure" "$T/partial.lime"
    [[ "$stderr" == *"the link U_t at site x=2 y=1 z=0 t=5 has det U = +1, but 63 of the 64 time links at t=LT-1=5 have det U = -1"* ]]
    expect_error 1 lat-convert -- "$BIN/lat-convert" --strip-boundary-sign -o out.lime "$T/lone.lime"
    [[ "$stderr" == *"the link U_t at site x=3 y=3 z=2 t=5 is minus an SU(3) matrix (det U = -1), but only 1 of the 64"* ]]
    [ ! -e out.lime ]
}

@test "NERSC: two rows cannot hold the sign (refused), 3x3 carries it and is detected on reading" {
    echo keep > out.nersc
    expect_error 1 lat-convert -- "$BIN/lat-convert" --to nersc -o out.nersc "$T/s64.lime"
    [[ "$stderr" == *"out.nersc: a two-row NERSC file cannot hold the antiperiodic boundary sign"* ]]
    [ "$(cat out.nersc)" = keep ]
    run -0 "$BIN/lat-convert" --to nersc --3x3 -o s.nersc "$T/s64.lime"
    [ "$(jval s.nersc boundary_sign)" = antiperiodic ]
    [ "$(mval s.nersc link_trace)" = "$(mval "$T/s64.lime" link_trace)" ]
    run -0 "$BIN/lat-convert" --to nersc --strip-boundary-sign -o c.nersc "$T/s64.lime"
    [ "$(jval c.nersc boundary_sign)" = none ]
    close "$(mval c.nersc plaquette)" "$(mval "$T/c64.lime" plaquette)" 1e-14
}

@test "under mpirun (the ranks read their slabs themselves): detected, reported and refused alike" {
    grep -q 'MPI=1' "$ROOT/build/.config" || skip "built without MPI (make MPI=0)"
    command -v mpirun > /dev/null || skip "mpirun not found"
    run -0 mpi 2 "$BIN/lat-measure" -q --format json "$T/s64.lime"
    [[ "$output" == *'"boundary_sign": "antiperiodic"'* ]]
    run -0 mpi 2 "$BIN/lat-measure" -q --format json "$T/c64.lime"
    [[ "$output" == *'"boundary_sign": "none"'* ]]
    echo keep > out.lime
    run ! mpi 2 "$BIN/lat-overrelax" -q -o out.lime "$T/s64.lime"
    [[ "$output" == *"s64.lime: the time links at t=LT-1=5 carry an antiperiodic boundary sign"* ]]
    [ "$(cat out.lime)" = keep ]
    run ! mpi 2 "$BIN/lat-measure" "$T/one.lime"
    [[ "$output" == *"the link U_y at site x=1 y=2 z=3 t=2 is minus an SU(3) matrix"* ]]
    # a pipe: rank 0 reads and finds it, the others learn it
    run ! mpirun_stdin "$T/s32.lime" 2 "$BIN/lat-anneal" -q -o out.lime -
    [[ "$output" == *"standard input: the time links at t=LT-1=5 carry an antiperiodic boundary sign"* ]]
    [ "$(cat out.lime)" = keep ]
}

@test "a real QUDA file with the sign, when present (FORMATS.md §2.3: ildg.l8t4b3360_QUDA, not part of the project)" {
    local f
    for f in "$ROOT/../shared/data/ildg.l8t4b3360_QUDA" "$ROOT/../realdata/ildg.l8t4b3360_QUDA"; do [ -f "$f" ] && break; done
    [ -f "$f" ] || skip "ildg.l8t4b3360_QUDA not present (the synthetic files above check everything)"
    run -0 "$BIN/lat-convert" --check --format json "$f"
    [[ "$output" == *'"checksum": "scidac 1a34634c 6b294f06"'* && "$output" == *'"boundary_sign": "antiperiodic"'* ]]
}

@test "GLU (when present) reads the sign file and measures what lat-measure does: the same plaquette, the link trace with the sign" {
    need_glu
    # GLU reads the 4x4x4x6 ILDG file and fixes nothing (no iterations,
    # nothing written)
    glu_input GAUGE_FIXING ILDG_SCIDAC NERSC_GAUGE 4 4 4 6 > glu.in
    for f in s64 c64; do
        glu_run glu.in "$T/$f.lime" "" "$f.log"
        local tr pl
        tr=$(glu_read_value "$f.log" trace)
        pl=$(glu_read_value "$f.log" plaquette)
        close "$tr" "$(mval "$T/$f.lime" link_trace)" 1e-14
        close "$pl" "$(mval "$T/$f.lime" plaquette)" 1e-14
    done
}
