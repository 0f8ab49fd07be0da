# lime.bash -- an independent LIME lister for the Bats tests (od only, no lat
# code): lime_list FILE prints one line per record,
#   OFFSET MB ME LENGTH TYPE
# and fails (status 1, message on stderr) when the framing is broken: wrong
# magic or version, header or payload cut short, a header not on an 8-byte
# boundary, or bytes after the last record beyond its padding.
# lime_payload FILE TYPE writes the payload of the first record of that type.

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
