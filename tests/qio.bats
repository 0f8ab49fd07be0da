#!/usr/bin/env bats
# qio.bats -- QIO, the USQCD I/O library that Chroma (QDP++) and MILC read
# propagators with, reads lat-propagator's files (issue 15 item 4).  The peer
# reader tests/peers/qio-read-prop.c (compiled here, not by make) opens a
# 4^3x8 propagator with QIO on one node and reads the file XML and the
# 2 x 12 records with QIO_read_record_info / QIO_read_record_data; QIO
# checks the lattice dims, each record's private XML against the datum size,
# the record lengths and the SciDAC checksums; the USQCD XML is decoded with
# QIO's own decoders (the file type, <spin>/<color> of every record).
#   - a point source, 64-bit and --file-precision 32 (USQCD_D3/F3_DiracFermion),
#     and a wall source: every record accepted, in order, sources of norm 1
#     (point) or 64 (a 4^3 wall), and sum_x in timeslice |S|^2 over the
#     solutions from QIO's data = lat-meson's pion C(t) to 1e-12 (the
#     identity C_pi(t) = sum |S|^2 of tools/shared/meson.h);
#   - one bit flipped in a solution's binary data: QIO reports a checksum
#     mismatch; a layout of another lattice size: QIO refuses to open.
#
# QIO is not a Debian package and not in `make deps`: the tests skip without
# it.  It is found at $QIO_DIR (default ../qio-build/install beside the tree,
# i.e. /work/qio-build/install for /work/<tree>), built for one processor
# without QMP from usqcd-software/qio 273841537392f9465d229c957228755e923408eb
# and its submodule usqcd-software/c-lime 924aa0fce27a6cd73d94c9adc4b995f00e13232b:
#   (cd qio/other_libs/c-lime && autoreconf -fi); (cd qio && autoreconf -fi)
#   mkdir build && cd build && ../qio/configure --prefix=$QIO_DIR \
#       --enable-parallel-arch=scalar CC=gcc CFLAGS=-O2 && make && make install
# (docs/VALIDATION.md, "QIO reads lat's propagator files").

bats_require_minimum_version 1.5.0

# QIO's install folder with its header and libraries, else ""
qio_dir() {
    local d="${QIO_DIR:-$BATS_TEST_DIRNAME/../../qio-build/install}"
    [ -f "$d/include/qio.h" ] && [ -f "$d/lib/libqio.a" ] && [ -f "$d/lib/liblime.a" ] && echo "$d"
}

setup_file() {
    G="$BATS_FILE_TMPDIR"
    local d
    d=$(qio_dir) || return 0 # every test skips (setup)
    cc -O2 -std=c99 -I"$d/include" "$BATS_TEST_DIRNAME/peers/qio-read-prop.c" -L"$d/lib" -lqio -llime -lm \
        -o "$G/qio-read-prop"
    local B="$BATS_TEST_DIRNAME/../bin"
    export LAT_DEVICE=cpu OMP_NUM_THREADS=1
    "$B/lat-heatbath" -q --start hot -b 5.8 -L 4x4x4x8 -n 5 -s 7 -o "$G/hot.lime"
    "$B/lat-propagator" -q --kappa 0.12 --source point:1,2,3,5 "$G/hot.lime" -o "$G/p64.lime"
    "$B/lat-propagator" -q --kappa 0.12 --source point:1,2,3,5 --file-precision 32 "$G/hot.lime" -o "$G/p32.lime"
    "$B/lat-overrelax" -q --gauge coulomb --omega 1.7 --theta 1e-13 "$G/hot.lime" -o "$G/coul.lime"
    "$B/lat-propagator" -q --kappa 0.12 --source wall:2 "$G/coul.lime" -o "$G/wall.lime"
}

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    BIN="$ROOT/bin"
    G="$BATS_FILE_TMPDIR"
    T="$BATS_TEST_TMPDIR"
    export LAT_DEVICE=cpu OMP_NUM_THREADS=1
    source "$ROOT/tests/common.bash"
    qio_dir > /dev/null || skip "QIO is absent at ${QIO_DIR:-../qio-build/install} (set QIO_DIR): the QIO reader checks cannot run"
    READ="$G/qio-read-prop"
}

# The 24 record lines of qio-read-prop's output: record r is the source
# (r even) or solution of spin k/3, colour k%3 (k = r/2), with QIO's
# DATATYPE, PRECISION, 3 colours, 4 spins, TYPESIZE, datacount 1, a field
# record; every source has norm2 SOURCE_NORM2 exactly
check_records() { # OUT DATATYPE PRECISION TYPESIZE SOURCE_NORM2
    awk -v dt="$2" -v pr="$3" -v ts="$4" -v sn="$5" '
        $1 == "record" {
            r = $2; k = int(r / 2); want = r % 2 ? "solution" : "source"
            line = want " spin " int(k / 3) " color " k % 3 " datatype " dt " precision " pr \
                   " colors 3 spins 4 typesize " ts " datacount 1 recordtype 0"
            got = $3; for (i = 4; i <= 21; i++) got = got " " $i
            if (r != n || got != line) { print "record " r ": \"" got "\", expected \"" line "\""; bad = 1 }
            if (want == "source" && $NF != sn) { print "record " r ": source norm2 " $NF ", expected " sn; bad = 1 }
            n++
        }
        END { if (n != 24) { print n " records, expected 24"; bad = 1 } exit bad }' "$1"
}

