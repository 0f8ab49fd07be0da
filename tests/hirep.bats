#!/usr/bin/env bats
# hirep.bats -- HiRep gauge files (common/io/hirep.c) through lat-convert:
# files made by an independent python3 encoder (its own site order, link
# layout and plaquette) read into exactly the ILDG bytes it predicts, from a
# file or a pipe, for SU(2) (quaternions and matrices), SU(3) and SU(4);
# ILDG -> HiRep -> ILDG bit-identical for lat-heatbath's SU(2), SU(3), SU(4);
# bad input (wrong header plaquette, truncated, trailing bytes, NG out of
# range, NaN) one line and exit 1; --precision 32 refused with an existing
# output untouched.  With GLU (../glu/bin/GLU, SU(3)) present: GLU reads
# lat's file with the same plaquette and lat reads GLU's HIREP output.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/glu.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() {
    lat_test_paths lat-convert || return 1
    command -v python3 >/dev/null || { echo "python3 is needed for the independent encoder" >&2; return 1; }
    local d="$BATS_FILE_TMPDIR"
    # The independent encoder: random SU(N) links, written in HiRep's
    # layout (header NG T X Y Z + plaquette, big-endian; sites t, x, y, z
    # fastest; directions t, x, y, z; SU(2) optionally as quaternions
    # U = [[q0 + i q3, -q2 + i q1], [q2 + i q1, q0 - i q3]]) and, for the
    # comparison, the ILDG binary payload of the same links (x fastest,
    # directions x, y, z, t).  Prints its own plaquette (1/(6 N V) sum Re tr).
    cat > "$d/enc.py" <<'EOF'
import cmath, math, random, struct, sys
out, ildg, N, X, Y, Z, T, rep, seed = sys.argv[1:10]
N, X, Y, Z, T, seed = int(N), int(X), int(Y), int(Z), int(T), int(seed)
plaq_shift = float(sys.argv[10]) if len(sys.argv) > 10 else 0.0
ng_hdr = int(sys.argv[11]) if len(sys.argv) > 11 else N
nan_at = int(sys.argv[12]) if len(sys.argv) > 12 else -1
rnd = random.Random(seed)
L = [X, Y, Z, T]
V = X * Y * Z * T
def quat():
    q = [rnd.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(a * a for a in q))
    return [a / n for a in q]
def su2(q):
    return [[complex(q[0], q[3]), complex(-q[2], q[1])], [complex(q[2], q[1]), complex(q[0], -q[3])]]
def sun():
    rows = []
    for i in range(N):
        v = [complex(rnd.gauss(0, 1), rnd.gauss(0, 1)) for _ in range(N)]
        for r in rows:
            p = sum(a * b.conjugate() for a, b in zip(v, r))
            v = [a - p * b for a, b in zip(v, r)]
        n = math.sqrt(sum(abs(a) ** 2 for a in v))
        rows.append([a / n for a in v])
    # det by elimination, then the last row times conj(det): det 1
    m = [r[:] for r in rows]
    det = 1
    for c in range(N):
        piv = max(range(c, N), key=lambda r: abs(m[r][c]))
        if piv != c:
            m[c], m[piv] = m[piv], m[c]
            det = -det
        det *= m[c][c]
        for r in range(c + 1, N):
            f = m[r][c] / m[c][c]
            m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    rows[-1] = [a * det.conjugate() / abs(det) for a in rows[-1]]
    return rows
site = lambda x: x[0] + X * (x[1] + Y * (x[2] + Z * x[3]))  # ILDG order
U, Q = {}, {}
for s in range(V):
    for mu in range(4):
        if N == 2:
            Q[s, mu] = quat()
            U[s, mu] = su2(Q[s, mu])
        else:
            U[s, mu] = sun()
def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(N)) for j in range(N)] for i in range(N)]
def dag(a):
    return [[a[j][i].conjugate() for j in range(N)] for i in range(N)]
