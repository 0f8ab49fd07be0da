#!/usr/bin/env python3
"""bsign_flip.py -- an encoder independent of lat for the boundary-sign tests
(tests/bsign.bats): read an ILDG (LIME) file, multiply links by -1, write it
back with a new scidac-checksum and a new usqcdInfo link trace.

  bsign_flip.py IN OUT                 the time links at t = LT-1 (what QUDA
                                       and SIMULATeQCD bake in)
  bsign_flip.py IN OUT X Y Z T MU      the one link U_MU(x,y,z,t), MU 0..3

Prints "linktr=<the link trace of OUT>".  Only the Python standard
library: LIME framing (144-byte headers, payloads padded to 8 bytes), the
ILDG binary record (big-endian IEEE, sites x fastest, links x,y,z,t,
row-major N x N complex) and the SciDAC checksum of FORMATS.md section 3.7
(zlib CRC-32 of each site's bytes, rotated by the site index mod 29 and 31,
XORed) written here from that description."""
import re
import struct
import sys
import zlib

LIME_MAGIC = 0x456789AB


def read_lime(path):
    data = open(path, "rb").read()
    recs, off = [], 0
    while off < len(data):
        magic, ver, flags, length = struct.unpack(">IHHQ", data[off:off + 16])
        assert magic == LIME_MAGIC and ver == 1, "not LIME at %d" % off
        rtype = data[off + 16:off + 144].split(b"\0", 1)[0].decode()
        recs.append([rtype, flags, bytearray(data[off + 144:off + 144 + length])])
        off += 144 + length + (-length % 8)
    return recs


def write_lime(path, recs):
    with open(path, "wb") as f:
        for rtype, flags, payload in recs:
            f.write(struct.pack(">IHHQ", LIME_MAGIC, 1, flags, len(payload)))
            f.write(rtype.encode().ljust(128, b"\0"))
            f.write(payload + b"\0" * (-len(payload) % 8))


def xml_int(xml, tag):
    return int(re.search(r"<%s>\s*([0-9]+)\s*</%s>" % (tag, tag), xml).group(1))


def rotl(w, n):
    n %= 32
    return ((w << n) | (w >> (32 - n))) & 0xFFFFFFFF if n else w


def plaquette(data, L, nc, per_site, link_bytes, w, code):
    """average over the 6V plaquettes of (1/N) Re tr U_mu(x) U_nu(x+mu)
    U_mu(x+nu)^dag U_nu(x)^dag, periodic lattice"""
    V = L[0] * L[1] * L[2] * L[3]
    n2 = nc * nc
    vals = struct.unpack(">%d%s" % (len(data) // w, code[1]), bytes(data))
    links = []  # links[site][mu] = list of nc*nc complex, row-major
    per = per_site // w
    for s in range(V):
        site = []
        for mu in range(4):
            b = s * per + mu * 2 * n2
            site.append([complex(vals[b + 2 * k], vals[b + 2 * k + 1]) for k in range(n2)])
        links.append(site)

    def shift(s, mu):
        x = [s % L[0], s // L[0] % L[1], s // (L[0] * L[1]) % L[2], s // (L[0] * L[1] * L[2])]
        x[mu] = (x[mu] + 1) % L[mu]
        return x[0] + L[0] * (x[1] + L[1] * (x[2] + L[2] * x[3]))

    def mul(a, b):
        return [sum(a[i * nc + k] * b[k * nc + j] for k in range(nc)) for i in range(nc) for j in range(nc)]

    total = 0.0
    for s in range(V):
        for mu in range(4):
            for nu in range(mu + 1, 4):
                a = mul(links[s][mu], links[shift(s, mu)][nu])
                b = mul(links[s][nu], links[shift(s, nu)][mu])
                total += sum((a[k] * b[k].conjugate()).real for k in range(n2))  # Re tr a b^dag
    return total / (6 * nc * V)


def main():
    args = sys.argv[1:]
    src, dst, one = args[0], args[1], [int(a) for a in args[2:]]
    recs = read_lime(src)
    by_type = {r[0]: r for r in recs}
    fmt = by_type["ildg-format"][2].decode()
    L = [xml_int(fmt, t) for t in ("lx", "ly", "lz", "lt")]
    prec = xml_int(fmt, "precision")
    w, code = (8, ">d") if prec == 64 else (4, ">f")
    data = by_type["ildg-binary-data"][2]
    V = L[0] * L[1] * L[2] * L[3]
    per_site = len(data) // V
    nc = int(round((per_site // (4 * 2 * w)) ** 0.5))
    assert 4 * 2 * nc * nc * w * V == len(data), "binary record size"
    link_bytes = 2 * nc * nc * w

    def negate(site, mu):
        at = site * per_site + mu * link_bytes
        for k in range(2 * nc * nc):
            p = at + k * w
            (v,) = struct.unpack(code, data[p:p + w])
            data[p:p + w] = struct.pack(code, -v)

    v3 = L[0] * L[1] * L[2]
    if one:
        x, y, z, t, mu = one
        negate(x + L[0] * (y + L[1] * (z + L[2] * t)), mu)
    else:
        for s in range((L[3] - 1) * v3, V):
            negate(s, 3)

    suma = sumb = 0
    trace = 0.0
    for s in range(V):
        site = bytes(data[s * per_site:(s + 1) * per_site])
        crc = zlib.crc32(site) & 0xFFFFFFFF
        suma ^= rotl(crc, s % 29)
        sumb ^= rotl(crc, s % 31)
        for mu in range(4):
            for i in range(nc):  # Re U_ii: real part of diagonal element i
                p = mu * link_bytes + (i * nc + i) * 2 * w
                trace += struct.unpack(code, site[p:p + w])[0]
    linktr = trace / (4 * nc * V)
    plaq = plaquette(data, L, nc, per_site, link_bytes, w, code)

    for r in recs:
        text = r[2].decode("latin-1")
        if r[0] == "scidac-checksum":
            text = re.sub(r"<suma>[^<]*</suma>", "<suma>%x</suma>" % suma, text)
            text = re.sub(r"<sumb>[^<]*</sumb>", "<sumb>%x</sumb>" % sumb, text)
            r[2] = bytearray(text.encode("latin-1"))
        elif r[0] == "scidac-record-xml" and "<linktr>" in text:
            text = re.sub(r"<linktr>[^<]*</linktr>", "<linktr>%.15g</linktr>" % linktr, text)
            text = re.sub(r"<plaq>[^<]*</plaq>", "<plaq>%.15g</plaq>" % plaq, text)
            r[2] = bytearray(text.encode("latin-1"))
    write_lime(dst, recs)
    print("plaq=%.15g linktr=%.15g suma=%x sumb=%x" % (plaq, linktr, suma, sumb))


if __name__ == "__main__":
    main()
