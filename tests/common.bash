# common.bash -- helpers the gauge-fixing Bats files share (source it in
# setup; needs $BIN).

# one value of a lat-measure tsv report
mval() { # FILE NAME [lat-measure options]
    local f=$1 n=$2
    shift 2
    "$BIN/lat-measure" -q --format tsv "$@" "$f" | awk -F'\t' -v n="$n" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }'
}
# |a - b| < tol
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }'; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# the last history entry's results
last_results() { "$BIN/lat-measure" -q --history --format tsv "$1" | tail -n 1 | cut -f 5; }

# status, one line on stderr naming the program, nothing on stdout
expect_error() { # STATUS PROGRAM-NAME -- command...
    local want=$1 name=$2
    shift 3
    run --separate-stderr "$@"
    [ "$status" -eq "$want" ] || { echo "status $status, expected $want; stderr: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "not one line: $stderr"; return 1; }
    [[ "$stderr" == "$name":\ * ]] || { echo "no program name: $stderr"; return 1; }
    [ -z "$output" ] || { echo "stdout not empty"; return 1; }
}