tot = 0.0
for s in range(V):
    x = [s % X, s // X % Y, s // (X * Y) % Z, s // (X * Y * Z)]
    for mu in range(4):
        for nu in range(mu + 1, 4):
            xm = x[:]; xm[mu] = (xm[mu] + 1) % L[mu]
            xn = x[:]; xn[nu] = (xn[nu] + 1) % L[nu]
            p = mul(mul(U[s, mu], U[site(xm), nu]), dag(mul(U[s, nu], U[site(xn), mu])))
            tot += sum(p[i][i].real for i in range(N))
plaq = tot / (6 * N * V)
def flat(m):
    r = []
    for row in m:
        for c in row:
            r += [c.real, c.imag]
    return r
vals = []
for t in range(T):
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                s = site([x, y, z, t])
                for mu in (3, 0, 1, 2):
                    vals += Q[s, mu] if rep == "quat" else flat(U[s, mu])
if nan_at >= 0:
    vals[nan_at] = float("nan")
with open(out, "wb") as f:
    f.write(struct.pack(">5i", ng_hdr, T, X, Y, Z))
    f.write(struct.pack(">d", plaq + plaq_shift))
    f.write(struct.pack(">%dd" % len(vals), *vals))
ild = []
for s in range(V):
    for mu in range(4):
        ild += flat(U[s, mu])
with open(ildg, "wb") as f:
    f.write(struct.pack(">%dd" % len(ild), *ild))
print("%.17g" % plaq)
EOF
    # extents all different so that any transposition shows
    python3 "$d/enc.py" "$d/su3.hirep" "$d/su3.ildgdata" 3 2 4 6 4 matrix 1 > "$d/su3.plaq"
    python3 "$d/enc.py" "$d/su4.hirep" "$d/su4.ildgdata" 4 4 2 2 6 matrix 2 > "$d/su4.plaq"
    python3 "$d/enc.py" "$d/su2q.hirep" "$d/su2q.ildgdata" 2 2 4 6 4 quat 3 > "$d/su2q.plaq"
    python3 "$d/enc.py" "$d/su2m.hirep" "$d/su2m.ildgdata" 2 4 2 2 4 matrix 4 > "$d/su2m.plaq"
}

setup() { lat_test_dirs; }

# NAME read from FILE (a path, or - with the file on a pipe): lat's ILDG
# payload equals the encoder's bytes and its plaquette the encoder's
reads_as_encoded() { # NAME [pipe]
    local n=$1
    if [ "${2:-}" = pipe ]; then cat "$T/$n.hirep" | "$CONV" -q --to ildg -o "$W/$n.lime" -
    else "$CONV" -q --to ildg -o "$W/$n.lime" "$T/$n.hirep"; fi
    lime_payload "$W/$n.lime" ildg-binary-data > "$W/$n.data"
    cmp "$W/$n.data" "$T/$n.ildgdata"
    close "$(mval "$W/$n.lime" plaquette)" "$(cat "$T/$n.plaq")" 1e-13
}

@test "python-encoded SU(3) and SU(4) files read into the links and plaquette the encoder predicts" {
    reads_as_encoded su3
    reads_as_encoded su4
    run -0 "$CONV" --check "$T/su3.hirep"
    [[ "$output" == *"HiRep SU(3) SU(3) 2x4x6x4 64-bit"* ]]
    [[ "$output" == *"(matches file)"* ]]
}

@test "python-encoded SU(2) files, quaternions and full matrices, read the same way" {
    reads_as_encoded su2q
    reads_as_encoded su2m
    run -0 "$CONV" --check "$T/su2q.hirep"
    [[ "$output" == *"HiRep SU(2) quaternions SU(2) 2x4x6x4"* ]]
    run -0 "$CONV" --check "$T/su2m.hirep"
    [[ "$output" == *"HiRep SU(2) matrices SU(2) 4x2x2x4"* ]]
}

@test "pipes: the same files from standard input (SU(2) decides quaternions or matrices by the length)" {
    reads_as_encoded su3 pipe
    reads_as_encoded su2q pipe
    reads_as_encoded su2m pipe
}

