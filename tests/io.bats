#!/usr/bin/env bats
# io.bats -- lat-convert and the file formats behind it (common/conf.c,
# lime.c, ildg.c, nersc.c): real files of other programs (../shared/data),
# the ILDG record layout we write (checked with an independent od-based
# lister, tests/lime.bash), NERSC headers, pipes, precisions, the tracked
# transform, and every kind of bad input (one-line error, exit 1, nothing
# left behind, an existing output untouched).

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() {
    lat_test_paths lat-convert || return 1
    local d="$BATS_FILE_TMPDIR"
    # independent inputs, built byte by byte here (no lat code involved)
    make_unit_ildg "$d/unit.lime" 4 4 4 4 64 35b49a1b b49a1b35
    make_unit_ildg "$d/unit32.lime" 4 4 2 6 32
    # a random configuration: lat-heatbath if it is there, else a random
    # gauge-orbit point of the unit field, else the MILC file
    if [ -x "$ROOT/bin/lat-heatbath" ] &&
        "$ROOT/bin/lat-heatbath" -q --sweeps 0 --start hot -L 4x4x2x6 --seed 5 -o "$d/hot.lime" 2>/dev/null; then :
    elif [ -x "$ROOT/bin/lat-randomize-orbit" ] &&
        "$ROOT/bin/lat-randomize-orbit" -q --seed 5 -o "$d/hot.lime" "$d/unit.lime" 2>/dev/null; then :
    elif [ -f "$DATA/milc-l4444.ildg" ]; then cp "$DATA/milc-l4444.ildg" "$d/hot.lime"
    else cp "$d/unit.lime" "$d/hot.lime"; fi
}

setup() { lat_test_dirs; }

