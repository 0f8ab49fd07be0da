#!/usr/bin/env python3
"""propagator.py -- the independent side of tests/propagator.bats: a reader
of USQCD propagator files (LIME framing, QIO's XML, the SciDAC checksum with
zlib's CRC-32, big-endian values) and the free Wilson propagator in momentum
space, written here from the formulas (no code shared with lat).

  propagator.py read FILE                 check the file, print lattice, source, nc, prec
  propagator.py free FILE KAPPA BC        max |S_file - S_free| (BC: p,p,p,a style)
  propagator.py freepion LAT KAPPA BC SRC analytic free pion C(t), t from the source
  propagator.py writefree OUT LAT KAPPA BC SRC [FAULTS]   the free propagator as a file, encoded here;
                                          KAPPA 0: zero solutions (no free field computed);
                                          FAULTS (comma list) spoil the source of spin 0 colour 0 with
                                          valid checksums: nan@X (a NaN at site X), half@X (0.5 at site X)
  propagator.py mesons FILE               every channel's C(t), p = 0 and |p|^2 = 1 (12x12 matrices)
  propagator.py diff A B                  max |S_A - S_B| / max |S_A|
  propagator.py covariance FILE FILE2 G   max |S2(x) - g(x) S(x) g(x0)^dag| (G: SciDAC g(x) file)
Exit 1 with a message on any problem."""
import cmath, math, struct, sys, zlib, re

def die(msg):
    sys.stderr.write("propagator.py: %s\n" % msg)
    sys.exit(1)

def lime_records(path):
    data = open(path, "rb").read()
    pos, recs = 0, []
    while pos < len(data):
        if len(data) - pos < 144:
            die("%s: truncated LIME header at %d" % (path, pos))
        magic, ver, flags, n = struct.unpack(">IHHQ", data[pos:pos + 16])
        if magic != 0x456789AB or ver != 1:
            die("%s: bad LIME header at %d" % (path, pos))
        typ = data[pos + 16:pos + 144].rstrip(b"\0").decode()
        body = data[pos + 144:pos + 144 + n]
        if len(body) != n:
            die("%s: record %s truncated" % (path, typ))
        recs.append((typ, body, bool(flags & 0x8000), bool(flags & 0x4000)))
        pos += 144 + n + (-n) % 8
    return recs

def text(b):
    return b.rstrip(b"\0").decode()

def tag(xml, name):
    m = re.search(r"<%s>(.*?)</%s>" % (name, name), xml, re.S)
    return m.group(1).strip() if m else None

def checksum(site_bytes_list):
    a = b = 0
    for r, sb in enumerate(site_bytes_list):
        c = zlib.crc32(sb) & 0xffffffff
        for shift, acc in ((r % 29, 0), (r % 31, 1)):
            v = ((c << shift) | (c >> (32 - shift))) & 0xffffffff if shift else c
            if acc == 0: a ^= v
            else: b ^= v
    return a, b

