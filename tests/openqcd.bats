#!/usr/bin/env bats
# openqcd.bats -- openQCD export ("CERN") files (common/io/openqcd.c, FORMATS.md
# §6) through lat-convert: round trips, an independent encoder (python3,
# written here from openQCD's archive.c notes, no lat code), the reader's
# refusals (plaquette, sizes, open boundary conditions, non-finite numbers,
# an oversized header on a pipe), the writer's (32 bits, SU(2)), and GLU
# (R. Hudspith's code, its CERN format) both ways when it is installed.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/glu.bash"

setup_file() {
    lat_test_paths lat-convert lat-heatbath || return 1
    local d="$BATS_FILE_TMPDIR"
    # four different extents, so that a mixed-up x/y/z/t order cannot pass
    "$ROOT/bin/lat-heatbath" -q --beta 5.8 --sweeps 2 --start hot -L 4x6x2x8 --seed 11 -o "$d/hot.lime"
    write_encoder "$d/oq.py"
    python3 "$d/oq.py" encode "$d/hot.lime" "$d/py.oqcd"
}

setup() { lat_test_dirs; }

# ---- an independent openQCD encoder/editor (python3, no lat code) ----------
# Reads a 64-bit ILDG file (LIME records ildg-format, ildg-binary-data:
# big-endian, x fastest, links x,y,z,t), computes the average Re tr U_p with
# math.fsum, and writes the openQCD export file the way archive.c describes:
# LE int32 N0..N3 (time first), LE double plaquette, then for x0, x1, x2, x3
# (x3 fastest) at odd points the links +0,-0,+1,-1,+2,-2,+3,-3 (0 = time).
write_encoder() {
    cat > "$1" <<'EOF'
import math, re, struct, sys

def lime_records(b):
    p, out = 0, {}
    while p + 144 <= len(b):
        magic, ver, flags, n = struct.unpack('>IHHQ', b[p:p + 16])
        assert magic == 0x456789ab
        typ = b[p + 16:p + 144].split(b'\0')[0].decode()
        out.setdefault(typ, b[p + 144:p + 144 + n])
        p += 144 + n + (-n % 8)
    return out

def read_ildg(path):
    r = lime_records(open(path, 'rb').read())
    xml = r['ildg-format'].decode()
    L = [int(re.search('<%s>\\s*(\\d+)' % t, xml).group(1)) for t in ('lx', 'ly', 'lz', 'lt')]
    assert int(re.search('<precision>\\s*(\\d+)', xml).group(1)) == 64
    d = r['ildg-binary-data']
    V = L[0] * L[1] * L[2] * L[3]
    vals = struct.unpack('>%dd' % (V * 72), d)
    U = {}
    i = 0
    for t in range(L[3]):
        for z in range(L[2]):
            for y in range(L[1]):
                for x in range(L[0]):
                    for mu in range(4):
                        U[(x, y, z, t, mu)] = [complex(vals[i + 2 * k], vals[i + 2 * k + 1]) for k in range(9)]
                        i += 18
    return L, U

def mul(a, b):
    return [sum(a[3 * i + k] * b[3 * k + j] for k in range(3)) for i in range(3) for j in range(3)]

def dag(a):
    return [a[3 * j + i].conjugate() for i in range(3) for j in range(3)]

def shift(L, c, mu, d):
    c = list(c)
    c[mu] = (c[mu] + d) % L[mu]
    return tuple(c)

def retr_plaquette(L, U):
    terms = []
    for x in range(L[0]):
        for y in range(L[1]):
            for z in range(L[2]):
                for t in range(L[3]):
                    c = (x, y, z, t)
                    for mu in range(4):
                        for nu in range(mu + 1, 4):
                            a = mul(U[c + (mu,)], U[shift(L, c, mu, 1) + (nu,)])
                            b = mul(U[c + (nu,)], U[shift(L, c, nu, 1) + (mu,)])
                            m = mul(a, dag(b))
                            terms.append((m[0] + m[4] + m[8]).real)
    return math.fsum(terms) / len(terms)

def write_openqcd(path, L, U, plaq):
    N = (L[3], L[0], L[1], L[2])              # openQCD: time first
    lat_dir = (3, 0, 1, 2)                    # openQCD direction k -> lat mu
    out = [struct.pack('<4i', *N), struct.pack('<d', plaq)]
    for x0 in range(N[0]):
        for x1 in range(N[1]):
            for x2 in range(N[2]):
                for x3 in range(N[3]):
                    if (x0 + x1 + x2 + x3) % 2 == 0:
                        continue
                    c = (x1, x2, x3, x0)       # lat coordinates x, y, z, t
                    for k in range(4):
                        mu = lat_dir[k]
                        for m in (U[c + (mu,)], U[shift(L, c, mu, -1) + (mu,)]):
                            out.append(struct.pack('<18d', *[v for z in m for v in (z.real, z.imag)]))
    open(path, 'wb').write(b''.join(out))

cmd = sys.argv[1]
if cmd == 'encode':            # ILDG OUT: the file openQCD would write
    L, U = read_ildg(sys.argv[2])
    write_openqcd(sys.argv[3], L, U, retr_plaquette(L, U))
elif cmd == 'openbc':          # ILDG OUT: openQCD's open boundary: U_0 at x0 = T-1 zero
    L, U = read_ildg(sys.argv[2])
    for (x, y, z, t, mu) in list(U):
        if mu == 3 and t == L[3] - 1:
            U[(x, y, z, t, mu)] = [0j] * 9
    write_openqcd(sys.argv[3], L, U, retr_plaquette(L, U))
elif cmd == 'plaq':            # OQCD: print the header plaquette
    print(repr(struct.unpack('<d', open(sys.argv[2], 'rb').read()[16:24])[0]))
elif cmd == 'setplaq':         # OQCD VALUE: overwrite the header plaquette
    b = bytearray(open(sys.argv[2], 'rb').read())
    b[16:24] = struct.pack('<d', float(sys.argv[3]))
    open(sys.argv[2], 'wb').write(bytes(b))
elif cmd == 'setdouble':       # OQCD INDEX VALUE [COUNT]: overwrite COUNT doubles of the links from INDEX
    b = bytearray(open(sys.argv[2], 'rb').read())
    o = 24 + 8 * int(sys.argv[3])
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    b[o:o + 8 * n] = struct.pack('<d', float(sys.argv[4])) * n
    open(sys.argv[2], 'wb').write(bytes(b))
EOF
}

