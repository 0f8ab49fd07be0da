#!/usr/bin/env bats
# nersc.bats -- NERSC specifics of common/io/nersc.c and lat-convert:
# DATATYPE 4D_SU3_GAUGE_SMALL (GLU's 8 reals per link) read from files that
# an independent encoder here writes (python3 struct, nothing of lat's code)
# and, when it is installed, from files GLU writes; the SEQUENCE_NUMBER and
# ENSEMBLE_LABEL that --to nersc writes (--sequence-number,
# --ensemble-label and their defaults); bad SMALL input.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/glu.bash"

setup_file() {
    lat_test_paths lat-convert lat-heatbath || return 1
    export HB="$BIN/lat-heatbath"
    local d="$BATS_FILE_TMPDIR"
    # a Haar-random field, a unit field, and three sweeps of a chain (its
    # history says next_sweep=3)
    "$HB" -q --sweeps 0 --start hot -L 4x4x2x6 --seed 11 -o "$d/hot.lime"
    "$HB" -q --sweeps 0 --start cold -L 4x4x2x4 -o "$d/cold.lime"
    "$HB" -q --sweeps 3 --beta 5.7 --start hot -L 4x4x2x4 --seed 3 -o "$d/chain.lime"
    "$CONV" --to nersc --3x3 --precision 64 -o "$d/hot.nersc" "$d/hot.lime" 2>/dev/null
    "$CONV" --to nersc --3x3 --precision 64 -o "$d/cold.nersc" "$d/cold.lime" 2>/dev/null
}

setup() { lat_test_dirs; }

# the value of a header key of a NERSC file
hval() { sed -n '/^END_HEADER$/q; s/^'"$2"' = //p' "$1"; }