def read_prop(path):
    """returns dict: L, nc, prec, cols {(s,c): list of V lists of 4*nc complex}, sources, info"""
    recs = lime_records(path)
    if recs[0][0] != "scidac-private-file-xml" or recs[1][0] != "scidac-file-xml":
        die("%s: does not start with the SciDAC file records" % path)
    if not (recs[0][2] and recs[1][3]):
        die("%s: message 1 flags wrong" % path)
    L = [int(v) for v in tag(text(recs[0][1]), "dims").split()]
    fx = text(recs[1][1])
    if tag(fx, "type") != "USQCD_DiracFermion_Source_Sink_Pairs":
        die("%s: file type %r" % (path, tag(fx, "type")))
    V = L[0] * L[1] * L[2] * L[3]
    out = {"L": L, "V": V, "cols": {}, "srcs": {}, "info": tag(fx, "info"), "history": None}
    i = 2
    while i < len(recs):
        typ = recs[i][0]
        if typ == "lat-history":
            out["history"] = text(recs[i][1]); i += 1; continue
        if typ != "scidac-private-record-xml":
            die("%s: unexpected record %s" % (path, typ))
        names = [r[0] for r in recs[i:i + 4]]
        if names != ["scidac-private-record-xml", "scidac-record-xml", "scidac-binary-data", "scidac-checksum"]:
            die("%s: field message %s" % (path, names))
        if not (recs[i][2] and recs[i + 3][3]) or recs[i + 1][2] or recs[i + 3][2]:
            die("%s: field message flags wrong" % path)
        px = text(recs[i][1])
        m = re.fullmatch(r"USQCD_([FD])(\d)_DiracFermion", tag(px, "datatype") or "")
        if not m:
            die("%s: datatype %r" % (path, tag(px, "datatype")))
        prec = 8 if m.group(1) == "D" else 4
        nc = int(m.group(2))
        if tag(px, "precision") != m.group(1) or int(tag(px, "colors")) != nc or int(tag(px, "spins")) != 4 \
                or int(tag(px, "typesize")) != 8 * nc * prec or int(tag(px, "datacount")) != 1:
            die("%s: private record XML inconsistent: %s" % (path, px))
        rx = text(recs[i + 1][1])
        s, c = int(tag(rx, "spin")), int(tag(rx, "color"))
        which = "srcs" if "<usqcdSourceInfo>" in rx else "cols" if "<usqcdPropInfo>" in rx else None
        if which is None:
            die("%s: record XML %s" % (path, rx))
        data = recs[i + 2][1]
        sb = 8 * nc * prec
        if len(data) != V * sb:
            die("%s: binary record %d bytes, expected %d" % (path, len(data), V * sb))
        sites = [data[k * sb:(k + 1) * sb] for k in range(V)]
        ca, cb = checksum(sites)
        ck = text(recs[i + 3][1])
        if int(tag(ck, "suma"), 16) != ca or int(tag(ck, "sumb"), 16) != cb:
            die("%s: checksum mismatch spin %d colour %d" % (path, s, c))
        fmt = ">%d%s" % (8 * nc, "d" if prec == 8 else "f")
        field = []
        for sbytes in sites:
            v = struct.unpack(fmt, sbytes)
            field.append([complex(v[2 * j], v[2 * j + 1]) for j in range(4 * nc)])
        if (s, c) in out[which]:
            die("%s: duplicate record spin %d colour %d" % (path, s, c))
        out[which][(s, c)] = field
        out["nc"], out["prec"] = nc, prec
        i += 4
    nc = out["nc"]
    for which in ("srcs", "cols"):
        if len(out[which]) != 4 * nc:
            die("%s: %d %s records" % (path, len(out[which]), which))
    return out

def coords(L, x):
    c = []
    for mu in range(4):
        c.append(x % L[mu]); x //= L[mu]
    return c

def site(L, c):
    return c[0] + L[0] * (c[1] + L[1] * (c[2] + L[2] * c[3]))

# DeGrand-Rossi, from lat(7)/Chroma: G[mu][row][col]
I = 1j
G = [[[0, 0, 0, I], [0, 0, I, 0], [0, -I, 0, 0], [-I, 0, 0, 0]],
     [[0, 0, 0, -1], [0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0]],
     [[0, 0, I, 0], [0, 0, 0, -I], [-I, 0, 0, 0], [0, I, 0, 0]],
     [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]]

