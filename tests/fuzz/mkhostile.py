#!/usr/bin/env python3
"""mkhostile.py DIR -- write the malformed files of issue 12 into DIR, built
byte by byte here (no lat code): one or more per class of defect.

  hostile-*.{lime,nersc}  must be refused: exit 1, one sanitised line naming
                          the file, in under 2 s and 64 MiB
  good-*.lime             odd but valid XML: must be read (extents 4x4x4x4)

The names say the class: c1 size overflow, c2 slow XML, c3 huge allocation,
c4 terminal injection, c5 XML subset.  Also used to make the fuzz seeds
(--seeds DIR: small valid ILDG, NERSC and XML files)."""
import os
import struct
import sys


def lime(rtype, payload, mb=1, me=1, declared=None):
    n = len(payload) if declared is None else declared
    flags = (0x80 if mb else 0) | (0x40 if me else 0)
    h = struct.pack(">IHBBQ", 0x456789AB, 1, flags, 0, n) + rtype.ljust(128, b"\0")[:128]
    return h + payload + b"\0" * ((8 - len(payload) % 8) % 8)


def fmt_xml(lx=4, ly=4, lz=4, lt=4, prec=64, field=b"su3gauge", body=None):
    if body is None:
        body = b"<field>%s</field><precision>%d</precision><lx>%s</lx><ly>%s</ly><lz>%s</lz><lt>%s</lt>" % (
            field, prec, str(lx).encode(), str(ly).encode(), str(lz).encode(), str(lt).encode())
    return b'<?xml version="1.0" encoding="UTF-8"?><ildgFormat><version>1.0</version>' + body + b"</ildgFormat>\0"


