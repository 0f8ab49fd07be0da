#!/usr/bin/env bats
# scidac.bats -- SciDAC/QIO gauge files without ILDG records (common/io
# ildg.c reads them, ildg_write.c writes them, scidac.c has the datatype
# rules) and the tracked g(x) written as a SciDAC ColorMatrix file
# (lat-convert --extract-transform).  Checked against an independent
# encoder and decoder written here in python3 (struct, zlib.crc32, its own
# SU(3) matrices and plaquette; no lat code), the od-based LIME lister of
# tests/lime.bash, the real files of MILC (../realdata) and GLU (../glu)
# when they are there.

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/glu.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() {
    lat_test_paths lat-convert || return 1
    export PY="$BATS_FILE_TMPDIR/scidac.py"
    write_python "$PY"
    local d="$BATS_FILE_TMPDIR"
    # a configuration that is not the unit one: lat-heatbath, else the encoder's
    if ! "$ROOT/bin/lat-heatbath" -q --sweeps 2 --start hot --beta 6 -L 4x4x2x6 --seed 5 -o "$d/hot.lime" 2>/dev/null; then
        python3 "$PY" encode "$d/enc.scidac" 4x4x2x6 64 > /dev/null
        "$CONV" --to ildg -o "$d/hot.lime" "$d/enc.scidac"
    fi
    # what lat itself wrote (its usqcdInfo numbers are lat-convert's): the
    # round trips must give these files back
    "$CONV" -o "$d/ref.lime" "$d/hot.lime"
    # (a 32-bit file's usqcdInfo states the numbers of the field it came
    # from; written again from its own data they are the rounded data's)
    "$CONV" --precision 32 -o "$d/from64.lime" "$d/hot.lime"
    "$CONV" -o "$d/ref32.lime" "$d/from64.lime"
}

setup() { lat_test_dirs; }