# QIO's sum |S|^2 per timeslice from t0 against lat-meson's pion C(t) at
# p = 0, each to 1e-12 of the largest C; their sum against norm2-solutions
check_pion() { # OUT PROPFILE
    "$BIN/lat-meson" --format tsv "$2" | awk -F'\t' '$1 == "pi" && $3 == 0 { print "meson", $4, $5 }' > "$T/meson.txt"
    awk '$1 == "pion" || $1 == "norm2-solutions"' "$1" | cat - "$T/meson.txt" | awk '
        $1 == "pion" { q[$2] = $3; nq++ }
        $1 == "norm2-solutions" { total = $2 }
        $1 == "meson" { m[$2] = $3; nm++; sum += $3; if ($3 > big) big = $3 }
        END {
            if (nq != 8 || nm != 8) { print "timeslices: QIO " nq ", lat-meson " nm; exit 1 }
            for (t = 0; t < 8; t++) {
                d = q[t] - m[t]; if (d < 0) d = -d
                printf "t=%d  QIO %.17g  lat-meson %.17g  |diff|/max %.2g\n", t, q[t], m[t], d / big
                if (!(d <= 1e-12 * big)) bad = 1
            }
            d = total - sum; if (d < 0) d = -d
            printf "sum: QIO %.17g  lat-meson %.17g\n", total, sum
            if (!(d <= 1e-12 * sum)) bad = 1
            exit bad
        }'
}

@test "QIO reads a 64-bit point-source propagator: USQCD_D3_DiracFermion records, checksums, USQCD XML; sum |S|^2 = lat-meson's pion C(t)" {
    run --separate-stderr "$READ" "$G/p64.lime" 4 4 4 8
    echo "$output" | cut -c1-240
    echo "$stderr"
    [ "$status" -eq 0 ]
    echo "$output" > "$T/out.txt"
    grep -qx 'filetype USQCD_DiracFermion_Source_Sink_Pairs' "$T/out.txt"
    grep -q '^file-xml .*<latPropagator>.*<source>point:1,2,3,5</source>' "$T/out.txt"
    grep -qx 'record-xml 0 .*<usqcdSourceInfo><version>1.0</version><spin>0</spin><color>0</color>.*' "$T/out.txt"
    grep -qx 'record-xml 23 .*<usqcdPropInfo><version>1.0</version><spin>3</spin><color>2</color>.*' "$T/out.txt"
    check_records "$T/out.txt" USQCD_D3_DiracFermion D 192 1
    grep -qx 't0 5' "$T/out.txt"
    check_pion "$T/out.txt" "$G/p64.lime"
}

@test "QIO reads a 32-bit file (--file-precision 32): USQCD_F3_DiracFermion, typesize 96; sum |S|^2 = lat-meson's pion C(t)" {
    run --separate-stderr "$READ" "$G/p32.lime" 4 4 4 8
    echo "$output" | cut -c1-240
    echo "$stderr"
    [ "$status" -eq 0 ]
    echo "$output" > "$T/out.txt"
    grep -qx 'filetype USQCD_DiracFermion_Source_Sink_Pairs' "$T/out.txt"
    check_records "$T/out.txt" USQCD_F3_DiracFermion F 96 1
    grep -qx 't0 5' "$T/out.txt"
    check_pion "$T/out.txt" "$G/p32.lime"
    # the same solutions as the 64-bit file's, rounded to single precision
    "$READ" "$G/p64.lime" 4 4 4 8 > "$T/out64.txt"
    a=$(awk '$1 == "norm2-solutions" { print $2 }' "$T/out.txt")
    b=$(awk '$1 == "norm2-solutions" { print $2 }' "$T/out64.txt")
    echo "sum |S|^2: 32-bit $a, 64-bit $b"
    close "$a" "$b" "$(awk -v b="$b" 'BEGIN { print 1e-6 * b }')"
}

@test "QIO reads a wall-source propagator: sources of norm 64 on timeslice 2; sum |S|^2 = lat-meson's pion C(t)" {
    run --separate-stderr "$READ" "$G/wall.lime" 4 4 4 8
    echo "$output" | cut -c1-240
    echo "$stderr"
    [ "$status" -eq 0 ]
    echo "$output" > "$T/out.txt"
    grep -q '^file-xml .*<source>wall:2</source>' "$T/out.txt"
    check_records "$T/out.txt" USQCD_D3_DiracFermion D 192 64
    grep -qx 't0 2' "$T/out.txt"
    check_pion "$T/out.txt" "$G/wall.lime"
}

@test "QIO refuses a copy with one bit flipped in a solution's binary data (checksum mismatch) and a layout of another lattice size" {
    # the bit: in the middle of the second scidac-binary-data record (the
    # solution of spin 0 colour 0), found by walking the LIME headers
    python3 - "$G/p64.lime" "$T/flip.lime" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos, seen = 0, 0
while pos < len(b):
    n = struct.unpack(">Q", b[pos + 8:pos + 16])[0]
    if b[pos + 16:pos + 144].rstrip(b"\0") == b"scidac-binary-data":
        seen += 1
        if seen == 2:
            b[pos + 144 + n // 2] ^= 1
            break
    pos += 144 + n + (-n) % 8
if seen != 2:
    sys.exit("no second scidac-binary-data record")
open(sys.argv[2], "wb").write(b)
EOF
    [ "$(cmp -l "$G/p64.lime" "$T/flip.lime" | wc -l)" -eq 1 ]
    run --separate-stderr "$READ" "$T/flip.lime" 4 4 4 8
    echo "$output" | tail -n 2
    echo "$stderr"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"QIO_read_record_data of record 1: checksum mismatch (status -14)"* ]]
    [[ "$output" == *"Checksum mismatch"* ]] # QIO's own message
    [ "$(echo "$output" | grep -c '^record [0-9]')" -eq 1 ] # the source before it was read
    run --separate-stderr "$READ" "$G/p64.lime" 4 4 8 8
    echo "$stderr"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"QIO_open_read refused the file"* ]]
}