@test "HiRep -> ILDG -> HiRep keeps the header and the data bytes (quaternions stay quaternions)" {
    for n in su3 su4 su2q; do
        "$CONV" -q --to ildg -o "$W/$n.lime" "$T/$n.hirep"
        "$CONV" -q --to hirep -o "$W/$n.hirep" "$W/$n.lime" 2>/dev/null
        cmp <(head -c 20 "$T/$n.hirep") <(head -c 20 "$W/$n.hirep")
        cmp <(tail -c +29 "$T/$n.hirep") <(tail -c +29 "$W/$n.hirep")
        close "$(od -An -tf8 --endian=big -j20 -N8 "$W/$n.hirep")" "$(cat "$T/$n.plaq")" 1e-13
    done
    # matrices that are exactly quaternions (the encoder built them so) come
    # back as quaternions, half the size, and read into the same links
    "$CONV" -q --to hirep -o "$W/m.hirep" "$T/su2m.hirep"
    [ "$(stat -c %s "$W/m.hirep")" -eq $((28 + 64 * 4 * 4 * 8)) ]
    "$CONV" -q --to ildg -o "$W/m.lime" "$W/m.hirep"
    cmp <(lime_payload "$W/m.lime" ildg-binary-data) "$T/su2m.ildgdata"
}

@test "ILDG 64 -> HiRep -> ILDG is bit-identical for lat-heatbath's SU(2), SU(3) and SU(4)" {
    [ -x "$BIN/lat-heatbath" ] || skip "bin/lat-heatbath not built"
    for n in 2 3 4; do
        "$BIN/lat-heatbath" -q -N $n -b 2.5 --sweeps 1 --or 1 --start hot -s $n -L 4x2x2x6 -o "$W/h$n.lime"
        "$CONV" -q --to hirep -o "$W/h$n.hirep" "$W/h$n.lime" 2>/dev/null
        [ "$(stat -c %s "$W/h$n.hirep")" -eq $((28 + 96 * 4 * 2 * n * n * 8)) ] # lat's SU(2) is not exactly quaternions: matrices
        "$CONV" -q --to ildg -o "$W/r$n.lime" "$W/h$n.hirep"
        cmp <(lime_payload "$W/h$n.lime" ildg-binary-data) <(lime_payload "$W/r$n.lime" ildg-binary-data)
        [ "$(mval "$W/h$n.lime" plaquette)" = "$(mval "$W/r$n.lime" plaquette)" ]
    done
    # through pipes both ways
    "$CONV" -q --to hirep -o - "$W/h3.lime" 2>/dev/null | "$CONV" -q --to ildg -o "$W/p3.lime" -
    cmp <(lime_payload "$W/h3.lime" ildg-binary-data) <(lime_payload "$W/p3.lime" ildg-binary-data)
}

@test "the writer warns once that the history is not kept, and the unit SU(2) field goes as quaternions" {
    [ -x "$BIN/lat-heatbath" ] || skip "bin/lat-heatbath not built"
    "$BIN/lat-heatbath" -q -N 2 --sweeps 0 --start cold -L 2x2x2x2 -o "$W/u.lime"
    run --separate-stderr -0 "$CONV" --to hirep -o "$W/u.hirep" "$W/u.lime"
    [ "$stderr" = "lat-convert: warning: $W/u.hirep: a HiRep file cannot hold the history; not written" ]
    [ "$(stat -c %s "$W/u.hirep")" -eq $((28 + 16 * 4 * 4 * 8)) ]
    "$CONV" -q --to ildg -o "$W/u2.lime" "$W/u.hirep"
    cmp <(lime_payload "$W/u.lime" ildg-binary-data) <(lime_payload "$W/u2.lime" ildg-binary-data)
}