# ---- the independent python3 side ------------------------------------------
write_python() {
    cat > "$1" <<'EOF'
import math, random, struct, sys, zlib

def rec(t, payload, mb, me):
    h = struct.pack('>IHBBQ', 0x456789ab, 1, (0x80 if mb else 0) | (0x40 if me else 0), 0, len(payload))
    return h + t.encode().ljust(128, b'\0') + payload + b'\0' * ((8 - len(payload) % 8) % 8)

def records(path):
    d, p, out = open(path, 'rb').read(), 0, []
    while p < len(d):
        magic, ver, flags, _, n = struct.unpack('>IHBBQ', d[p:p + 16])
        assert magic == 0x456789ab and ver == 1, 'bad LIME header at %d' % p
        out.append((d[p + 16:p + 144].split(b'\0')[0].decode(), d[p + 144:p + 144 + n]))
        p += 144 + n + (8 - n % 8) % 8
    return out

def first(path, t):
    return next(v for k, v in records(path) if k == t)

def text(x, tag):
    s = x.decode().rstrip('\0')
    return s[s.index('<%s>' % tag) + len(tag) + 2:s.index('</%s>' % tag)].strip()

def scidac_sum(data, site_bytes):
    a = b = 0
    rotl = lambda w, n: ((w << n) | (w >> (32 - n))) & 0xffffffff if n else w
    for r in range(len(data) // site_bytes):
        c = zlib.crc32(data[r * site_bytes:(r + 1) * site_bytes]) & 0xffffffff
        a ^= rotl(c, r % 29)
        b ^= rotl(c, r % 31)
    return a, b

def su3(rng):
    def unit(v):
        n = math.sqrt(sum(abs(z) ** 2 for z in v)); return [z / n for z in v]
    u = unit([complex(rng.gauss(0, 1), rng.gauss(0, 1)) for _ in range(3)])
    v = [complex(rng.gauss(0, 1), rng.gauss(0, 1)) for _ in range(3)]
    p = sum(a.conjugate() * b for a, b in zip(u, v))
    v = unit([b - p * a for a, b in zip(u, v)])
    w = [(u[1] * v[2] - u[2] * v[1]).conjugate(), (u[2] * v[0] - u[0] * v[2]).conjugate(), (u[0] * v[1] - u[1] * v[0]).conjugate()]
    return [u, v, w]

def mul(A, B): return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
def dag(A): return [[A[j][i].conjugate() for j in range(3)] for i in range(3)]

def links(vals, off):
    return [[complex(vals[off + 6 * i + 2 * j], vals[off + 6 * i + 2 * j + 1]) for j in range(3)] for i in range(3)]

def decode(data, prec):
    n = len(data) // (prec // 8)
    return struct.unpack('>%d%s' % (n, 'f' if prec == 32 else 'd'), data)

def up(x, mu, L):
    c = [x % L[0], x // L[0] % L[1], x // (L[0] * L[1]) % L[2], x // (L[0] * L[1] * L[2])]
    c[mu] = (c[mu] + 1) % L[mu]
    return c[0] + L[0] * (c[1] + L[1] * (c[2] + L[2] * c[3]))

def plaquette(vals, L):
    V, s = L[0] * L[1] * L[2] * L[3], 0.0
    U = lambda x, mu: links(vals, 18 * (4 * x + mu))
    for x in range(V):
        for mu in range(4):
            for nu in range(mu + 1, 4):
                P = mul(mul(U(x, mu), U(up(x, mu, L), nu)), dag(mul(U(x, nu), U(up(x, nu, L), mu))))
                s += sum(P[i][i].real for i in range(3)) / 3
    return s / (6 * V)

def encode(out, dims, prec, opts):
    L = [int(v) for v in dims.split('x')]
    V, prec = L[0] * L[1] * L[2] * L[3], int(prec)
    rng = random.Random(int(opts.get('seed', 7)))
    vals = []
    for _ in range(4 * V):
        for row in su3(rng):
            for z in row: vals += [z.real, z.imag]
    if prec == 32: vals = list(struct.unpack('>%df' % len(vals), struct.pack('>%df' % len(vals), *vals)))
    data = struct.pack('>%d%s' % (len(vals), 'f' if prec == 32 else 'd'), *vals)
    if 'cut' in opts: data = data[:-int(opts['cut'])]
    sb = 4 * 18 * prec // 8
    a, b = scidac_sum(data, sb)
    if 'badsum' in opts: a ^= 1
    quda = opts.get('style') == 'quda'
    P = 'D' if prec == 64 else 'F'
    dt = opts.get('datatype', ('QUDA_%sNc3_GaugeField' if quda else 'QDP_%s3_ColorMatrix') % P)
    head = '<?xml version="1.0" encoding="UTF-8"?>'
    pf = head + '<scidacFile><version>1.1</version><spacetime>4</spacetime><dims>%d %d %d %d </dims><volfmt>0</volfmt></scidacFile>' % tuple(L)
    pr = head + ('<scidacRecord><version>1.1</version><date>Tue Jan  1 00:00:00 2030 UTC</date><recordtype>0</recordtype>' if quda else
                 '<scidacRecord><version>1.0</version><date>Mon Feb 14 21:58:40 2005 UTC</date><globaldata>0</globaldata>')
    pr += '<datatype>%s</datatype><precision>%s</precision><colors>%s</colors>%s<typesize>%s</typesize><datacount>%s</datacount></scidacRecord>' % (
        dt, opts.get('precision', P), opts.get('colors', '3'), '<spins>0</spins>' if quda else '', opts.get('typesize', str(18 * prec // 8)),
        opts.get('datacount', '4'))
    ck = head + '<scidacChecksum><version>1.0</version><suma>%x</suma><sumb>%x</sumb></scidacChecksum>' % (a, b)
    rx = 'Dummy user record XML for lattice field' if not quda else head + '<qudaGaugeFieldFile><version>BETA</version></qudaGaugeFieldFile>'
    z = lambda s: s.encode() + b'\0'
    msg1 = [('scidac-private-file-xml', z(pf)), ('scidac-file-xml', z('Dummy user file XML'))]
    msg2 = [('scidac-private-record-xml', z(pr)), ('scidac-record-xml', z(rx)), ('scidac-binary-data', data), ('scidac-checksum', z(ck))]
    if 'nofile' in opts: msg1 = msg1[1:]
    if opts.get('order') == 'binfirst':  # data before the records that give its shape: one message each
        recs = [(t, p, 1, 1) for t, p in msg2[2:3] + msg1 + msg2[:2] + msg2[3:]]
    else:
        recs = [(t, p, i == 0, i == len(m) - 1) for m in (msg1, msg2) for i, (t, p) in enumerate(m)]
    open(out, 'wb').write(b''.join(rec(*r) for r in recs))
    print('%x %x %.15f' % (a, b, plaquette(vals, L) if 'noplaq' not in opts else 0))

def check_transform(gfile, before, after):
    """the SciDAC ColorMatrix file of g(x): its records, checksum, SU(3), and
    U_after(x, mu) = g(x) U_before(x, mu) g(x + mu)^dagger"""
    rs = dict(records(gfile))
    assert [k for k, _ in records(gfile)] == ['scidac-private-file-xml', 'scidac-file-xml', 'scidac-private-record-xml',
                                               'scidac-record-xml', 'scidac-binary-data', 'scidac-checksum']
    pr = rs['scidac-private-record-xml']
    assert (text(pr, 'datatype'), text(pr, 'precision'), text(pr, 'colors'), text(pr, 'typesize'), text(pr, 'datacount')) == \
        ('USQCD_D3_ColorMatrix', 'D', '3', '144', '1'), pr
    L = [int(v) for v in text(rs['scidac-private-file-xml'], 'dims').split()]
    V, data = L[0] * L[1] * L[2] * L[3], rs['scidac-binary-data']
    assert len(data) == V * 144
    a, b = scidac_sum(data, 144)
    assert (text(rs['scidac-checksum'], 'suma'), text(rs['scidac-checksum'], 'sumb')) == ('%x' % a, '%x' % b)
    rx = rs['scidac-record-xml'].decode()
    assert 'g(x) U_mu(x) g(x+mu)^dagger' in rx and '<nc>3</nc>' in rx, rx
    g = decode(data, 64)
    u0, u1 = decode(first(before, 'ildg-binary-data'), 64), decode(first(after, 'ildg-binary-data'), 64)
    dev = unit = 0.0
    for x in range(V):
        G = links(g, 18 * x)
        I = mul(G, dag(G))
        unit = max(unit, max(abs(I[i][j] - (i == j)) for i in range(3) for j in range(3)))
        for mu in range(4):
            W = mul(mul(G, links(u0, 18 * (4 * x + mu))), dag(links(g, 18 * up(x, mu, L))))
            R = links(u1, 18 * (4 * x + mu))
            dev = max(dev, max(abs(W[i][j] - R[i][j]) for i in range(3) for j in range(3)))
    print('unitarity %.3g deviation %.3g' % (unit, dev))
    assert unit < 1e-12 and dev < 1e-12

if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'encode':
        encode(sys.argv[2], sys.argv[3], sys.argv[4], dict(kv.split('=', 1) for kv in sys.argv[5:]))
    elif cmd == 'transform':
        check_transform(*sys.argv[2:5])
    elif cmd == 'payload':  # FILE TYPE: the first record of that type, to stdout
        sys.stdout.buffer.write(first(sys.argv[2], sys.argv[3]))
    elif cmd == 'same':  # A B: B has A's records in order, the same payloads; B's lat-history extends A's
        a, b = records(sys.argv[2]), records(sys.argv[3])
        assert [t for t, _ in a] == [t for t, _ in b], ([t for t, _ in a], [t for t, _ in b])
        for (t, x), (_, y) in zip(a, b):
            assert (y.startswith(x) and len(y) > len(x)) if t == 'lat-history' else x == y, 'record %s differs' % t
        print('%d records the same' % len(a))
    elif cmd == 'plaquette':  # FILE RECORD LxLxLxL PREC
        print('%.10f' % plaquette(decode(first(sys.argv[2], sys.argv[3]), int(sys.argv[5])), [int(v) for v in sys.argv[4].split('x')]))
EOF
}

# the first record of a type (python, so that a test stays fast)
payload() { python3 "$PY" payload "$@"; }

# ---- lat's own files --------------------------------------------------------

@test "--to scidac: QIO's record layout, no ILDG records, the checksum and usqcdInfo of the data" {
    "$CONV" --to scidac -o "$W/s.scidac" "$T/hot.lime"
    qio_records "$W/s.scidac" $((192 * 4 * 18 * 8))
    [[ "${lines[6]}" == *" 1 1 "*" lat-history" ]]
    [ "${#lines[@]}" -eq 7 ]
    payload "$W/s.scidac" scidac-private-record-xml |
        grep -a -q '<datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision><colors>3</colors><typesize>144</typesize><datacount>4</datacount>'
    payload "$W/s.scidac" scidac-private-file-xml | grep -a -q '<spacetime>4</spacetime><dims>4 4 2 6 </dims><volfmt>0</volfmt>'
    # the data is the ILDG file's, byte for byte, and so is its checksum
    cmp <(payload "$W/s.scidac" scidac-binary-data) <(payload "$T/hot.lime" ildg-binary-data)
    cmp <(payload "$W/s.scidac" scidac-checksum) <(payload "$T/hot.lime" scidac-checksum)
    run -0 "$CONV" --check "$W/s.scidac"
    [[ "$output" == *"SciDAC (QIO, no ILDG records) USQCD_D3_ColorMatrix SU(3) 4x4x2x6 64-bit"* ]]
    [[ "$output" == *"plaquette "*" (matches file)"* ]]
    [ "$(cval "$W/s.scidac" plaquette)" = "$(cval "$T/hot.lime" plaquette)" ]
}

@test "round trip ILDG -> SciDAC -> ILDG is bit-identical, 64 and 32 bits" {
    for p in "" 32; do
        "$CONV" --to scidac -o "$W/s$p.scidac" "$T/ref$p.lime"
        "$CONV" --to ildg -o "$W/back$p.lime" "$W/s$p.scidac"
        python3 "$PY" same "$T/ref$p.lime" "$W/back$p.lime"
        [ "$(payload "$W/back$p.lime" lat-history | wc -l)" -eq $(($(payload "$T/ref$p.lime" lat-history | wc -l) + 2)) ]
    done
    payload "$W/s32.scidac" scidac-private-record-xml | grep -a -q '<datatype>USQCD_F3_ColorMatrix</datatype><precision>F</precision><colors>3</colors><typesize>72</typesize>'
    # SciDAC -> SciDAC keeps the data too, through a pipe
    "$CONV" --to scidac "$W/s32.scidac" | "$CONV" --to scidac -o "$W/s32b.scidac" -
    cmp <(payload "$W/s32.scidac" scidac-binary-data) <(payload "$W/s32b.scidac" scidac-binary-data)
}

@test "an independent encoder's SciDAC files read: QIO/MILC single, QUDA double, SIMULATeQCD 2022, records in another order, a pipe" {
    # SIMULATeQCD's 2022 writer: USQCD_F3_ColorMatrix whatever the precision, which <precision> IEEE64BIG gives
    for v in "32 style=milc" "64 style=quda" "64 datatype=USQCD_F3_ColorMatrix precision=IEEE64BIG seed=5" \
        "64 style=quda order=binfirst" "32 order=binfirst seed=3"; do
        set -- $v
        read -r a b plaq < <(python3 "$PY" encode "$W/e.scidac" 2x4x2x4 "$@")
        read -r sum got_a got_b prec got_plaq < <(cval "$W/e.scidac" checksum precision plaquette)
        [ "$sum $got_a $got_b $prec" = "scidac $a $b $1" ]
        close "$got_plaq" "$plaq" 1e-13
        "$CONV" --to ildg -o "$W/e.lime" "$W/e.scidac"
        cmp <(payload "$W/e.scidac" scidac-binary-data) <(payload "$W/e.lime" ildg-binary-data)
    done
    # the last one through a pipe
    close "$(cat "$W/e.scidac" | cval - plaquette)" "$plaq" 1e-13
    run -0 "$CONV" --check "$W/e.scidac"
    [[ "$output" == *"SciDAC (QIO, no ILDG records) QDP_F3_ColorMatrix SU(3) 2x4x2x4 32-bit"* ]]
    python3 "$PY" encode "$W/q.scidac" 2x2x2x2 64 style=quda noplaq=1 > /dev/null
    run -0 "$CONV" --check "$W/q.scidac"
    [[ "$output" == *"SciDAC (QIO, no ILDG records) QUDA_DNc3_GaugeField SU(3) 2x2x2x2 64-bit"* ]]
    # the user records travel on
    "$CONV" --to ildg -o "$W/q.lime" "$W/q.scidac"
    cmp <(payload "$W/q.scidac" scidac-record-xml) <(payload "$W/q.lime" scidac-record-xml)
    cmp <(payload "$W/q.scidac" scidac-file-xml) <(payload "$W/q.lime" scidac-file-xml)
}

# an encoder variant (python options) must be refused with a message matching PATTERN, leaving no output
refused() { # PATTERN PRECISION OPTION...
    local pat=$1 prec=$2
    shift 2
    python3 "$PY" encode "$W/bad.scidac" 2x2x2x2 "$prec" noplaq=1 "$@" > /dev/null
    expect_error 1 lat-convert "bad.scidac: .*$pat" -- "$CONV" -o "$W/out.lime" "$W/bad.scidac"
    [ ! -e "$W/out.lime" ] || { echo "output left behind"; return 1; }
}

@test "bad SciDAC files: one line, exit 1, no output file" {
    refused 'scidac-checksum mismatch' 64 badsum=1
    refused "datatype 'QDP_D3_DiracFermion' is not a gauge field lat reads" 64 datatype=QDP_D3_DiracFermion
    refused "<typesize> '72' disagrees with QDP_D3_ColorMatrix D: one SU\(3\) matrix is 144 bytes" 64 typesize=72
    refused "datatype QDP_F3_ColorMatrix is single precision but <precision> says D" 32 precision=D typesize=144
    refused "datatype QDP_D3_ColorMatrix is SU\(3\) but <colors> says 2" 64 colors=2
    refused "<datacount> '1' is not 4" 64 datacount=1
    refused "SciDAC file without a scidac-private-file-xml record" 64 nofile=1
    refused "scidac-binary-data record is 9208 bytes, expected 9216 for 2x2x2x2 SU\(3\) double" 64 cut=8
    refused "<precision> 'X' is not F or D" 64 precision=X
    # through a pipe, onto an existing output: untouched
    echo keep > "$W/out.lime"
    python3 "$PY" encode "$W/bad.scidac" 2x2x2x2 64 badsum=1 noplaq=1 > /dev/null
    expect_error 1 lat-convert 'standard input: scidac-checksum mismatch' -- sh -c "cat '$W/bad.scidac' | '$CONV' --to scidac -o '$W/out.lime' -"
    [ "$(cat "$W/out.lime")" = keep ]
    [ "$(ls -A "$W" | tr '\n' ' ')" = "bad.scidac out.lime " ]
}

@test "--extract-transform: a SciDAC ColorMatrix file that an independent decoder verifies (checksum, SU(3), g U g^dagger)" {
    [ -x "$ROOT/bin/lat-randomize-orbit" ] || skip "bin/lat-randomize-orbit not built"
    "$ROOT/bin/lat-randomize-orbit" -q --seed 4 --track-transform -o "$W/o.lime" "$T/hot.lime"
    "$CONV" --extract-transform "$W/g.scidac" "$W/o.lime"
    run -0 python3 "$PY" transform "$W/g.scidac" "$T/hot.lime" "$W/o.lime"
    echo "$output"
    # a field of one matrix per site is not a configuration: lat says so
    expect_error 1 lat-convert "<datacount> '1' is not 4 \(one matrix per direction\): USQCD_D3_ColorMatrix is not a gauge configuration" -- \
        "$CONV" --check "$W/g.scidac"
    # to standard output, the same bytes
    "$CONV" --extract-transform - "$W/o.lime" > "$W/g2.scidac"
    cmp "$W/g.scidac" "$W/g2.scidac"
}

# ---- files of other programs ------------------------------------------------

@test "MILC's SciDAC samples (QIO, no ILDG records): checksums, and the plaquette of the ILDG twin and of MILC's binary" {
    [ -f "$REAL/lat.sample.l4444.scidac" ] && [ -f "$REAL/lat.sample.l4448.scidac" ] || skip "../realdata (MILC binary_samples) is absent"
    run -0 "$CONV" --check "$REAL/lat.sample.l4444.scidac"
    [[ "$output" == *"SciDAC (QIO, no ILDG records) QDP_F3_ColorMatrix SU(3) 4x4x4x4 32-bit, checksum scidac 37affb9c 2fc07bbf ok, plaquette 0.5948501589"* ]]
    [ "$(cval "$REAL/lat.sample.l4444.scidac" plaquette)" = "$(cval "$REAL/lat.sample.l4444.ildg" plaquette)" ]
    [ "$(cval "$REAL/lat.sample.l4444.scidac" link_trace)" = "$(cval "$REAL/lat.sample.l4444.ildg" link_trace)" ]
    run -0 "$CONV" --check "$REAL/lat.sample.l4448.scidac"
    [[ "$output" == *"4x4x4x8 32-bit, checksum scidac 1c5a6cb5 5dea327a ok"* ]]
    # its data is MILC's binary l4448 (big-endian, 96-byte header) byte for
    # byte, and the python plaquette of those bytes is lat's
    cmp <(payload "$REAL/lat.sample.l4448.scidac" scidac-binary-data) <(tail -c +97 "$REAL/lat.sample.l4448")
    close "$(cval "$REAL/lat.sample.l4448.scidac" plaquette)" \
        "$(python3 "$PY" plaquette "$REAL/lat.sample.l4448.scidac" scidac-binary-data 4x4x4x8 32)" 1e-10
    # to ILDG and back to SciDAC: the records other programs wrote are carried
    "$CONV" --to ildg -o "$W/m.lime" "$REAL/lat.sample.l4444.scidac"
    "$CONV" --to scidac -o "$W/m.scidac" "$W/m.lime"
    for r in scidac-file-xml scidac-record-xml scidac-binary-data scidac-checksum; do
        cmp <(payload "$REAL/lat.sample.l4444.scidac" $r) <(payload "$W/m.scidac" $r)
    done
    # MILC's ILDG file through SciDAC keeps its LFN
    "$CONV" --to scidac -o "$W/i.scidac" "$REAL/lat.sample.l4444.ildg"
    "$CONV" --to ildg -o "$W/i.lime" "$W/i.scidac"
    payload "$W/i.scidac" ildg-data-lfn | grep -a -q '^lfn://USQCD/MILC/test/lat.sample.l4444'
    for r in scidac-file-xml scidac-record-xml ildg-data-lfn ildg-binary-data scidac-checksum; do
        cmp <(payload "$REAL/lat.sample.l4444.ildg" $r) <(payload "$W/i.lime" $r)
    done
}

@test "GLU (HEADER = SCIDAC) reads lat's SciDAC files with lat's plaquette; lat reads GLU's SciDAC output" {
    need_glu
    glu_input REWRITE SCIDAC SCIDAC 4 4 2 6 > "$W/in"
    for p in 64 32; do
        "$CONV" --to scidac --precision $p -o "$W/l$p.scidac" "$T/hot.lime"
        (cd "$W" && glu_run in "l$p.scidac" "g$p.scidac" "glu$p.log")
        run ! grep -q 'Unequal checksums' "$W/glu$p.log"
        glu_plaq=$(glu_read_value "$W/glu$p.log" plaquette)
        glu_tr=$(glu_read_value "$W/glu$p.log" trace)
        echo "GLU $p-bit: plaquette $glu_plaq trace $glu_tr; lat $(cval "$W/l$p.scidac" plaquette)"
        close "$glu_plaq" "$(cval "$W/l$p.scidac" plaquette)" 1e-13
        close "$glu_tr" "$(cval "$W/l$p.scidac" link_trace)" 1e-13
        # GLU's file (QDP_D3_ColorMatrix, its own checksum) verifies in lat, same
        # plaquette (GLU re-unitarises what it reads: single-precision input
        # changes by its rounding)
        run -0 "$CONV" --check "$W/g$p.scidac"
        [[ "$output" == *"SciDAC (QIO, no ILDG records) QDP_D3_ColorMatrix SU(3) 4x4x2x6 64-bit, checksum scidac "*" ok"* ]]
        close "$(cval "$W/g$p.scidac" plaquette)" "$glu_plaq" "$([ $p = 64 ] && echo 1e-13 || echo 1e-6)"
    done
}