def unit_data(V, prec=64):
    one, zero = (struct.pack(">d", 1.0), struct.pack(">d", 0.0)) if prec == 64 else (struct.pack(">f", 1.0), struct.pack(">f", 0.0))
    link = b"".join((one if (i // 2) % 4 == 0 and i % 2 == 0 else zero) for i in range(18))
    return link * (4 * V)


def ildg(fmt, data):
    return lime(b"ildg-format", fmt, 1, 0) + lime(b"ildg-binary-data", data, 0, 1)


def nersc(keys, data=b""):
    h = b"BEGIN_HEADER\n" + b"".join(b"%s = %s\n" % (k, v) for k, v in keys) + b"END_HEADER\n"
    return h + data


def nersc_keys(d=(4, 4, 4, 4), dt=b"4D_SU3_GAUGE_3x3", fp=b"IEEE64BIG", cks=b"0"):
    return [(b"HDR_VERSION", b"1.0"), (b"DATATYPE", dt)] + \
        [(b"DIMENSION_%d" % (i + 1), str(x).encode()) for i, x in enumerate(d)] + \
        [(b"CHECKSUM", cks), (b"FLOATING_POINT", fp)]


def nersc_unit(d=(2, 2, 2, 2)):
    V = d[0] * d[1] * d[2] * d[3]
    data = unit_data(V)
    s = 0
    for i in range(0, len(data), 4):
        s = (s + struct.unpack(">I", data[i:i + 4])[0]) & 0xFFFFFFFF
    return nersc(nersc_keys(d, cks=b"%x" % s), data)


E = 1 << 24
HUGE = (256, 256, 256, 128)  # 2^31 sites: allowed, 1.2 TB of double SU(3)


def hostile():
    f = {}
    v4 = unit_data(256)
    # c1: extents whose product overflows (each even, <= 2^24)
    f["c1-overflow.lime"] = ildg(fmt_xml(E, E, E, E), b"")
    f["c1-overflow-2.lime"] = ildg(fmt_xml(E, E, 2, 2 * E // 2), b"")
    f["c1-overflow.nersc"] = nersc(nersc_keys((E, E, E, E)))
    f["c1-overflow-3x.nersc"] = nersc(nersc_keys((E, 2, E, E), dt=b"4D_SU3_GAUGE"))
    # c2: XML that a scanner restarting at each '<' takes quadratic time on
    f["c2-format-128k.lime"] = ildg(b"<ildgFormat>" + b"<a" * 65536, v4)
    f["c2-format-1m.lime"] = ildg(b"<ildgFormat>" + b"<a" * (1 << 19), v4)
    f["c2-format-1m-b.lime"] = ildg(fmt_xml(body=b"<x>" + b"</" * (1 << 19) + b"</x>"), v4)
    f["c2-checksum-1m.lime"] = ildg(fmt_xml(), v4) + lime(b"scidac-checksum", b"<scidacChecksum>" + b"<s" * (1 << 19))
    # (an end-tag scan that ran to the next '>' for every "</": quadratic)
    f["c2-end-128k.lime"] = ildg(fmt_xml(body=b"<field>" + b"</" * 65536 + b"</field>"), v4)
    f["c2-end-1m.lime"] = ildg(fmt_xml(body=b"<field>" + b"</" * (1 << 19) + b"</field>"), v4)
    f["c2-checksum-end-1m.lime"] = ildg(fmt_xml(), v4) + lime(b"scidac-checksum", b"<scidacChecksum><suma>" + b"</" * (1 << 19) + b"</suma></scidacChecksum>")
    f["c2-deep-1m.lime"] = ildg(fmt_xml(body=b"<a>" * (1 << 18)), v4)
    # c3: sizes declared in headers with nothing behind them
    f["c3-record-16g.lime"] = lime(b"xlf-info", b"", declared=1 << 34)
    f["c3-binary-first-1g.lime"] = lime(b"ildg-binary-data", b"\0" * 1024, declared=1 << 30)
    f["c3-transform-8g.lime"] = ildg(fmt_xml(), v4) + lime(b"lat-gauge-transform", b"", declared=1 << 33)
    hx = fmt_xml(*HUGE)
    f["c3-huge-lattice.lime"] = lime(b"ildg-format", hx, 1, 0) + lime(b"ildg-binary-data", b"", 0, 1, declared=(1 << 31) * 4 * 18 * 8)
    f["c3-huge-lattice-32.lime"] = lime(b"ildg-format", fmt_xml(*HUGE, prec=32), 1, 0) + \
        lime(b"ildg-binary-data", b"\0" * 4096, 0, 1, declared=(1 << 31) * 4 * 18 * 4)
    f["c3-mid-lattice.lime"] = lime(b"ildg-format", fmt_xml(64, 64, 64, 64), 1, 0) + \
        lime(b"ildg-binary-data", b"\0" * 100000, 0, 1, declared=(1 << 24) * 4 * 18 * 8)
    f["c3-huge.nersc"] = nersc(nersc_keys(HUGE))
    f["c3-huge-bare.nersc"] = nersc(nersc_keys(HUGE, fp=b"IEEE32", dt=b"4D_SU3_GAUGE"), b"\0" * 4096)
    # c4: bytes of the file that must not reach the terminal raw
    esc = b"\x1b[2J\x1b]0;pwned\x07\r\nlat-convert: fake second line"
    f["c4-type.lime"] = lime(b"x" + esc, b"", declared=64)
    f["c4-field.lime"] = ildg(fmt_xml(field=b"su3" + esc.replace(b"<", b"")), v4)
    f["c4-precision.lime"] = ildg(fmt_xml(prec=3).replace(b"<precision>3<", b"<precision>3\x1b[31m\x9b2J<"), v4)
    f["c4-extent.lime"] = ildg(fmt_xml(lx="4\x1b[5m\u202e"), v4)
    f["c4-datatype.nersc"] = nersc(nersc_keys(dt=b"4D_SU3_GAUGE" + esc))
    f["c4-fp.nersc"] = nersc(nersc_keys(fp=b"IEEE" + esc))
    f["c4-checksum.nersc"] = nersc(nersc_keys(cks=esc))
    f["c4-dimension.nersc"] = nersc(nersc_keys(d=(4, 4, 4, b"4\x1b[1m\xff\xfe".decode("latin-1"))))
    f["c4-line.nersc"] = b"BEGIN_HEADER\n" + esc + b" " * 5000 + b"\n"
    # c5: XML that is not what it seems
    f["c5-duplicate.lime"] = ildg(fmt_xml(body=b"<field>su3gauge</field><precision>64</precision>"
                                          b"<lx>4</lx><ly>4</ly><lz>4</lz><lt>4</lt><lx>2</lx>"), v4)
    f["c5-plus.lime"] = ildg(fmt_xml(lx="+4"), v4)
    f["c5-space.lime"] = ildg(fmt_xml(lx="4 4"), v4)
    f["c5-hex.lime"] = ildg(fmt_xml(lx="0x4"), v4)
    f["c5-doctype.lime"] = ildg(b'<!DOCTYPE x [<!ENTITY a "4">]>' + fmt_xml(), v4)
    f["c5-unclosed.lime"] = ildg(fmt_xml()[:-15], v4)
    f["c5-mismatch.lime"] = ildg(fmt_xml().replace(b"</lx>", b"</ly>"), v4)
    f["c5-dup-suma.lime"] = ildg(fmt_xml(), v4) + lime(b"scidac-checksum",
                                                       b"<scidacChecksum><suma>0</suma><sumb>0</sumb><suma>1</suma></scidacChecksum>")
    f["c5-plus-suma.lime"] = ildg(fmt_xml(), v4) + lime(b"scidac-checksum",
                                                        b"<scidacChecksum><suma>+0</suma><sumb>0</sumb></scidacChecksum>")
    return f


def good():
    v4 = unit_data(256)
    f = {}
    f["good-comment.lime"] = ildg(fmt_xml(body=b"<!-- <lx>2</lx> --><field>su3gauge</field><precision>64</precision>"
                                          b"<lx>4</lx><ly>4</ly><lz>4</lz><lt>4</lt>"), v4)
    f["good-cdata.lime"] = ildg(fmt_xml(body=b"<![CDATA[<lx>2</lx><ly>2</ly>]]><field>su3gauge</field><precision>64</precision>"
                                        b"<lx>4</lx><ly>4</ly><lz>4</lz><lt>4</lt>"), v4)
    f["good-entities.lime"] = ildg(fmt_xml(body=b"<field>su3g<![CDATA[au]]>ge</field><precision>6&#52;</precision>"
                                           b"<lx>4</lx><ly> 4 </ly><lz>&#x34;</lz><lt>4<!-- x --></lt>"), v4)
    f["good-history-escape.lime"] = ildg(fmt_xml(), v4) + lime(
        b"lat-history", b"2023-11-14T22:13:20Z\tevil\x1b]0;pwned\x07 1\tcmd\x1b[2J\x9b\tF=1\x1b[31m\n")
    return f


def seeds():
    s = {}
    s["ildg/unit-2222.lime"] = ildg(fmt_xml(2, 2, 2, 2), unit_data(16))
    s["ildg/unit-2222-32.lime"] = ildg(fmt_xml(2, 2, 2, 2, prec=32), unit_data(16, 32))
    s["ildg/su2-2222.lime"] = ildg(fmt_xml(2, 2, 2, 2, field=b"su2gauge"), b"\0" * (16 * 4 * 8 * 8))
    s["ildg/with-checksum.lime"] = ildg(fmt_xml(2, 2, 2, 2), unit_data(16)) + \
        lime(b"scidac-checksum", b"<scidacChecksum><version>1.0</version><suma>0</suma><sumb>0</sumb></scidacChecksum>\0")
    s["ildg/record-xml.lime"] = lime(b"scidac-record-xml", b"<usqcdInfo><plaq>1</plaq><linktr>1</linktr></usqcdInfo>\0", 1, 1) + \
        ildg(fmt_xml(2, 2, 2, 2), unit_data(16))
    s["nersc/unit-2222-3x3.nersc"] = nersc_unit()
    s["nersc/plaq.nersc"] = nersc_unit().replace(b"END_HEADER", b"PLAQUETTE = 1.0\nLINK_TRACE = 1.0\nEND_HEADER")
    s["nersc/two-row.nersc"] = nersc(nersc_keys((2, 2, 2, 2), dt=b"4D_SU3_GAUGE", fp=b"IEEE32"), b"\0" * (16 * 4 * 12 * 4))
    s["xml/format.xml"] = fmt_xml()[:-1]
    s["xml/usqcd.xml"] = b"<?xml version='1.0'?><usqcdInfo><plaq>0.5</plaq><!-- c --><linktr a='1'>0.1</linktr></usqcdInfo>"
    s["xml/cdata.xml"] = b"<a><![CDATA[<b>]]>&lt;&#x41;<b/></a>"
    return s


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--seeds":
        files = seeds()
        out = sys.argv[2]
    elif len(sys.argv) == 2:
        files = dict(hostile(), **{"../good/" + k: v for k, v in good().items()})
        out = os.path.join(sys.argv[1], "hostile")
    else:
        sys.exit("usage: mkhostile.py DIR | mkhostile.py --seeds DIR")
    for name, data in files.items():
        p = os.path.normpath(os.path.join(out, name))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)


main()