oq() { python3 "$T/oq.py" "$@"; }

@test "openqcd: ILDG 64 -> openqcd -> ILDG is bit-identical (SciDAC checksum), file size as the format says" {
    "$CONV" --to openqcd -o "$W/a.oqcd" "$T/hot.lime" 2>/dev/null
    # 4x6x2x8: 24 header bytes + V/2 odd sites x 8 matrices x 18 doubles
    [ "$(stat -c %s "$W/a.oqcd")" -eq $((24 + 192 * 8 * 18 * 8)) ]
    [ "$(cval "$W/a.oqcd" format)" = "openQCD export" ]
    [ "$(cval "$W/a.oqcd" precision)" = 64 ]
    [ "$(cval "$W/a.oqcd" lattice)" = 4x6x2x8 ]
    "$CONV" -o "$W/b.lime" "$W/a.oqcd"
    [ "$(cval "$W/b.lime" checksum)" = "$(cval "$T/hot.lime" checksum)" ]
    [ "$(cval "$W/b.lime" plaquette)" = "$(cval "$T/hot.lime" plaquette)" ]
    # and again through pipes (the streaming reader), to a second openqcd file
    cat "$W/a.oqcd" | "$CONV" --to openqcd - > "$W/c.oqcd"
    cmp "$W/a.oqcd" "$W/c.oqcd"
}

@test "openqcd: lat's writer gives the independent encoder's bytes; the reader takes the encoder's file" {
    cp "$T/py.oqcd" "$W/py.oqcd"
    "$CONV" --to openqcd -o "$W/lat.oqcd" "$T/hot.lime" 2>/dev/null
    # the links bit for bit, the header plaquette to rounding
    cmp <(tail -c +25 "$W/py.oqcd") <(tail -c +25 "$W/lat.oqcd")
    cmp <(head -c 16 "$W/py.oqcd") <(head -c 16 "$W/lat.oqcd")
    close "$(oq plaq "$W/py.oqcd")" "$(oq plaq "$W/lat.oqcd")" 1e-13
    # the header is Re tr (x3) of lat's plaquette
    close "$(oq plaq "$W/py.oqcd")" "$(awk -v p="$(cval "$T/hot.lime" plaquette)" 'BEGIN { printf "%.17g", 3 * p }')" 1e-13
    "$CONV" -o "$W/back.lime" "$W/py.oqcd"
    [ "$(cval "$W/back.lime" checksum)" = "$(cval "$T/hot.lime" checksum)" ]
    close "$(cval "$W/py.oqcd" header_plaquette)" "$(cval "$T/hot.lime" plaquette)" 1e-13
}