# ---- a byte-level ILDG builder (unit links), independent of lat ----------
hex_u64() { local v=$1 i; for i in 56 48 40 32 24 16 8 0; do printf "\\x$(printf %02x $(((v >> i) & 255)))"; done; }
lime_hdr() { # TYPE LEN FLAGBYTE(hex)
    printf '\x45\x67\x89\xab\x00\x01'
    printf "\\x$3\\x00"
    hex_u64 "$2"
    printf '%s' "$1"
    head -c $((128 - ${#1})) /dev/zero
}
lime_pad() { head -c $(((8 - $1 % 8) % 8)) /dev/zero; }
lime_rec() { # TYPE FLAGBYTE FILE
    local n
    n=$(stat -c %s "$3")
    lime_hdr "$1" "$n" "$2"
    cat "$3"
    lime_pad "$n"
}
make_unit_parts() { # DIR LX LY LZ LT PREC: DIR/fmt (ildg-format XML), DIR/bin (unit links)
    local dir=$1 prec=$6 one zero k links=$(($2 * $3 * $4 * $5 * 4))
    if [ "$prec" = 64 ]; then one='\x3f\xf0\x00\x00\x00\x00\x00\x00'; zero='\x00\x00\x00\x00\x00\x00\x00\x00'
    else one='\x3f\x80\x00\x00'; zero='\x00\x00\x00\x00'; fi
    : > "$dir/link"
    for k in $(seq 0 17); do
        if [ "$k" = 0 ] || [ "$k" = 8 ] || [ "$k" = 16 ]; then printf "$one" >> "$dir/link"; else printf "$zero" >> "$dir/link"; fi
    done
    local need=$((links * 18 * prec / 8))
    cp "$dir/link" "$dir/data"
    while [ "$(stat -c %s "$dir/data")" -lt "$need" ]; do cat "$dir/data" "$dir/data" > "$dir/d2"; mv "$dir/d2" "$dir/data"; done
    head -c "$need" "$dir/data" > "$dir/bin"
    rm -f "$dir/data" "$dir/link"
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<ildgFormat xmlns="http://www.lqcd.org/ildg">\n  <version> 1.0 </version>\n  <field>su3gauge</field>\n  <precision>%s</precision>\n  <lx>%s</lx> <ly>%s</ly>\n  <lz>%s</lz> <lt>%s</lt>\n</ildgFormat>\n' \
        "$prec" "$2" "$3" "$4" "$5" > "$dir/fmt"
}
make_unit_ildg() { # OUT LX LY LZ LT PREC [SUMA SUMB]
    local out=$1 tmp
    tmp=$(mktemp -d)
    make_unit_parts "$tmp" "$2" "$3" "$4" "$5" "$6"
    {
        printf 'made by io.bats' > "$tmp/info"
        lime_rec my-own-info c0 "$tmp/info"
        lime_rec ildg-format 80 "$tmp/fmt"
        if [ -n "$7" ]; then
            lime_rec ildg-binary-data 00 "$tmp/bin"
            printf '<?xml version="1.0" encoding="UTF-8"?>\n<scidacChecksum>\n  <version>1.0</version>\n  <suma>%s</suma>\n  <sumb>%s</sumb>\n</scidacChecksum>\n' "$7" "$8" > "$tmp/sum"
            lime_rec scidac-checksum 40 "$tmp/sum"
        else
            lime_rec ildg-binary-data 40 "$tmp/bin"
        fi
    } > "$out"
    rm -rf "$tmp"
}

need_data() { [ -d "$DATA" ] || skip "../shared/data is absent: the real files of other programs cannot be tested"; }

# ---- real files of other programs ---------------------------------------------

@test "shared data: MILC/QIO ILDG 4^4 single verifies (checksum, plaquette, link trace)" {
    need_data
    run -0 "$CONV" --check "$DATA/milc-l4444.ildg"
    [[ "$output" == *"ILDG SU(3) 4x4x4x4 32-bit"* ]]
    [[ "$output" == *"scidac 37affb9c 2fc07bbf ok"* ]]
    [[ "$output" == *"plaquette 0.5948501589"* ]]
    [[ "$output" == *"link trace 0.6467587374"* ]]
    [ "${#lines[@]}" -eq 1 ]
}

@test "shared data: tmLQCD unit 4^4 double verifies" {
    need_data
    run -0 "$CONV" --check "$DATA/tmlqcd-unit-l4444.lime"
    [[ "$output" == *"4x4x4x4 64-bit"* ]]
    [[ "$output" == *"scidac 35b49a1b b49a1b35 ok"* ]]
    [[ "$output" == *"plaquette 1.0000000000"* ]]
    [[ "$output" == *"link trace 1.0000000000"* ]]
}

@test "shared data: SIMULATeQCD NERSC two-row IEEE32BIG verifies" {
    need_data
    run -0 "$CONV" --check "$DATA/simulateqcd-l6666.nersc"
    [[ "$output" == *"NERSC 4D_SU3_GAUGE IEEE32BIG SU(3) 6x6x6x6 32-bit"* ]]
    [[ "$output" == *"nersc ba83ff12 ok"* ]]
    [[ "$output" == *"plaquette 0.66064823"*"(matches file)"* ]]
    [[ "$output" == *"link trace 0.90159200"*"(matches file)"* ]]
}

@test "shared data: CPS NERSC IEEE64LITTLE verifies" {
    need_data
    run -0 "$CONV" --check "$DATA/cps-l4448.nersc"
    [[ "$output" == *"IEEE64LITTLE SU(3) 4x4x4x8 64-bit"* ]]
    [[ "$output" == *"nersc f2ee7c36 ok"* ]]
    [[ "$output" == *"plaquette 0.5985455591 (matches file)"* ]]
    [[ "$output" == *"link trace -0.0007741846 (matches file)"* ]]
}

@test "shared data: --check json carries the numbers" {
    need_data
    run -0 "$CONV" --check --format json "$DATA/milc-l4444.ildg"
    [[ "$output" == "{"*"\"checksum\": \"scidac 37affb9c 2fc07bbf\""* ]] || [[ "$output" == *'"checksum":"scidac 37affb9c 2fc07bbf"'* ]]
    [[ "$output" == *0.59485015* ]]
}

@test "shared data: every file survives ILDG and NERSC round trips with the same plaquette" {
    need_data
    for f in milc-l4444.ildg tmlqcd-unit-l4444.lime simulateqcd-l6666.nersc cps-l4448.nersc; do
        p0=$("$CONV" --check --format tsv "$DATA/$f" | tail -1 | cut -f7)
        "$CONV" -o "$W/a.lime" "$DATA/$f"
        "$CONV" --to nersc --3x3 -o "$W/a.nersc" "$W/a.lime" 2>/dev/null
        p1=$("$CONV" --check --format tsv "$W/a.lime" | tail -1 | cut -f7)
        p2=$("$CONV" --check --format tsv "$W/a.nersc" | tail -1 | cut -f7)
        # equal to rounding: a two-row 32-bit input gets its third row rounded
        awk -v a="$p0" -v b="$p1" -v c="$p2" 'BEGIN { d = a - b; e = a - c; exit !(d * d < 1e-18 && e * e < 1e-18) }' ||
            { echo "$f: $p0 vs ILDG $p1 vs NERSC 3x3 $p2"; return 1; }
        # and exactly for every file that is not two-row single precision
        if [ "$f" != simulateqcd-l6666.nersc ]; then [ "$p0" = "$p1" ] && [ "$p0" = "$p2" ]; fi
    done
}

@test "two-row NERSC keeps the bytes of exact fields: the tmLQCD unit file round trips bit for bit" {
    need_data
    "$CONV" --to nersc -o "$W/u.nersc" "$DATA/tmlqcd-unit-l4444.lime" 2>/dev/null
    "$CONV" --to ildg -o "$W/u.lime" "$W/u.nersc"
    # the rebuilt third row holds +0.0 where the file has +0.0, not -0.0
    cmp <(lime_payload "$DATA/tmlqcd-unit-l4444.lime" ildg-binary-data) <(lime_payload "$W/u.lime" ildg-binary-data)
}

@test "shared data: NERSC header keys of the CPS file are carried through ILDG back to NERSC" {
    need_data
    "$CONV" -o "$W/c.lime" "$DATA/cps-l4448.nersc"
    "$CONV" --to nersc -o "$W/c.nersc" "$W/c.lime" 2>/dev/null
    grep -a -q '^ENSEMBLE_LABEL = 4x4x4x8x4 rjt 2.13 m0.04$' "$W/c.nersc"
    grep -a -q '^SEQUENCE_NUMBER = 400$' "$W/c.nersc"
    grep -a -q '^CREATION_DATE = Mon Mar 27 13:58:25 2006$' "$W/c.nersc"
    grep -a -q '^FLOATING_POINT = IEEE64BIG$' "$W/c.nersc"
}

@test "shared data: the MILC scidac-record-xml is carried unchanged, bytes and all" {
    need_data
    "$CONV" -o "$W/m.lime" "$DATA/milc-l4444.ildg"
    cmp <(lime_payload "$DATA/milc-l4444.ildg" scidac-record-xml) <(lime_payload "$W/m.lime" scidac-record-xml)
    cmp <(lime_payload "$DATA/milc-l4444.ildg" scidac-file-xml) <(lime_payload "$W/m.lime" scidac-file-xml)
    cmp <(lime_payload "$DATA/milc-l4444.ildg" ildg-data-lfn) <(lime_payload "$W/m.lime" ildg-data-lfn)
    cmp <(lime_payload "$DATA/milc-l4444.ildg" ildg-binary-data) <(lime_payload "$W/m.lime" ildg-binary-data)
    lime_payload "$W/m.lime" scidac-checksum | grep -a -q '<suma>37affb9c</suma><sumb>2fc07bbf</sumb>'
}

# ---- our own inputs -----------------------------------------------------------

@test "a unit file built byte by byte reads, and its SciDAC checksum is 35b49a1b b49a1b35" {
    run -0 "$CONV" --check "$T/unit.lime"
    [[ "$output" == *"scidac 35b49a1b b49a1b35 ok"* ]]
    [[ "$output" == *"plaquette 1.0000000000"* ]]
    run -0 "$CONV" --check "$T/unit32.lime"
    [[ "$output" == *"4x4x2x6 32-bit, checksum none"* ]]
}

@test "ILDG output layout: record order, MB/ME, 8-byte alignment, NUL-terminated XML" {
    "$CONV" -o "$W/o.lime" "$T/hot.lime"
    run -0 lime_list "$W/o.lime"
    types=$(printf '%s\n' "${lines[@]}" | awk '{print $2 $3, $5}' | tr '\n' '|')
    [[ "$types" == "10 scidac-private-file-xml|01 scidac-file-xml|10 scidac-private-record-xml|00 scidac-record-xml|00 ildg-format|00 ildg-data-lfn|00 ildg-binary-data|01 scidac-checksum|"*"11 lat-history|" ]] || { echo "$types"; return 1; }
    for l in "${lines[@]}"; do
        off=${l%% *}
        [ $((off % 8)) -eq 0 ] || { echo "unaligned $l"; return 1; }
    done
    [ $(($(stat -c %s "$W/o.lime") % 8)) -eq 0 ]
    for r in scidac-private-file-xml scidac-private-record-xml ildg-format scidac-checksum; do
        [ "$(lime_payload "$W/o.lime" $r | tail -c 1 | od -An -tx1 | tr -d ' ')" = 00 ] || { echo "$r has no NUL"; return 1; }
    done
    lime_payload "$W/o.lime" ildg-format | grep -a -q '<field>su3gauge</field><precision>64</precision>'
    lime_payload "$W/o.lime" lat-history | grep -q 'lat-convert'
}

@test "ILDG output: binary record size and the history entry format" {
    "$CONV" --precision 32 -o "$W/o.lime" "$T/unit.lime"
    run -0 lime_list "$W/o.lime"
    [[ "$output" == *" 0 0 73728 ildg-binary-data"* ]]
    lime_payload "$W/o.lime" ildg-format | grep -a -q '<precision>32</precision><lx>4</lx><ly>4</ly><lz>4</lz><lt>4</lt>'
    # the carried record of the input, alone in its message
    [[ "$output" == *" 1 1 15 my-own-info"* ]]
    h=$(lime_payload "$W/o.lime" lat-history)
    [[ "$h" == $'2023-11-14T22:13:20Z\tlat-convert 0.1.0\tlat-convert --precision 32 -o '*$'\tfrom=ildg to=ildg precision=32' ]] || { echo "$h"; return 1; }
}

@test "NERSC output header: every recommended key as KEY = VALUE, hex checksum, explicit byte order" {
    "$CONV" --to nersc -o "$W/o.nersc" "$T/hot.lime" 2>/dev/null
    hdr=$(sed -n '1,/^END_HEADER$/p' "$W/o.nersc")
    [ "$(echo "$hdr" | head -1)" = BEGIN_HEADER ]
    for k in HDR_VERSION DATATYPE STORAGE_FORMAT DIMENSION_1 DIMENSION_2 DIMENSION_3 DIMENSION_4 LINK_TRACE PLAQUETTE \
        BOUNDARY_1 BOUNDARY_2 BOUNDARY_3 BOUNDARY_4 CHECKSUM ENSEMBLE_ID ENSEMBLE_LABEL SEQUENCE_NUMBER CREATOR \
        CREATOR_HARDWARE CREATION_DATE ARCHIVE_DATE FLOATING_POINT; do
        echo "$hdr" | grep -q "^$k = [^ ]" || { echo "missing $k"; return 1; }
    done
    echo "$hdr" | grep -q '^DATATYPE = 4D_SU3_GAUGE$'
    echo "$hdr" | grep -q '^FLOATING_POINT = IEEE64BIG$'
    echo "$hdr" | grep -Eq '^CHECKSUM = [0-9a-f]{1,8}$'
    [ "$(echo "$hdr" | sed '1d;$d' | grep -vc ' = ')" -eq 0 ]
    # binary size: header + V*4*12*8
    V=$(echo "$hdr" | awk -F' = ' '/^DIMENSION_/ {v = (v ? v : 1) * $2} END {print v}')
    [ $(($(stat -c %s "$W/o.nersc") - ${#hdr} - 1)) -eq $((V * 4 * 12 * 8)) ]
    "$CONV" --to nersc --3x3 --precision 32 -o "$W/p.nersc" "$T/hot.lime" 2>/dev/null
    grep -a -q '^DATATYPE = 4D_SU3_GAUGE_3x3$' "$W/p.nersc"
    grep -a -q '^FLOATING_POINT = IEEE32BIG$' "$W/p.nersc"
    run -0 "$CONV" --check "$W/p.nersc"
}

@test "NERSC output warns once that the history cannot be kept" {
    run --separate-stderr -0 "$CONV" --to nersc -o "$W/o.nersc" "$T/hot.lime"
    if lime_list "$T/hot.lime" | grep -q lat-history; then
        [ "$(printf '%s\n' "$stderr" | grep -c 'warning: .*cannot hold the history')" -eq 1 ] || { echo "$stderr"; return 1; }
    fi
    run --separate-stderr -0 "$CONV" --to nersc -o "$W/p.nersc" "$W/o.nersc"
    [ -z "$stderr" ]
}

@test "pipes: ILDG | NERSC 3x3 | ILDG equals the direct conversion, bit for bit" {
    "$CONV" --to nersc --3x3 < "$T/hot.lime" 2>/dev/null | "$CONV" --to ildg > "$W/p.lime"
    "$CONV" -o "$W/d.lime" "$T/hot.lime"
    cmp <(lime_payload "$W/p.lime" ildg-binary-data) <(lime_payload "$W/d.lime" ildg-binary-data)
    cmp <(lime_payload "$W/p.lime" scidac-checksum) <(lime_payload "$W/d.lime" scidac-checksum)
    cmp <(lime_payload "$W/p.lime" ildg-format) <(lime_payload "$W/d.lime" ildg-format)
}

@test "pipes: two-row NERSC through a pipe keeps the plaquette; 32-bit stays bit-identical" {
    a=$("$CONV" --to nersc < "$T/hot.lime" 2>/dev/null | "$CONV" --to ildg | "$CONV" --check --format tsv | tail -1 | cut -f7)
    b=$("$CONV" --check --format tsv "$T/hot.lime" | tail -1 | cut -f7)
    awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-12) }'
    "$CONV" --precision 32 < "$T/hot.lime" > "$W/s.lime"
    "$CONV" --to nersc --3x3 < "$W/s.lime" | "$CONV" > "$W/s2.lime"
    cmp <(lime_payload "$W/s.lime" ildg-binary-data) <(lime_payload "$W/s2.lime" ildg-binary-data)
}

@test "same input, same command, SOURCE_DATE_EPOCH set: byte-identical output" {
    cd "$W"
    "$CONV" -o out.lime "$T/hot.lime"
    cp out.lime first.lime
    "$CONV" -o out.lime "$T/hot.lime"
    cmp first.lime out.lime
    "$CONV" --to nersc -o out.nersc "$T/hot.lime" 2>/dev/null
    cp out.nersc first.nersc
    "$CONV" --to nersc -o out.nersc "$T/hot.lime" 2>/dev/null
    cmp first.nersc out.nersc
}

@test "-o may name the input" {
    cp "$T/hot.lime" "$W/x.lime"
    "$CONV" --precision 32 -o "$W/x.lime" "$W/x.lime"
    run -0 "$CONV" --check "$W/x.lime"
    [[ "$output" == *"32-bit"* ]]
    expect_clean x.lime
}

@test "-o a FIFO (or /dev/null) writes into it and leaves it a FIFO" {
    mkfifo "$W/fifo"
    cat "$W/fifo" > "$W/got" &
    "$CONV" -o "$W/fifo" "$T/unit.lime"
    wait
    [ -p "$W/fifo" ]
    run -0 "$CONV" --check "$W/got"
    expect_clean fifo got
}

@test "--extract-transform writes g(x) as a SciDAC ColorMatrix file of its own" {
    [ -x "$ROOT/bin/lat-randomize-orbit" ] || skip "bin/lat-randomize-orbit not built"
    "$ROOT/bin/lat-randomize-orbit" -q --seed 3 --track-transform -o "$W/o.lime" "$T/unit.lime"
    "$CONV" --extract-transform "$W/g.lime" "$W/o.lime"
    qio_records "$W/g.lime" $((256 * 18 * 8))
    [ "${#lines[@]}" -eq 6 ]
    lime_payload "$W/g.lime" scidac-private-record-xml |
        grep -a -q '<datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision><colors>3</colors><typesize>144</typesize><datacount>1</datacount>'
    lime_payload "$W/g.lime" scidac-private-file-xml | grep -a -q '<dims>4 4 4 4 </dims>'
    lime_payload "$W/g.lime" scidac-record-xml | grep -a -q '<nc>3</nc><lx>4</lx><ly>4</ly><lz>4</lz><lt>4</lt>'
    cmp <(lime_payload "$W/g.lime" scidac-binary-data) <(lime_payload "$W/o.lime" lat-gauge-transform)
    # with -o the configuration is written too, and carries the transform on
    "$CONV" --extract-transform "$W/g2.lime" -o "$W/c.lime" "$W/o.lime"
    cmp "$W/g.lime" "$W/g2.lime"
    run -0 "$CONV" --check "$W/c.lime"
    [[ "$output" == *"gauge transform"* ]]
}

@test "--extract-transform without a tracked transform: error, no file" {
    expect_error 1 lat-convert "unit.lime: no tracked gauge transformation" -- "$CONV" --extract-transform "$W/g.lime" "$T/unit.lime"
    expect_clean
}

@test "records in any order: checksum and binary data before ildg-format" {
    d="$BATS_TEST_TMPDIR"
    make_unit_parts "$d" 4 4 4 4 64
    printf '<scidacChecksum><suma>35B49A1B</suma><sumb> b49a1b35 </sumb></scidacChecksum>' > "$d/sum"
    { lime_rec scidac-checksum 80 "$d/sum"; lime_rec ildg-binary-data 00 "$d/bin"; lime_rec ildg-format 40 "$d/fmt"; } > "$d/r.lime"
    run -0 "$CONV" --check "$d/r.lime"
    [[ "$output" == *"scidac 35b49a1b b49a1b35 ok"* ]]
    "$CONV" -o "$W/o.lime" "$d/r.lime"
    cmp <(lime_payload "$W/o.lime" ildg-binary-data) "$d/bin"
}

@test "two ildg-binary-data records: the first is used, with a warning" {
    d="$BATS_TEST_TMPDIR"
    make_unit_parts "$d" 4 4 4 4 64
    head -c 1000 /dev/zero > "$d/zeros"
    cat "$d/zeros" "$d/bin" | head -c "$(stat -c %s "$d/bin")" > "$d/bin2"
    { lime_rec ildg-format 80 "$d/fmt"; lime_rec ildg-binary-data 40 "$d/bin"; lime_rec ildg-binary-data c0 "$d/bin2"; } > "$d/two.lime"
    run --separate-stderr -0 "$CONV" -o "$W/o.lime" "$d/two.lime"
    [[ "$stderr" == *"warning: "*"2 ildg-binary-data records; using the first"* ]]
    cmp <(lime_payload "$W/o.lime" ildg-binary-data) "$d/bin"
    [ "$(lime_list "$W/o.lime" | grep -c ildg-binary-data)" -eq 1 ]
}

# ---- bad input ----------------------------------------------------------------

# a writable copy of the unit file with bytes patched: patch OUT OFFSET PRINTF-BYTES
patch_copy() { cp "$T/unit.lime" "$1"; chmod u+w "$1"; printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
binary_at() { lime_list "$T/unit.lime" | awk '$5 == "ildg-binary-data" {print $1 + 144}'; }
format_at() { lime_list "$T/unit.lime" | awk '$5 == "ildg-format" {print $1 + 144}'; }

bad_input_case() { # NAME STATUS PATTERN: runs lat-convert -o $W/out on $W/NAME, out must stay as it was
    local in=$1 st=$2 pat=$3
    echo original > "$W/out"
    cp "$W/out" "$W/out.orig"
    expect_error "$st" lat-convert "^lat-convert: $in: $pat" -- "$CONV" -o "$W/out" "$in"
    cmp "$W/out" "$W/out.orig"
    expect_error "$st" lat-convert "^lat-convert: $in: $pat" -- "$CONV" --check "$in"
}

@test "bad input: truncated inside a record header" {
    head -c 200 "$T/unit.lime" > "$BATS_TEST_TMPDIR/t.lime"
    cd "$BATS_TEST_TMPDIR"
    bad_input_case t.lime 1 "truncated: LIME record header at byte 160 ends after 40 of 144 bytes"
    cd "$W" && expect_clean out out.orig
}

@test "bad input: truncated inside the binary data (file and pipe)" {
    head -c 20000 "$T/unit.lime" > "$BATS_TEST_TMPDIR/t.lime"
    cd "$BATS_TEST_TMPDIR"
    bad_input_case t.lime 1 "truncated: payload of LIME record 'ildg-binary-data' .*ends after [0-9]+ of 147456 bytes"
    expect_error 1 lat-convert "^lat-convert: standard input: truncated: payload" -- sh -c "cat t.lime | '$CONV' -o '$W/new'"
    expect_clean out out.orig
}

@test "bad input: wrong magic number (first and a later record)" {
    cd "$BATS_TEST_TMPDIR"
    patch_copy m1.lime 0 '\x46'
    bad_input_case m1.lime 1 "not a gauge configuration lat reads"
    off=$(lime_list "$T/unit.lime" | awk '$5 == "ildg-format" {print $1}')
    patch_copy m2.lime "$off" '\x00'
    bad_input_case m2.lime 1 "not a LIME record header at byte $off: magic number 00"
}

@test "bad input: binary record length does not match ildg-format" {
    cd "$BATS_TEST_TMPDIR"
    off=$(format_at)
    pos=$(($(grep -boa '<lx>4</lx>' "$T/unit.lime" | cut -d: -f1) + 4))
    patch_copy l.lime "$pos" '8'
    bad_input_case l.lime 1 "ildg-binary-data record is 147456 bytes, expected 294912 for 8x4x4x4 SU\\(3\\) double"
}

@test "bad input: odd lattice extent" {
    cd "$BATS_TEST_TMPDIR"
    make_unit_ildg odd.lime 3 4 4 4 64
    bad_input_case odd.lime 1 "lattice 3x4x4x4 from ildg-format: lattice extents must be even"
    "$CONV" --to nersc -o n.nersc "$T/unit.lime"
    sed 's/^DIMENSION_2 = 4$/DIMENSION_2 = 5/' n.nersc > odd.nersc
    bad_input_case odd.nersc 1 "lattice 4x5x4x4 from the NERSC header: lattice extents must be even"
}

@test "bad input: SciDAC checksum mismatch" {
    cd "$BATS_TEST_TMPDIR"
    patch_copy c.lime $(($(binary_at) + 1000)) '\x01'
    bad_input_case c.lime 1 "scidac-checksum mismatch: the record says suma 35b49a1b sumb b49a1b35, the data gives"
}

@test "bad input: NERSC checksum, plaquette, link trace and size mismatches" {
    cd "$BATS_TEST_TMPDIR"
    "$CONV" --to nersc -o n.nersc "$T/hot.lime" 2>/dev/null
    sed 's/^CHECKSUM = .*/CHECKSUM = 1234abcd/' n.nersc > c.nersc
    bad_input_case c.nersc 1 "NERSC CHECKSUM mismatch: the header says 1234abcd"
    sed 's/^PLAQUETTE = .*/PLAQUETTE = 0.75/' n.nersc > p.nersc
    bad_input_case p.nersc 1 "NERSC PLAQUETTE mismatch: the header says 0.75"
    sed 's/^LINK_TRACE = .*/LINK_TRACE = 0.75/' n.nersc > t.nersc
    bad_input_case t.nersc 1 "NERSC LINK_TRACE mismatch: the header says 0.75"
    sed 's/^DATATYPE = .*/DATATYPE = 4D_SU3_GAUGE_3x3/' n.nersc > s.nersc
    bad_input_case s.nersc 1 "truncated: NERSC data ends after"
    { cat n.nersc; printf 'junk'; } > j.nersc
    bad_input_case j.nersc 1 "NERSC data is 4 bytes longer than"
    sed 's/^FLOATING_POINT = .*/FLOATING_POINT = VAX/' n.nersc > f.nersc
    bad_input_case f.nersc 1 "NERSC FLOATING_POINT VAX is not"
    grep -av '^CHECKSUM' n.nersc > m.nersc
    bad_input_case m.nersc 1 "NERSC header has no CHECKSUM"
    head -c 300 n.nersc > h.nersc
    bad_input_case h.nersc 1 "truncated: NERSC header ends at byte 300 without END_HEADER"
}

@test "bad input: NaN in a link names the site and the link" {
    cd "$BATS_TEST_TMPDIR"
    # site 5 = (x=1,y=1,z=0,t=0), link z (mu=2), element 4 = [1][1], imaginary part
    patch_copy n.lime $(($(binary_at) + 5 * 576 + 2 * 144 + 4 * 16 + 8)) '\x7f\xf8\x00\x00\x00\x00\x00\x00'
    bad_input_case n.lime 1 "ildg-binary-data: non-finite number \\(nan\\) in the link U_z at site x=1 y=1 z=0 t=0, element \\[1\\]\\[1\\] imaginary part"
    patch_copy i.lime $(($(binary_at) + 576 * 255 + 3 * 144)) '\x7f\xf0\x00\x00\x00\x00\x00\x00'
    bad_input_case i.lime 1 "ildg-binary-data: non-finite number \\(inf\\) in the link U_t at site x=3 y=3 z=3 t=3, element \\[0\\]\\[0\\] real part"
}

@test "bad input: empty input, garbage, unknown LIME version, not a gauge field" {
    cd "$BATS_TEST_TMPDIR"
    # (run --separate-stderr of bats 1.8 does not pass a redirected stdin on: use sh)
    expect_error 1 lat-convert "^lat-convert: standard input: empty input$" -- sh -c "'$CONV' --check < /dev/null"
    expect_error 1 lat-convert "^lat-convert: standard input: empty input$" -- sh -c "'$CONV' -o '$W/x.lime' - < /dev/null"
    : > empty
    bad_input_case empty 1 "empty input"
    echo "hello world, this is text" > text
    bad_input_case text 1 "not a gauge configuration lat reads"
    patch_copy v.lime 5 '\x02'
    bad_input_case v.lime 1 "LIME record header at byte 0 has version 2"
    pos=$(grep -boa 'su3gauge' "$T/unit.lime" | cut -d: -f1)
    patch_copy g.lime "$pos" 'su3propa'
    bad_input_case g.lime 1 "ildg-format field 'su3propa' is not a gauge field lat reads"
    expect_error 1 lat-convert "^lat-convert: nonexistent.lime: cannot open: No such file or directory$" -- "$CONV" --check nonexistent.lime
}

@test "bad input through a pipe leaves no output file and keeps an existing one" {
    cd "$W"
    echo precious > keep.lime
    cp keep.lime keep.orig
    expect_error 1 lat-convert "^lat-convert: standard input: truncated" -- sh -c "head -c 3000 '$T/unit.lime' | '$CONV' --to nersc -o keep.lime"
    cmp keep.lime keep.orig
    expect_clean keep.lime keep.orig
}

@test "binary output to a terminal is refused" {
    command -v script >/dev/null || skip "script(1) not available"
    run script -qec "'$CONV' '$T/unit.lime'" /dev/null
    [ "$status" -eq 1 ]
    [[ "$output" == *"lat-convert: standard output: refusing to write a binary configuration to a terminal"* ]]
    run script -qec "'$CONV' --check '$T/unit.lime'" /dev/null
    [ "$status" -eq 0 ]
    # lat-unitarity refuses before it reads or reports: the refusal is the only line
    run script -qec "'$ROOT/bin/lat-unitarity' --reproject '$T/unit.lime'" /dev/null
    [ "$status" -eq 1 ]
    [ "$(echo "$output" | grep -c .)" -eq 1 ]
    [[ "$output" == *"lat-unitarity: standard output: refusing to write a binary configuration to a terminal"* ]]
    run script -qec "'$ROOT/bin/lat-heatbath' -L 4x4x4x4 --sweeps 0 --start hot" /dev/null
    [ "$status" -eq 1 ]
    [[ "$output" == *"lat-heatbath: standard output: refusing to write a binary configuration to a terminal"* ]]
}

@test "usage errors exit 2 with one line" {
    expect_error 2 lat-convert "unknown option '--bogus'" -- "$CONV" --bogus
    expect_error 2 lat-convert "--to: 'vax' is not one of ildg\\|nersc" -- "$CONV" --to vax "$T/unit.lime"
    expect_error 2 lat-convert "--precision: '16' is not one of 32\\|64" -- "$CONV" --precision 16 "$T/unit.lime"
    expect_error 2 lat-convert "--3x3 applies to --to nersc only" -- "$CONV" --3x3 "$T/unit.lime"
    expect_error 2 lat-convert "--check writes nothing" -- "$CONV" --check -o x "$T/unit.lime"
    expect_error 2 lat-convert "one INPUT at most" -- "$CONV" a b
    expect_clean
}

@test "NERSC output of SU(2) is refused before anything is written" {
    [ -x "$ROOT/bin/lat-heatbath" ] || skip "bin/lat-heatbath not built"
    "$ROOT/bin/lat-heatbath" -q --sweeps 0 --start hot -N 2 -L 4 -o "$W/su2.lime" || skip "lat-heatbath cannot make SU(2) yet"
    run -0 "$CONV" --check "$W/su2.lime"
    [[ "$output" == *"SU(2)"* ]]
    lime_payload "$W/su2.lime" ildg-format | grep -a -q '<field>su2gauge</field>'
    expect_error 1 lat-convert "a NERSC file holds SU\\(3\\) only; this configuration is SU\\(2\\)" -- "$CONV" --to nersc -o "$W/x.nersc" "$W/su2.lime"
    expect_clean su2.lime
}

@test "help and version" {
    run -0 "$CONV" --help
    [[ "$output" == *"--extract-transform"* ]]
    run -0 "$CONV" --version
    [[ "$output" == "lat-convert (lat) "* ]]
    # options may follow the input
    run -0 "$CONV" "$T/unit.lime" --check
    [[ "$output" == *"scidac 35b49a1b b49a1b35 ok"* ]]
}