def free_prop(L, kappa, bc, x0):
    """S(x, x0)[r][beta] (colour diagonal) as a list over sites of 4x4 complex"""
    theta = [0.0 if b == "p" else math.pi for b in bc.split(",")]
    V = L[0] * L[1] * L[2] * L[3]
    # momentum-space functions on the grid n: a/den and sin p_mu / den
    funcs = [[0j] * V for _ in range(5)]
    for n in range(V):
        nm = coords(L, n)
        p = [(2 * math.pi * nm[mu] + theta[mu]) / L[mu] for mu in range(4)]
        a = 1 - 2 * kappa * sum(math.cos(q) for q in p)
        den = a * a + 4 * kappa * kappa * sum(math.sin(q) ** 2 for q in p)
        funcs[0][n] = a / den
        for mu in range(4):
            funcs[1 + mu][n] = math.sin(p[mu]) / den
    # F(x) = 1/V sum_n e^{i p.(x - x0)} f(n), one axis at a time
    for f in range(5):
        arr = funcs[f]
        for mu in range(4):
            Lm = L[mu]
            new = [0j] * V
            ph = [[cmath.exp(I * ((2 * math.pi * k + theta[mu]) / Lm) * (xx - x0[mu])) for k in range(Lm)] for xx in range(Lm)]
            for idx in range(V):
                c = coords(L, idx)
                acc = 0j
                for k in range(Lm):
                    c2 = list(c); c2[mu] = k
                    acc += ph[c[mu]][k] * arr[site(L, c2)]
                new[idx] = acc / Lm
            arr = new
        funcs[f] = arr
    S = []
    for x in range(V):
        m = [[(funcs[0][x] if r == b else 0) - 2 * I * kappa * sum(G[mu][r][b] * funcs[1 + mu][x] for mu in range(4))
              for b in range(4)] for r in range(4)]
        S.append(m)
    return S

def cmd_free(path, kappa, bc):
    p = read_prop(path)
    nc, L = p["nc"], p["L"]
    src = [k for k, v in enumerate(p["srcs"][(0, 0)]) if abs(v[0]) > 0]
    if len(src) != 1:
        die("free: not a point source")
    x0 = coords(L, src[0])
    S = free_prop(L, kappa, bc, x0)
    err = 0.0
    for (beta, b), field in p["cols"].items():
        for x in range(p["V"]):
            for r in range(4):
                for a in range(nc):
                    want = S[x][r][beta] if a == b else 0
                    err = max(err, abs(field[x][r * nc + a] - want))
    print("%.3e" % err)

def cmd_freepion(lattice, kappa, bc, srcs):
    L = [int(v) for v in lattice.split("x")]
    x0 = [int(v) for v in srcs.split(",")]
    S = free_prop(L, kappa, bc, x0)
    T = L[3]
    C = [0.0] * T
    for x in range(len(S)):
        t = (coords(L, x)[3] - x0[3]) % T
        C[t] += 3 * sum(abs(S[x][r][b]) ** 2 for r in range(4) for b in range(4))
    print(" ".join("%.17g" % c for c in C))