@test "bad input: a header plaquette off by 1e-8 is refused in one line" {
    python3 "$T/enc.py" "$W/p.hirep" "$W/p.data" 3 2 2 2 2 matrix 5 1e-8 > /dev/null
    expect_error 1 lat-convert "HiRep header plaquette mismatch: the header says" -- "$CONV" --check "$W/p.hirep"
    python3 "$T/enc.py" "$W/q.hirep" "$W/q.data" 3 2 2 2 2 matrix 5 1e-12 > /dev/null
    run -0 "$CONV" --check "$W/q.hirep"
}

@test "bad input: truncated (header, data; file and pipe) and trailing bytes, one line each" {
    cd "$W"
    head -c 20 "$T/su3.hirep" > h.hirep
    expect_error 1 lat-convert "truncated: the HiRep header \\(28 bytes\\) ends after 20 bytes" -- "$CONV" --check h.hirep
    head -c -8 "$T/su3.hirep" > t.hirep
    expect_error 1 lat-convert "t.hirep: truncated: HiRep data ends after 110584 of 110592 bytes \\(SU\\(3\\) 2x4x6x4\\)" -- "$CONV" --check t.hirep
    expect_error 1 lat-convert "standard input: truncated: HiRep data ends after 110584 of 110592 bytes" -- sh -c "cat t.hirep | '$CONV' -o new -"
    head -c -8 "$T/su2q.hirep" > tq.hirep
    expect_error 1 lat-convert "truncated: HiRep SU\\(2\\) data of 2x4x6x4 is 24576 bytes \\(quaternions\\) or 49152 \\(matrices\\), the file holds 24568" -- "$CONV" --check tq.hirep
    expect_error 1 lat-convert "standard input: truncated: HiRep SU\\(2\\) data .* the input holds 24568" -- sh -c "cat tq.hirep | '$CONV' -o new -"
    { cat "$T/su3.hirep"; printf 'x'; } > x.hirep
    expect_error 1 lat-convert "x.hirep: HiRep data is 1 bytes longer than the 110592 that SU\\(3\\) 2x4x6x4 needs" -- "$CONV" --check x.hirep
    expect_error 1 lat-convert "standard input: HiRep data is 1 bytes longer" -- sh -c "cat x.hirep | '$CONV' -o new -"
    expect_clean h.hirep t.hirep tq.hirep x.hirep
}

@test "bad input: NG beyond LAT_NC_MAX, NG 1, an odd extent, NaN: one line each" {
    cd "$W"
    python3 - <<'EOF'
import struct
open("ng9.hirep", "wb").write(struct.pack(">5id", 9, 4, 4, 4, 4, 1.0) + b"\0" * 64)
open("ng1.hirep", "wb").write(struct.pack(">5id", 1, 4, 4, 4, 4, 1.0) + b"\0" * 64)
open("odd.hirep", "wb").write(struct.pack(">5id", 3, 4, 4, 3, 4, 1.0) + b"\0" * 64)
EOF
    expect_error 1 lat-convert "ng9.hirep: HiRep NG = 9: lat reads SU\\(N\\) for N = 2\\.\\.8" -- "$CONV" --check ng9.hirep
    expect_error 1 lat-convert "ng1.hirep: HiRep NG = 1: lat reads SU\\(N\\) for N = 2\\.\\.8" -- "$CONV" --check ng1.hirep
    expect_error 1 lat-convert "odd.hirep: lattice 4x3x4x4 \\(x y z t\\) from the HiRep header: lattice extents must be even" -- "$CONV" --check odd.hirep
    python3 "$T/enc.py" nan.hirep nan.data 3 2 2 2 2 matrix 6 0 3 19 > /dev/null
    expect_error 1 lat-convert "nan.hirep: HiRep data: non-finite number \\(nan\\) in the link U_x at site x=0 y=0 z=0 t=0, element \\[0\\]\\[0\\] imaginary part" -- "$CONV" --check nan.hirep
}

@test "--precision 32 is refused in one line; the existing output stays untouched" {
    cd "$W"
    echo precious > keep.hirep
    cp keep.hirep keep.orig
    expect_error 1 lat-convert "keep.hirep: HiRep files hold 64-bit doubles only" -- "$CONV" --to hirep --precision 32 -o keep.hirep "$T/su3.hirep"
    cmp keep.hirep keep.orig
    expect_clean keep.hirep keep.orig
}