@test "openqcd: a header plaquette that disagrees with the data: one line, exit 1, no output" {
    cp "$T/py.oqcd" "$W/bad.oqcd"
    p=$(oq plaq "$W/bad.oqcd")
    oq setplaq "$W/bad.oqcd" "$(awk -v p="$p" 'BEGIN { printf "%.17g", p + 1e-9 }')"
    expect_error 1 lat-convert -- "$CONV" -o "$W/out.lime" "$W/bad.oqcd"
    [[ "$stderr" == *"bad.oqcd: openQCD header plaquette mismatch"* ]]
    [ ! -e "$W/out.lime" ]
    # lat's normalisation (/3) in the header is a mismatch too
    oq setplaq "$W/bad.oqcd" "$(awk -v p="$p" 'BEGIN { printf "%.17g", p / 3 }')"
    expect_error 1 lat-convert -- "$CONV" --check "$W/bad.oqcd"
    oq setplaq "$W/bad.oqcd" nan
    expect_error 1 lat-convert -- "$CONV" --check "$W/bad.oqcd"
    [[ "$stderr" == *"plaquette is not a finite number"* ]]
}

@test "openqcd: truncated and overlong files and pipes are refused with one line" {
    "$CONV" --to openqcd -o "$W/a.oqcd" "$T/hot.lime" 2>/dev/null
    n=$(stat -c %s "$W/a.oqcd")
    head -c $((n - 8)) "$W/a.oqcd" > "$W/short.oqcd"
    expect_error 1 lat-convert -- "$CONV" --check "$W/short.oqcd"
    [[ "$stderr" == *"truncated: openQCD data ends after 221176 of 221184 bytes (4x6x2x8)"* ]]
    expect_error 1 lat-convert -- sh -c 'cat "$1" | "$2" --check -' sh "$W/short.oqcd" "$CONV"
    [[ "$stderr" == *"standard input: truncated: openQCD data ends after 221176 of 221184 bytes"* ]]
    head -c 20 "$W/a.oqcd" > "$W/head.oqcd"
    expect_error 1 lat-convert -- "$CONV" --check "$W/head.oqcd"
    [[ "$stderr" == *"header ends after 20 of 24 bytes"* ]]
    { cat "$W/a.oqcd"; printf 'xyz'; } > "$W/long.oqcd"
    expect_error 1 lat-convert -- "$CONV" --check "$W/long.oqcd"
    [[ "$stderr" == *"openQCD data is 3 bytes longer than the 221184 that 4x6x2x8 needs"* ]]
    expect_error 1 lat-convert -- sh -c 'cat "$1" | "$2" --check -' sh "$W/long.oqcd" "$CONV"
    [[ "$stderr" == *"3 bytes longer"* ]]
}

@test "openqcd: a big lattice in the header of a short pipe dies before the memory is taken" {
    # AddressSanitizer reserves terabytes of shadow address space at start,
    # which no address limit leaves room for (make check-sanitize sets
    # LAT_SANITIZE; there the fuzzers' -malloc_limit_mb checks this)
    [ -z "${LAT_SANITIZE:-}" ] || skip "under AddressSanitizer (no address-space limit possible)"
    # 1024x1024x1024x2 = 2^31 sites (the limit): 2.5 TB of links; the reader
    # must stop at the end of the 64 bytes given, under a 1 GB address limit
    expect_error 1 lat-convert -- bash -c 'ulimit -v 1000000; { printf "\x02\0\0\0\0\x04\0\0\0\x04\0\0\0\x04\0\0"; head -c 72 /dev/zero; } | "$1" --check -' bash "$CONV"
    [[ "$stderr" == *"truncated: openQCD data ends after 64 of "* ]]
}

@test "openqcd: an odd or zero extent is no openQCD header" {
    expect_error 1 lat-convert -- bash -c '{ printf "\x03\0\0\0\x04\0\0\0\x04\0\0\0\x04\0\0\0"; head -c 64 /dev/zero; } | "$1" --check -' bash "$CONV"
    [[ "$stderr" == *"not a gauge configuration lat reads"* ]]
}

@test "openqcd: HiRep- and MILC-like headers are not taken for openQCD" {
    # HiRep: big-endian int32 NG T X Y Z, double plaquette; MILC: magic 20103
    python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack(">5id", 3, 8, 4, 4, 4, 1.5) + bytes(4096))' > "$W/hirep"
    python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<5i", 20103, 4, 4, 4, 8) + bytes(4096))' > "$W/milc"
    for f in hirep milc; do
        run --separate-stderr "$CONV" --check "$W/$f"
        [ "$status" -ne 0 ]
        [[ "$stderr" != *"openQCD header"* && "$stderr" != *"openQCD data"* && "$stderr" != *"openQCD file"* ]]
    done
}