# The encoder: a 4D_SU3_GAUGE_SMALL file from a NERSC 3x3 IEEE64BIG file.
# Per link, GLU's 8 reals: Re, Im of U01, U02, U10, then arg U00 and arg
# U20 (atan2); CHECKSUM = uint32 sum of the stored 32-bit words in the
# file's byte order; PLAQUETTE and LINK_TRACE copied from the input header.
small_from_3x3() { # IN OUT FLOATING_POINT
    python3 - "$@" <<'EOF'
import math, struct, sys
src, dst, fp = sys.argv[1:4]
b = open(src, 'rb').read()
end = b.index(b'END_HEADER\n') + len('END_HEADER\n')
hdr = dict(l.split(' = ', 1) for l in b[:end].decode().splitlines()[1:-1])
assert hdr['DATATYPE'] == '4D_SU3_GAUGE_3x3' and hdr['FLOATING_POINT'] == 'IEEE64BIG'
x = struct.unpack('>%dd' % ((len(b) - end) // 8), b[end:])
reals = []
for k in range(0, len(x), 18):
    u = [complex(x[k + 2 * i], x[k + 2 * i + 1]) for i in range(9)]
    reals += [u[1].real, u[1].imag, u[2].real, u[2].imag, u[3].real, u[3].imag,
              math.atan2(u[0].imag, u[0].real), math.atan2(u[6].imag, u[6].real)]
order = '>' if fp.endswith('BIG') else '<'
data = struct.pack(order + ('d' if fp.startswith('IEEE64') else 'f') * len(reals), *reals)
cks = sum(struct.unpack(order + '%dI' % (len(data) // 4), data)) & 0xffffffff
keys = ['DIMENSION_%d' % i for i in range(1, 5)]
head = ['BEGIN_HEADER', 'HDR_VERSION = 1.0', 'DATATYPE = 4D_SU3_GAUGE_SMALL', 'STORAGE_FORMAT = 1.0']
head += ['%s = %s' % (k, hdr[k]) for k in keys]
head += ['CHECKSUM = %x' % cks, 'LINK_TRACE = ' + hdr['LINK_TRACE'], 'PLAQUETTE = ' + hdr['PLAQUETTE'],
         'ENSEMBLE_ID = test', 'SEQUENCE_NUMBER = 17', 'FLOATING_POINT = ' + fp, 'END_HEADER', '']
open(dst, 'wb').write('\n'.join(head).encode() + data)
EOF
}
# the largest |difference| of two NERSC 3x3 IEEE64BIG files' data
max_diff() { # A B
    python3 - "$@" <<'EOF'
import struct, sys
def data(f):
    b = open(f, 'rb').read()
    e = b.index(b'END_HEADER\n') + len('END_HEADER\n')
    return struct.unpack('>%dd' % ((len(b) - e) // 8), b[e:])
a, b = data(sys.argv[1]), data(sys.argv[2])
assert len(a) == len(b)
print('%.3e' % max(abs(p - q) for p, q in zip(a, b)))
EOF
}

# ---- 4D_SU3_GAUGE_SMALL ---------------------------------------------------------

@test "SMALL IEEE64BIG from the independent encoder: links to 1e-13, plaquette to 1e-14" {
    small_from_3x3 "$T/hot.nersc" "$W/s.nersc" IEEE64BIG
    [ $(stat -c %s "$W/s.nersc") -gt $((4 * 4 * 2 * 6 * 4 * 8 * 8)) ]
    run -0 "$CONV" --check "$W/s.nersc"
    [[ "$output" == *"NERSC 4D_SU3_GAUGE_SMALL IEEE64BIG SU(3) 4x4x2x6 64-bit, checksum nersc $(hval "$W/s.nersc" CHECKSUM) ok"* ]]
    [[ "$output" == *"plaquette"*"(matches file)"*"link trace"*"(matches file)"* ]]
    close "$(cval "$W/s.nersc" plaquette)" "$(cval "$T/hot.nersc" plaquette)" 1e-14
    close "$(cval "$W/s.nersc" link_trace)" "$(cval "$T/hot.nersc" link_trace)" 1e-14
    less "$(cval "$W/s.nersc" unitarity_max)" 1e-13
    # every element of every link, written back as 3x3 and compared here
    "$CONV" --to nersc --3x3 --precision 64 -o "$W/back.nersc" "$W/s.nersc"
    d=$(max_diff "$T/hot.nersc" "$W/back.nersc")
    echo "largest element difference $d"
    less "$d" 1e-13
    # the carried header keys travel on
    [ "$(hval "$W/back.nersc" ENSEMBLE_ID)" = test ]
}

@test "SMALL IEEE32LITTLE: words summed in file byte order, links to single-precision rounding" {
    small_from_3x3 "$T/hot.nersc" "$W/s.nersc" IEEE32LITTLE
    run -0 "$CONV" --check "$W/s.nersc"
    [[ "$output" == *"NERSC 4D_SU3_GAUGE_SMALL IEEE32LITTLE SU(3) 4x4x2x6 32-bit, checksum nersc $(hval "$W/s.nersc" CHECKSUM) ok"*"(matches file)"*"(matches file)"* ]]
    close "$(cval "$W/s.nersc" plaquette)" "$(cval "$T/hot.nersc" plaquette)" 1e-6
    "$CONV" --to nersc --3x3 --precision 64 -o "$W/back.nersc" "$W/s.nersc"
    d=$(max_diff "$T/hot.nersc" "$W/back.nersc")
    echo "largest element difference $d"
    awk -v d="$d" 'BEGIN { exit !(d > 1e-9 && d < 1e-4) }' # rounded to float, and no worse than sqrt(eps)
    # the same data read as big-endian is refused (byte-swapped floats are
    # not finite or fail the checksum)
    sed '0,/^FLOATING_POINT = IEEE32LITTLE$/s//FLOATING_POINT = IEEE32BIG/' "$W/s.nersc" > "$W/be.nersc"
    expect_error 1 lat-convert "NERSC (CHECKSUM mismatch: the header says|data: non-finite number)" -- "$CONV" --check "$W/be.nersc"
}

@test "SMALL of the unit field (all 8 reals zero, as GLU writes it) reads as exactly the unit field" {
    small_from_3x3 "$T/cold.nersc" "$W/s.nersc" IEEE64BIG
    [ "$(hval "$W/s.nersc" CHECKSUM)" = 0 ]
    [ "$(cval "$W/s.nersc" plaquette)" = 1 ]
    [ "$(cval "$W/s.nersc" link_trace)" = 1 ]
    [ "$(cval "$W/s.nersc" unitarity_max)" = 0 ]
    "$CONV" --to nersc --3x3 --precision 64 -o "$W/back.nersc" "$W/s.nersc"
    [ "$(max_diff "$T/cold.nersc" "$W/back.nersc")" = 0.000e+00 ]
}

@test "SMALL with a wrong CHECKSUM, PLAQUETTE or size: one line, exit 1, nothing written" {
    small_from_3x3 "$T/hot.nersc" "$W/s.nersc" IEEE64BIG
    cd "$W"
    sed 's/^CHECKSUM = .*/CHECKSUM = 1234abcd/' s.nersc > c.nersc
    expect_error 1 lat-convert "^lat-convert: c.nersc: NERSC CHECKSUM mismatch: the header says 1234abcd, the data gives $(hval s.nersc CHECKSUM)\$" -- "$CONV" -o out.lime c.nersc
    [ ! -e out.lime ]
    # one data byte changed (an angle's last mantissa byte): the sum sees it
    python3 -c 'import sys; b = bytearray(open("s.nersc", "rb").read()); b[-1] ^= 1; open("d.nersc", "wb").write(b)'
    expect_error 1 lat-convert "^lat-convert: d.nersc: NERSC CHECKSUM mismatch" -- "$CONV" --check d.nersc
    sed 's/^PLAQUETTE = .*/PLAQUETTE = 0.25/' s.nersc > p.nersc
    expect_error 1 lat-convert "^lat-convert: p.nersc: NERSC PLAQUETTE mismatch: the header says 0.25, the data gives" -- "$CONV" --check p.nersc
    # 8 reals per link: 4x4x2x6 sites x 4 links x 8 doubles = 49152 bytes
    head -c -8 s.nersc > t.nersc
    expect_error 1 lat-convert "^lat-convert: t.nersc: truncated: NERSC data ends after 49144 of 49152 bytes \(4D_SU3_GAUGE_SMALL 4x4x2x6 IEEE64BIG\)" -- "$CONV" --check t.nersc
    { cat s.nersc; printf '\0\0\0\0'; } > l.nersc
    expect_error 1 lat-convert "^lat-convert: l.nersc: NERSC data is 4 bytes longer than the 49152 that 4D_SU3_GAUGE_SMALL" -- "$CONV" --check l.nersc
    sed 's/^DATATYPE = .*/DATATYPE = 4D_SU3_GAUGE_TINY/' s.nersc > y.nersc
    expect_error 1 lat-convert "NERSC DATATYPE 4D_SU3_GAUGE_TINY is not 4D_SU3_GAUGE, 4D_SU3_GAUGE_3x3 or 4D_SU3_GAUGE_SMALL" -- "$CONV" --check y.nersc
}

@test "GLU: its NERSC_SMALL of the CPS file and of a lat file read with GLU's plaquette; GLU reads lat's SEQUENCE_NUMBER" {
    need_glu
    cd "$W"
    # lat's NERSC of a random field, sequence number 42: GLU reads it (it
    # refuses SEQUENCE_NUMBER = 0) and writes it as SMALL and as 3x3
    "$CONV" --to nersc --precision 64 --sequence-number 42 -o lat.nersc "$T/hot.lime" 2>/dev/null
    glu_input SMEARING NERSC NERSC_SMALL 4 4 2 6 > in.small
    glu_input SMEARING NERSC NERSC_NCxNC 4 4 2 6 > in.3x3
    glu_run in.small lat.nersc glu-small.nersc glu.log
    glu_run in.3x3 lat.nersc glu-3x3.nersc glu-3x3.log
    grep -q 'Configuration number :: 42' glu.log
    [ "$(hval glu-small.nersc DATATYPE)" = 4D_SU3_GAUGE_SMALL ]
    [ "$(hval glu-small.nersc SEQUENCE_NUMBER)" = 42 ]
    # GLU's own plaquette of what it read (printed to 15 digits) = lat's
    gp=$(glu_read_value glu.log plaquette)
    echo "GLU plaquette $gp, lat $(cval lat.nersc plaquette)"
    close "$gp" "$(cval lat.nersc plaquette)" 1e-14
    run -0 "$CONV" --check glu-small.nersc
    [[ "$output" == *"NERSC 4D_SU3_GAUGE_SMALL IEEE64BIG SU(3) 4x4x2x6 64-bit"*"ok"*"(matches file)"*"(matches file)"* ]]
    close "$(cval glu-small.nersc plaquette)" "$(cval glu-3x3.nersc plaquette)" 1e-14
    close "$(cval glu-small.nersc link_trace)" "$(cval glu-3x3.nersc link_trace)" 1e-14
    "$CONV" --to nersc --3x3 --precision 64 -o a.nersc glu-small.nersc
    "$CONV" --to nersc --3x3 --precision 64 -o b.nersc glu-3x3.nersc
    d=$(max_diff a.nersc b.nersc)
    echo "SMALL vs 3x3 of GLU: largest element difference $d"
    awk -v d="$d" 'BEGIN { exit !(d < 1e-13) }'
    # the CPS file of the shared data, through GLU's SMALL
    [ -f "$DATA/cps-l4448.nersc" ] || skip "../shared/data is absent: the CPS file cannot be tried"
    glu_input SMEARING NERSC NERSC_SMALL 4 4 4 8 > in.cps
    glu_run in.cps "$DATA/cps-l4448.nersc" cps-small.nersc cps.log
    run -0 "$CONV" --check cps-small.nersc
    [[ "$output" == *"plaquette 0.5985455591 (matches file), link trace -0.0007741846 (matches file)"* ]]
    close "$(cval cps-small.nersc plaquette)" 0.598545559082642 1e-14
    [ "$(hval cps-small.nersc SEQUENCE_NUMBER)" = 400 ]
}

# ---- SEQUENCE_NUMBER ------------------------------------------------------------

@test "SEQUENCE_NUMBER defaults: the history's sweep counter, else the NERSC input's, else 1" {
    # lat-heatbath's history says next_sweep=3
    "$CONV" --to nersc -o "$W/chain.nersc" "$T/chain.lime" 2>/dev/null
    [ "$(hval "$W/chain.nersc" SEQUENCE_NUMBER)" = 3 ]
    # a NERSC input's is carried: NERSC -> NERSC and NERSC -> ILDG -> NERSC
    sed 's/^SEQUENCE_NUMBER = 3$/SEQUENCE_NUMBER = 77/' "$W/chain.nersc" > "$W/77.nersc"
    "$CONV" --to nersc -o "$W/a.nersc" "$W/77.nersc"
    [ "$(hval "$W/a.nersc" SEQUENCE_NUMBER)" = 77 ]
    "$CONV" -o "$W/a.lime" "$W/77.nersc"
    "$CONV" --to nersc -o "$W/b.nersc" "$W/a.lime" 2>/dev/null
    [ "$(hval "$W/b.nersc" SEQUENCE_NUMBER)" = 77 ]
    # a start configuration (next_sweep=0) and a NERSC file without the key: 1
    "$CONV" --to nersc -o "$W/c.nersc" "$T/hot.lime" 2>/dev/null
    [ "$(hval "$W/c.nersc" SEQUENCE_NUMBER)" = 1 ]
    sed '1,/^END_HEADER$/{/^SEQUENCE_NUMBER = /d}' "$W/chain.nersc" > "$W/none.nersc"
    [ "$(hval "$W/none.nersc" SEQUENCE_NUMBER)" = "" ]
    "$CONV" --to nersc -o "$W/d.nersc" "$W/none.nersc"
    [ "$(hval "$W/d.nersc" SEQUENCE_NUMBER)" = 1 ]
    # a chain continued from a NERSC file: its history is newer than the carried key
    "$HB" -q --sweeps 2 --beta 5.7 --start "$W/77.nersc" --first-sweep 10 -o "$W/e.lime"
    "$CONV" --to nersc -o "$W/e.nersc" "$W/e.lime" 2>/dev/null
    [ "$(hval "$W/e.nersc" SEQUENCE_NUMBER)" = 12 ]
}

@test "--sequence-number N is written; 0, negative, non-numbers and other formats are usage errors" {
    "$CONV" --to nersc --sequence-number 123456789012 -o "$W/a.nersc" "$T/chain.lime" 2>/dev/null
    [ "$(hval "$W/a.nersc" SEQUENCE_NUMBER)" = 123456789012 ]
    "$CONV" --to nersc --sequence-number=5 -o "$W/b.nersc" "$W/a.nersc"
    [ "$(hval "$W/b.nersc" SEQUENCE_NUMBER)" = 5 ]
    cd "$W"
    expect_error 2 lat-convert "^lat-convert: --sequence-number must be >= 1 \(NERSC sequence numbers count from 1\), got 0 \\(try --help\\)$" -- "$CONV" --to nersc --sequence-number 0 -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "got -4" -- "$CONV" --to nersc --sequence-number -4 -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "sequence-number" -- "$CONV" --to nersc --sequence-number 1x -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "^lat-convert: --sequence-number applies to --to nersc only \\(try --help\\)$" -- "$CONV" --sequence-number 3 -o o.lime "$T/hot.lime"
    expect_error 2 lat-convert "applies to --to nersc only" -- "$CONV" --to milc --sequence-number 3 -o o.milc "$T/hot.lime"
    expect_error 2 lat-convert "applies to --to nersc only" -- "$CONV" --check --sequence-number 3 "$T/hot.lime"
    [ "$(ls -d o.* 2>/dev/null)" = "" ]
}

# ---- ENSEMBLE_LABEL -------------------------------------------------------------

@test "--ensemble-label round trip: written as given ('=' and blanks inside), carried by NERSC and ILDG" {
    label='beta=5.7 L=4x4x2x4 run #2'
    "$CONV" --to nersc --ensemble-label "$label" -o "$W/a.nersc" "$T/chain.lime" 2>/dev/null
    grep -a -q -x "ENSEMBLE_LABEL = $label" "$W/a.nersc"
    [ "$(hval "$W/a.nersc" ENSEMBLE_LABEL)" = "$label" ]
    # read back: the label is the input's on the next NERSC write
    "$CONV" --to nersc -o "$W/b.nersc" "$W/a.nersc"
    [ "$(hval "$W/b.nersc" ENSEMBLE_LABEL)" = "$label" ]
    "$CONV" -o "$W/b.lime" "$W/a.nersc"
    "$CONV" --to nersc --3x3 -o "$W/c.nersc" "$W/b.lime" 2>/dev/null
    [ "$(hval "$W/c.nersc" ENSEMBLE_LABEL)" = "$label" ]
    # the option beats the input's; without either, lat's default
    "$CONV" --to nersc --ensemble-label other -o "$W/d.nersc" "$W/a.nersc"
    [ "$(hval "$W/d.nersc" ENSEMBLE_LABEL)" = other ]
    "$CONV" --to nersc -o "$W/e.nersc" "$T/chain.lime" 2>/dev/null
    [ "$(hval "$W/e.nersc" ENSEMBLE_LABEL)" = lat ]
    # the rest of the header is untouched by it: the file still verifies
    run -0 "$CONV" --check "$W/d.nersc"
    [[ "$output" == *"(matches file)"*"(matches file)"* ]]
}

@test "--ensemble-label that a header cannot hold, or with another format: usage error, nothing written" {
    cd "$W"
    expect_error 2 lat-convert "^lat-convert: --ensemble-label cannot be written into a NERSC header: it holds a character that is not printable ASCII" -- "$CONV" --to nersc --ensemble-label $'two\nlines' -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "not printable ASCII" -- "$CONV" --to nersc --ensemble-label $'tab\there' -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "not printable ASCII" -- "$CONV" --to nersc --ensemble-label $'caf\xc3\xa9' -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "it is empty" -- "$CONV" --to nersc --ensemble-label '' -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "begins or ends with a blank" -- "$CONV" --to nersc --ensemble-label ' x' -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "longer than 256 characters" -- "$CONV" --to nersc --ensemble-label "$(printf 'x%.0s' {1..257})" -o o.nersc "$T/hot.lime"
    expect_error 2 lat-convert "^lat-convert: --ensemble-label applies to --to nersc only \\(try --help\\)$" -- "$CONV" --to ildg --ensemble-label x -o o.lime "$T/hot.lime"
    [ -z "$(ls -A)" ]
    "$CONV" --to nersc --ensemble-label "$(printf 'x%.0s' {1..256})" -o o.nersc "$T/hot.lime" 2>/dev/null
    [ "$(hval o.nersc ENSEMBLE_LABEL | wc -c)" -eq 257 ]
}
