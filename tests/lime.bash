# lime.bash -- an independent LIME lister for the Bats tests (od only, no lat
# code): lime_list FILE prints one line per record,
#   OFFSET MB ME LENGTH TYPE
# and fails (status 1, message on stderr) when the framing is broken: wrong
# magic or version, header or payload cut short, a header not on an 8-byte
# boundary, or bytes after the last record beyond its padding.
# lime_payload FILE TYPE writes the payload of the first record of that type.
# qio_records FILE DATA_BYTES (in a Bats test) checks that FILE begins with
# the six records of a QIO/SciDAC file.

lime_list() {
    local f=$1 size off=0 h magic ver flags len type pad i b
    size=$(stat -c %s "$f")
    while [ "$off" -lt "$size" ]; do
        if [ $((off % 8)) -ne 0 ]; then echo "lime_list: header at $off not 8-byte aligned" >&2; return 1; fi
        if [ $((off + 144)) -gt "$size" ]; then echo "lime_list: truncated header at $off" >&2; return 1; fi
        # the 144 header bytes as 288 hex digits, one od call per record
        h=$(od -An -v -tx1 -j "$off" -N 144 "$f" | tr -d ' \n')
        magic=${h:0:8}
        if [ "$magic" != 456789ab ]; then echo "lime_list: bad magic $magic at $off" >&2; return 1; fi
        ver=${h:8:4}
        if [ "$ver" != 0001 ]; then echo "lime_list: bad version $ver at $off" >&2; return 1; fi
        flags=$((16#${h:12:2}))
        len=$((16#${h:16:16}))
        type=
        for ((i = 32; i < 288; i += 2)); do
            b=${h:i:2}
            [ "$b" = 00 ] && break
            printf -v b "\\x$b"
            type+=$b
        done
        echo "$off $(( (flags >> 7) & 1 )) $(( (flags >> 6) & 1 )) $len $type"
        pad=$(( (8 - len % 8) % 8 ))
        if [ $((off + 144 + len)) -gt "$size" ]; then echo "lime_list: truncated payload of $type at $off" >&2; return 1; fi
        off=$((off + 144 + len + pad))
    done
    if [ "$off" -ne "$size" ] && [ $((off - size)) -ge 8 ]; then echo "lime_list: size mismatch" >&2; return 1; fi
    return 0
}

# FILE begins with QIO's two messages, records and MB/ME flags in QIO's
# order: scidac-private-file-xml, scidac-file-xml | scidac-private-record-
# xml, scidac-record-xml, DATA_BYTES of scidac-binary-data, scidac-checksum.
# Leaves lime_list's lines in ${lines[@]} for what the caller checks after.
qio_records() { # FILE DATA_BYTES
    run -0 lime_list "$1" || return 1
    [[ "${lines[0]}" == "0 1 0 "*" scidac-private-file-xml" &&
        "${lines[1]}" == *" 0 1 "*" scidac-file-xml" &&
        "${lines[2]}" == *" 1 0 "*" scidac-private-record-xml" &&
        "${lines[3]}" == *" 0 0 "*" scidac-record-xml" &&
        "${lines[4]}" == *" 0 0 $2 scidac-binary-data" &&
        "${lines[5]}" == *" 0 1 "*" scidac-checksum" ]] || { echo "not QIO's records of $2 data bytes:"; printf '%s\n' "${lines[@]}"; return 1; }
}

lime_payload() {
    local f=$1 want=$2 off len type
    while read -r off _ _ len type; do
        if [ "$type" = "$want" ]; then
            tail -c +$((off + 145)) "$f" | head -c "$len"
            return 0
        fi
    done < <(lime_list "$f")
    return 1
}

# transform_reproduces IN FIXED L: the g(x) tracked in FIXED (SU(3), L^4,
# double), extracted as a SciDAC ColorMatrix file (its scidac-binary-data:
# one 3x3 complex matrix per site, big-endian doubles), applied to IN gives
# FIXED's links to 1e-12:
# U1_mu(x) =? g(x) U0_mu(x) g(x+mu)^dag, computed independently in awk.
# Needs $BIN; leaves g.lime, g.txt, u0.txt, u1.txt in the current directory.
transform_reproduces() {
    "$BIN/lat-convert" --extract-transform g.lime "$2"
    lime_payload g.lime scidac-binary-data | od -An -v -t f8 --endian=big -w8 > g.txt
    lime_payload "$1" ildg-binary-data | od -An -v -t f8 --endian=big -w8 > u0.txt
    lime_payload "$2" ildg-binary-data | od -An -v -t f8 --endian=big -w8 > u1.txt
    [ "$(wc -l < g.txt)" -eq $(($3 * $3 * $3 * $3 * 18)) ]
    awk -v L="$3" '
        FILENAME == ARGV[1] { g[ng++] = $1; next }
        FILENAME == ARGV[2] { u[nu++] = $1; next }
        { w[nw++] = $1 }
        function re(a, o, i, j) { return a[o + 2 * (3 * i + j)] }
        function im(a, o, i, j) { return a[o + 2 * (3 * i + j) + 1] }
        END {
            V = L * L * L * L; m = 0
            for (x = 0; x < V; x++) for (mu = 0; mu < 4; mu++) {
                s = 1; for (k = 0; k < mu; k++) s *= L
                c = int(x / s) % L
                y = (c == L - 1) ? x - (L - 1) * s : x + s
                gx = 18 * x; gy = 18 * y; ou = 18 * (4 * x + mu)
                for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) {   # t = g(x) U
                    tr[i, j] = 0; ti[i, j] = 0
                    for (k = 0; k < 3; k++) {
                        tr[i, j] += re(g, gx, i, k) * re(u, ou, k, j) - im(g, gx, i, k) * im(u, ou, k, j)
                        ti[i, j] += re(g, gx, i, k) * im(u, ou, k, j) + im(g, gx, i, k) * re(u, ou, k, j)
                    }
                }
                for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) {   # t g(y)^dag
                    ar = 0; ai = 0
                    for (k = 0; k < 3; k++) {
                        ar += tr[i, k] * re(g, gy, j, k) + ti[i, k] * im(g, gy, j, k)
                        ai += ti[i, k] * re(g, gy, j, k) - tr[i, k] * im(g, gy, j, k)
                    }
                    d = ar - re(w, ou, i, j); if (d < 0) d = -d; if (d > m) m = d
                    d = ai - im(w, ou, i, j); if (d < 0) d = -d; if (d > m) m = d
                }
            }
            printf "max deviation %g\n", m
            exit !(m < 1e-12 && nw == nu && nu == 4 * 18 * V)
        }' g.txt u0.txt u1.txt
}