@test "openqcd: open/SF boundary conditions (zero time links at x0 = T-1) are refused naming the cause" {
    oq openbc "$T/hot.lime" "$W/open.oqcd"
    expect_error 1 lat-convert -- "$CONV" -o "$W/out.lime" "$W/open.oqcd"
    [[ "$stderr" == "lat-convert: $W/open.oqcd: openQCD file with open/SF boundary conditions (time links at x0 = T-1 = 7 are zero): lat handles periodic fields only" ]]
    [ ! -e "$W/out.lime" ]
    # one zero link elsewhere is not a boundary condition, but not SU(3) either
    cp "$T/py.oqcd" "$W/zero.oqcd"
    oq setdouble "$W/zero.oqcd" $((1152 / 8 * 5 + 36)) 0 18   # odd site 5, its +x link
    expect_error 1 lat-convert -- "$CONV" --check "$W/zero.oqcd"
    [[ "$stderr" == *"is the zero matrix, not SU(3)"* ]]
}

@test "openqcd: a non-finite number in the links is refused" {
    cp "$T/py.oqcd" "$W/nan.oqcd"
    oq setdouble "$W/nan.oqcd" 1000 inf
    expect_error 1 lat-convert -- "$CONV" --check "$W/nan.oqcd"
    [[ "$stderr" == *"openQCD data: non-finite number (inf)"* ]]
}

@test "openqcd: --to openqcd --precision 32 and SU(2) are refused, an existing output untouched" {
    printf 'keep me\n' > "$W/out.oqcd"
    expect_error 1 lat-convert -- "$CONV" --to openqcd --precision 32 -o "$W/out.oqcd" "$T/hot.lime"
    [[ "$stderr" == *"always 64-bit (double precision): 32-bit output refused"* ]]
    [ "$(cat "$W/out.oqcd")" = "keep me" ]
    [ -z "$(ls "$W" | grep -v '^out.oqcd$')" ]
    # a 32-bit input, nothing asked: written in double (and read back equal)
    "$CONV" --precision 32 -o "$W/in32.lime" "$T/hot.lime"
    "$CONV" --to openqcd -o "$W/from32.oqcd" "$W/in32.lime" 2>/dev/null
    [ "$(cval "$W/from32.oqcd" precision)" = 64 ]
    [ "$(cval "$W/from32.oqcd" plaquette)" = "$(cval "$W/in32.lime" plaquette)" ]
    "$ROOT/bin/lat-heatbath" -q --nc 2 --sweeps 0 --start hot -L 4 --seed 3 -o "$W/su2.lime"
    expect_error 1 lat-convert -- "$CONV" --to openqcd -o "$W/out.oqcd" "$W/su2.lime"
    [[ "$stderr" == *"SU(3) only"* ]]
    [ "$(cat "$W/out.oqcd")" = "keep me" ]
    [ -z "$(ls "$W" | grep tmp)" ]
}

@test "openqcd: the writer warns that the history does not fit; the reader says what it verified" {
    run --separate-stderr "$CONV" --to openqcd -o "$W/a.oqcd" "$T/hot.lime"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"an openQCD export file cannot hold the history; not written"* ]]
    run "$CONV" --check "$W/a.oqcd"
    [[ "$output" == *"openQCD export SU(3) 4x6x2x8 64-bit, checksum none, plaquette "*" (matches file)"* ]]
}

@test "openqcd: GLU reads lat's file with the same plaquette, and lat reads GLU's (skipped without GLU)" {
    need_glu
    # GLU's CERN reader indexes z by Lx (CERN.c CLS_to_GLU): cubic space only
    "$ROOT/bin/lat-heatbath" -q --beta 5.8 --sweeps 2 --start hot -L 6x6x6x4 --seed 4 -o "$W/g.lime"
    "$CONV" --to openqcd -o "$W/g.oqcd" "$W/g.lime" 2>/dev/null
    glu_input REWRITE CERN CERN 6 6 6 4 > "$W/glu.in"
    (cd "$W" && glu_run glu.in g.oqcd glu.oqcd glu.log)
    p=$(cval "$W/g.lime" plaquette)
    gp=$(awk '/^\[PLAQS SU\(3\)\] / { print $NF }' "$W/glu.log")
    close "$gp" "$p" 1e-14
    close "$(awk '/CLS header plaquette/ { print $NF }' "$W/glu.log")" "$p" 1e-14
    # GLU's own file: lat reads it (its header checked), same field to rounding
    close "$(cval "$W/glu.oqcd" plaquette)" "$p" 1e-14
    close "$(cval "$W/glu.oqcd" header_plaquette)" "$p" 1e-14
    close "$(cval "$W/glu.oqcd" link_trace)" "$(cval "$W/g.lime" link_trace)" 1e-14
}