@test "a MILC file is not taken for HiRep" {
    python3 - "$W/milc" <<'EOF'
import struct, sys
# MILC v5 header start (big-endian): magic 20103, nx ny nz nt
open(sys.argv[1], "wb").write(struct.pack(">5i", 20103, 4, 4, 4, 4) + b"\0" * 200)
EOF
    run --separate-stderr "$CONV" --check "$W/milc"
    [[ "$stderr" != *"HiRep NG"* && "$stderr" != *"HiRep header"* && "$stderr" != *"HiRep data"* ]] || { echo "$stderr"; return 1; }
}

# ---- GLU (R. Hudspith), an SU(3) build, when it is there ----------------------

@test "GLU reads lat's HiRep file with the same plaquette and link trace" {
    need_glu
    cd "$W"
    glu_input SMEARING HIREP HIREP 2 4 6 4 > in
    "$CONV" -q --to hirep -o a.hirep "$T/su3.hirep"
    glu_run in a.hirep b.hirep glu.log
    glu_trace=$(glu_read_value glu.log trace)
    glu_plaq=$(glu_read_value glu.log plaquette)
    close "$glu_plaq" "$(cat "$T/su3.plaq")" 1e-13
    close "$glu_trace" "$(mval a.hirep link_trace)" 1e-13
}

@test "lat reads GLU's HIREP output: the links within 1e-14 of what GLU read, same plaquette" {
    need_glu
    cd "$W"
    glu_input SMEARING HIREP HIREP 2 4 6 4 > in
    glu_run in "$T/su3.hirep" glu.hirep glu.log
    run -0 "$CONV" --check glu.hirep
    [[ "$output" == *"HiRep SU(3) SU(3) 2x4x6x4 64-bit"*"(matches file)"* ]]
    "$CONV" -q --to ildg -o glu.lime glu.hirep
    # GLU reunitarises on reading and writing: rounding only
    paste <(od -An -v -tf8 --endian=big -w8 "$T/su3.ildgdata") <(lime_payload glu.lime ildg-binary-data | od -An -v -tf8 --endian=big -w8) |
        awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { print m; exit !(NR == 2 * 4 * 6 * 4 * 4 * 18 && m < 1e-14) }'
    close "$(mval glu.lime plaquette)" "$(cat "$T/su3.plaq")" 1e-13
}

@test "shared data + GLU: GLU's HIREP copy of the CPS NERSC file has the producer's plaquette and lat's links" {
    need_glu
    [ -f "$DATA/cps-l4448.nersc" ] || skip "../shared/data is absent: the CPS file cannot be tested"
    cd "$W"
    glu_input SMEARING NERSC HIREP 4 4 4 8 > in
    glu_run in "$DATA/cps-l4448.nersc" cps.hirep glu.log
    [ "$(od -An -td4 --endian=big -w20 -N20 cps.hirep | tr -s ' ')" = " 3 8 4 4 4" ] # NG, then T first
    run -0 "$CONV" --check cps.hirep
    # CPS recorded PLAQUETTE 0.5985455591, LINK_TRACE -0.0007741846376
    [[ "$output" == *"HiRep SU(3) SU(3) 4x4x4x8 64-bit"*"plaquette 0.5985455591 (matches file), link trace -0.0007741846"* ]]
    "$CONV" -q --to ildg -o cps.lime cps.hirep
    "$CONV" -q --to ildg -o ref.lime "$DATA/cps-l4448.nersc"
    paste <(lime_payload ref.lime ildg-binary-data | od -An -v -tf8 --endian=big -w8) <(lime_payload cps.lime ildg-binary-data | od -An -v -tf8 --endian=big -w8) |
        awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { print m; exit !(NR == 4 * 4 * 4 * 8 * 4 * 18 && m < 1e-14) }'
}