def read_transform(path):
    recs = lime_records(path)
    bins = [r for r in recs if r[0] == "scidac-binary-data"]
    px = [text(r[1]) for r in recs if r[0] == "scidac-private-record-xml"][0]
    nc = int(tag(px, "colors"))
    data = bins[0][1]
    n = len(data) // 8
    v = struct.unpack(">%dd" % n, data)
    per = 2 * nc * nc
    return nc, [[complex(v[s * per + 2 * j], v[s * per + 2 * j + 1]) for j in range(nc * nc)] for s in range(n // per)]

def cmd_covariance(path1, path2, gpath):
    p, q = read_prop(path1), read_prop(path2)
    nc, g = read_transform(gpath)
    L = p["L"]
    src = [k for k, v in enumerate(p["srcs"][(0, 0)]) if abs(v[0]) > 0][0]
    g0 = g[src]
    err, scale = 0.0, 0.0
    for beta in range(4):
        for x in range(p["V"]):
            gx = g[x]
            for r in range(4):
                # S(x)_{r beta} as nc x nc: [a][b] = col (beta, b) at (r, a)
                Sm = [[p["cols"][(beta, b)][x][r * nc + a] for b in range(nc)] for a in range(nc)]
                for a in range(nc):
                    for b in range(nc):
                        want = sum(gx[a * nc + c] * Sm[c][d] * g0[b * nc + d].conjugate() for c in range(nc) for d in range(nc))
                        got = q["cols"][(beta, b)][x][r * nc + a]
                        err = max(err, abs(got - want))
                        scale = max(scale, abs(want))
    print("%.3e %.3e" % (err, scale))

def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]

def dag(a):
    return [[a[j][i].conjugate() if isinstance(a[j][i], complex) else a[j][i] for j in range(4)] for i in range(4)]

G5 = mm(mm(G[0], G[1]), mm(G[2], G[3]))
ONE = [[1 if i == j else 0 for j in range(4)] for i in range(4)]
CHANNELS = [("pi", [G5]), ("pi_t", [mm(G[3], G5)]), ("rho", [G[0], G[1], G[2]]), ("a0", [ONE]),
            ("a1", [mm(G[i], G5) for i in range(3)]), ("b1", [mm(G[0], G[1]), mm(G[1], G[2]), mm(G[2], G[0])])]

def cmd_mesons(path):
    """C(t) per channel at p = 0 and |p|^2 = 1: -tr[G S Gbar g5 S^dag g5], Gbar = gt G^dag gt"""
    p = read_prop(path)
    L, nc, V = p["L"], p["nc"], p["V"]
    src = [k for k, v in enumerate(p["srcs"][(0, 0)]) if abs(v[0]) > 0]
    x0 = coords(L, src[0])
    T = L[3]
    out = {}
    for name, gams in CHANNELS:
        C = [[0j] * T, [0j] * T]
        for g in gams:
            gbar = mm(mm(G[3], dag(g)), G[3])
            for x in range(V):
                c = coords(L, x)
                t = (c[3] - x0[3]) % T
                # S as 12x12: row (r, a), column (beta, b)
                S = [[p["cols"][(beta, b)][x][r * nc + a] for beta in range(4) for b in range(nc)] for r in range(4) for a in range(nc)]
                Sd = [[S[j][i].conjugate() for j in range(12)] for i in range(12)]
                def spin(m):  # 4x4 spin matrix to 12x12
                    return [[m[i // nc][j // nc] if i % nc == j % nc else 0 for j in range(12)] for i in range(12)]
                def mul(a, b):
                    return [[sum(a[i][k] * b[k][j] for k in range(12) if a[i][k] != 0) for j in range(12)] for i in range(12)]
                M = mul(mul(mul(mul(mul(spin(g), S), spin(gbar)), spin(G5)), Sd), spin(G5))
                tr = -sum(M[i][i] for i in range(12)) / len(gams)
                ph = sum(math.cos(2 * math.pi * (c[i] - x0[i]) / L[i]) for i in range(3)) / 3
                C[0][t] += tr
                C[1][t] += tr * ph
        out[name] = C
    for name, _ in CHANNELS:
        for pp in (0, 1):
            print("%s\t%d\t%s" % (name, pp, " ".join("%.17g" % v.real for v in out[name][pp])))

def lime_record(typ, body, mb, me):
    h = struct.pack(">IHHQ", 0x456789AB, 1, (0x8000 if mb else 0) | (0x4000 if me else 0), len(body))
    return h + typ.encode().ljust(128, b"\0") + body + b"\0" * ((-len(body)) % 8)

def cmd_writefree(out, lattice, kappa, bc, srcs, faults=""):
    """the analytic free propagator as a DD-pairs file, encoded here (64-bit)"""
    L = [int(v) for v in lattice.split("x")]
    x0 = [int(v) for v in srcs.split(",")]
    V, nc = L[0] * L[1] * L[2] * L[3], 3
    S = free_prop(L, kappa, bc, x0) if kappa else [[[0] * 4 for r in range(4)] for x in range(V)]
    spoil = {}  # site -> value put into real 5 (spin 0, colour 2, imaginary part) of the first source
    for f in filter(None, faults.split(",")):
        what, at = f.split("@")
        spoil[int(at)] = {"nan": float("nan"), "half": 0.5}[what]
    head = '<?xml version="1.0" encoding="UTF-8"?>'
    recs = [lime_record("scidac-private-file-xml", (head + "<scidacFile><version>1.1</version><spacetime>4</spacetime>"
                        "<dims>%d %d %d %d</dims><volfmt>0</volfmt></scidacFile>" % tuple(L)).encode() + b"\0", 1, 0),
            lime_record("scidac-file-xml", (head + "<usqcdPropFile><version>1.0</version><type>"
                        "USQCD_DiracFermion_Source_Sink_Pairs</type><info>python</info></usqcdPropFile>").encode() + b"\0", 0, 1)]
    s0 = site(L, x0)
    for beta in range(4):
        for b in range(nc):
            for kind in ("usqcdSourceInfo", "usqcdPropInfo"):
                sites = []
                for x in range(V):
                    vals = []
                    for r in range(4):
                        for a in range(nc):
                            if kind == "usqcdSourceInfo":
                                z = 1 if (x == s0 and r == beta and a == b) else 0
                            else:
                                z = S[x][r][beta] if a == b else 0
                            vals += [complex(z).real, complex(z).imag]
                    if kind == "usqcdSourceInfo" and beta == 0 and b == 0 and x in spoil:
                        vals[5] = spoil[x]
                    sites.append(struct.pack(">24d", *vals))
                ca, cb = checksum(sites)
                recs.append(lime_record("scidac-private-record-xml", (head + "<scidacRecord><version>1.1</version>"
                    "<recordtype>0</recordtype><datatype>USQCD_D3_DiracFermion</datatype><precision>D</precision>"
                    "<colors>3</colors><spins>4</spins><typesize>192</typesize><datacount>1</datacount></scidacRecord>").encode() + b"\0", 1, 0))
                recs.append(lime_record("scidac-record-xml", (head + "<%s><version>1.0</version><spin>%d</spin><color>%d</color>"
                    "<info>python</info></%s>" % (kind, beta, b, kind)).encode() + b"\0", 0, 0))
                recs.append(lime_record("scidac-binary-data", b"".join(sites), 0, 0))
                recs.append(lime_record("scidac-checksum", (head + "<scidacChecksum><version>1.0</version><suma>%x</suma>"
                    "<sumb>%x</sumb></scidacChecksum>" % (ca, cb)).encode() + b"\0", 0, 1))
    open(out, "wb").write(b"".join(recs))

def main():
    a = sys.argv[1:]
    if not a:
        die("usage: see the docstring")
    if a[0] == "read":
        p = read_prop(a[1])
        src = sorted(k for k, v in enumerate(p["srcs"][(0, 0)]) if abs(v[0]) > 0)
        print("lattice=%s nc=%d prec=%d sources=%d first=%s" % ("x".join(map(str, p["L"])), p["nc"], p["prec"] * 8,
                                                            len(src), ",".join(map(str, coords(p["L"], src[0])))))
    elif a[0] == "diff":  # max |A - B| / max |A| over every solution value
        p, q = read_prop(a[1]), read_prop(a[2])
        d = m = 0.0
        for k in p["cols"]:
            for x in range(p["V"]):
                for u, v in zip(p["cols"][k][x], q["cols"][k][x]):
                    d = max(d, abs(u - v)); m = max(m, abs(u))
        print("%.3e" % (d / m))
    elif a[0] == "pattern":  # the file test_propagator writes: value sin(k + 0.1 j + 0.01 x)
        p = read_prop(a[1])
        src = [k for k, v in enumerate(p["srcs"][(0, 0)]) if abs(v[0]) > 0]
        err = 0.0
        for (s_, c_), f in p["cols"].items():
            k = s_ * 3 + c_
            for x in range(p["V"]):
                for j in range(12):
                    want = complex(math.sin(k + 0.1 * (2 * j) + 0.01 * x), math.sin(k + 0.1 * (2 * j + 1) + 0.01 * x))
                    err = max(err, abs(f[x][j] - want))
        print("%s %s %.3e %s" % (p["L"], coords(p["L"], src[0]), err, p["info"]))
    elif a[0] == "mesons":
        cmd_mesons(a[1])
    elif a[0] == "writefree":
        cmd_writefree(a[1], a[2], float(a[3]), a[4], a[5], a[6] if len(a) > 6 else "")
    elif a[0] == "free":
        cmd_free(a[1], float(a[2]), a[3])
    elif a[0] == "freepion":
        cmd_freepion(a[1], float(a[2]), a[3], a[4])
    elif a[0] == "covariance":
        cmd_covariance(a[1], a[2], a[3])
    else:
        die("unknown command %s" % a[0])

if __name__ == "__main__":
    main()
