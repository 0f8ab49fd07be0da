#!/usr/bin/env bats
# hostile.bats -- issue 12: input made by a hostile user, signals and
# permissions.  The malformed files are built byte by byte by
# tests/fuzz/mkhostile.py (no lat code), one or more per class:
#   c1 header sizes whose product overflows   c2 XML that made the scanner slow
#   c3 sizes declared with nothing behind     c4 escape sequences in file bytes
#   c5 XML that is not what it seems          c6 lost errors on standard output
#   c7 signals in pipelines                   c8 permissions and symlinks of -o
# Each is refused with exit 1 and one sanitised line naming the file, in
# under 2 s and 64 MiB, leaving no file behind and an existing output as it
# was.  LAT_TEST_BIN / LAT_TEST_PIPE point the tests at other binaries (to
# see them fail on an older build).

bats_require_minimum_version 1.5.0

setup_file() {
    export ROOT="$BATS_TEST_DIRNAME/.."
    export BIN="${LAT_TEST_BIN:-$ROOT/bin}" PIPE="${LAT_TEST_PIPE:-$ROOT/pipelines}"
    export SOURCE_DATE_EPOCH=1700000000
    [ -x "$BIN/lat-convert" ] || { echo "bin/lat-convert missing: run make first" >&2; return 1; }
    python3 "$ROOT/tests/fuzz/mkhostile.py" "$BATS_FILE_TMPDIR" || return 1
    "$BIN/lat-heatbath" -q --sweeps 0 --start hot -L 4x4x4x4 --seed 5 -o "$BATS_FILE_TMPDIR/hot.lime" || return 1
}

setup() {
    H="$BATS_FILE_TMPDIR/hostile"
    G="$BATS_FILE_TMPDIR/good"
    W="$BATS_TEST_TMPDIR/w"
    mkdir -p "$W"
    cp "$BATS_FILE_TMPDIR/hot.lime" "$W/old.lime"
    cp "$W/old.lime" "$BATS_TEST_TMPDIR/old.ref"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# refused PROG ARGS... FILE: exit 1, one line "PROG: FILE: ...", no control
# byte in it, nothing on stdout, under 2 s; the line in $line
refused() {
    local prog=$1 f=${*: -1} t0 ms
    t0=$(now_ms)
    run --separate-stderr timeout 20 "$BIN/$@"
    ms=$(($(now_ms) - t0))
    line=$stderr
    [ "$status" -eq 1 ] || { echo "$prog ${f##*/}: status $status, stderr: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "$prog ${f##*/}: not one line: $stderr"; return 1; }
    [[ "$stderr" == "$prog: $f: "* || "$stderr" == "$prog: standard input: "* ]] ||
        { echo "$prog ${f##*/}: does not name the file: $stderr"; return 1; }
    if printf '%s' "$stderr" | LC_ALL=C grep -q '[[:cntrl:]]'; then echo "$prog ${f##*/}: control bytes: $(printf '%s' "$stderr" | od -c | head -3)"; return 1; fi
    [ -z "$output" ] || { echo "$prog ${f##*/}: stdout not empty"; return 1; }
    [ "$ms" -lt 2000 ] || { echo "$prog ${f##*/}: took $ms ms"; return 1; }
}

# nothing but old.lime in $W, and old.lime unchanged
untouched() {
    [ "$(cd "$W" && ls -A)" = old.lime ] || { echo "left in $W: $(cd "$W" && ls -A)"; return 1; }
    cmp -s "$W/old.lime" "$BATS_TEST_TMPDIR/old.ref" || { echo "old.lime changed"; return 1; }
}

@test "c1: lattice extents whose product overflows are refused by every reader" {
    for f in "$H"/c1-*; do
        refused lat-convert --check "$f"
        [[ "$line" == *"lattice volume above 2^31 sites"* ]] || { echo "$line"; return 1; }
        refused lat-measure "$f"
        refused lat-convert -o "$W/old.lime" "$f"
        untouched
    done
}

@test "c2: 128 KiB and 1 MiB XML records are refused at once (linear-time XML reader)" {
    for f in "$H"/c2-*; do
        refused lat-convert --check "$f"
        [[ "$line" == *"malformed XML"* ]] || { echo "$line"; return 1; }
    done
}

@test "c3: sizes declared without the data: no allocation, peak memory under 64 MiB, file and pipe" {
    command -v /usr/bin/time >/dev/null || skip "/usr/bin/time (Debian package time) is not installed"
    for f in "$H"/c3-*; do
        refused lat-convert --check "$f"
        [[ "$line" == *truncated* ]] || { echo "$line"; return 1; }
        for how in file pipe; do
            if [ $how = file ]; then /usr/bin/time -f %M -o "$W/../mem" "$BIN/lat-convert" --check "$f" 2>/dev/null >&2 || true
            else cat "$f" | /usr/bin/time -f %M -o "$W/../mem" "$BIN/lat-convert" --check - 2>/dev/null >&2 || true; fi
            kb=$(tail -1 "$W/../mem")
            [ "$kb" -lt 65536 ] || { echo "${f##*/} ($how): peak $kb KiB"; return 1; }
        done
    done
}

@test "c4: bytes of the file reach the error line only escaped (one line, no control bytes)" {
    for f in "$H"/c4-*; do
        refused lat-convert --check "$f"
        refused lat-measure "$f"
    done
    refused lat-convert --check "$H/c4-type.lime"
    [[ "$line" == *'\x1b[2J\x1b]0;pwned\x07\x0d\x0alat-convert: fake second line'* ]] || { echo "$line"; return 1; }
    refused lat-convert --check "$H/c4-extent.lime"
    [[ "$line" == *'\xe2\x80\xae'* ]] || { echo "bidirectional override not escaped: $line"; return 1; }
}

@test "c4: text from a file in reports (history, names) is escaped in text and TSV" {
    for fmt in text tsv; do
        run -0 --separate-stderr "$BIN/lat-measure" --history --format $fmt "$G/good-history-escape.lime"
        if printf '%s' "$output" | tr -d '\n\t' | LC_ALL=C grep -q '[[:cntrl:]]'; then echo "$fmt: control bytes: $output"; return 1; fi
        [[ "$output" == *'\x1b]0;pwned\x07'* ]] || { echo "$fmt: $output"; return 1; }
    done
}

@test "c5: XML comments and CDATA are no elements; duplicates, signs, DOCTYPE refused" {
    for f in "$G"/good-*; do
        run -0 "$BIN/lat-convert" --check "$f"
        [[ "$output" == *4x4x4x4* ]] || { echo "${f##*/}: $output"; return 1; }
    done
    refused lat-convert --check "$H/c5-duplicate.lime"
    [[ "$line" == *"element <lx> appears 2 times"* ]]
    refused lat-convert --check "$H/c5-plus.lime"
    [[ "$line" == *"<lx> '+4' is not a positive lattice extent"* ]]
    refused lat-convert --check "$H/c5-dup-suma.lime"
    [[ "$line" == *"<suma> appears 2 times"* ]]
    for f in "$H"/c5-*; do refused lat-convert --check "$f"; done
}

@test "every hostile file: exit 1, one line naming it, no output or temporary file, an existing output unchanged (file and pipe)" {
    for f in "$H"/*; do
        refused lat-convert -o "$W/old.lime" "$f"
        untouched
        refused lat-overrelax --max-iter 1 -o "$W/old.lime" "$f"
        untouched
        run -1 --separate-stderr bash -c 'cat "$1" | "$2" -o "$3" -' _ "$f" "$BIN/lat-convert" "$W/old.lime"
        [[ "$stderr" == "lat-convert: standard input: "* ]] && [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "${f##*/} pipe: $stderr"; return 1; }
        untouched
    done
}

@test "c6: a report that cannot be written (stdout full or closed) is exit 1 with one line" {
    f="$BATS_FILE_TMPDIR/hot.lime"
    for p in "lat-convert --check" lat-measure lat-unitarity; do
        run --separate-stderr bash -c "\"$BIN\"/$p \"$f\" > /dev/full"
        [ "$status" -eq 1 ] && [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] && [[ "$stderr" == *"standard output"* ]] ||
            { echo "$p > /dev/full: status $status: $stderr"; return 1; }
        run --separate-stderr bash -c "\"$BIN\"/$p \"$f\" >&-"
        [ "$status" -eq 1 ] && [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] ||
            { echo "$p >&-: status $status: $stderr"; return 1; }
    done
}

# the pids of processes whose command line has this test's own folder
mine() { pgrep -f -- "$BATS_TEST_TMPDIR" || true; }
# ended_within MS PID: the process ends (and is reaped) within MS ms
ended_within() {
    local i
    for ((i = 0; i < $1 / 100; i++)); do
        kill -0 "$2" 2>/dev/null || { wait "$2" || true; return 0; }
        sleep 0.1
    done
    return 1
}
# a failed signal test leaves no long run behind
teardown() { local p; p=$(mine); [ -z "$p" ] || kill -9 $p 2>/dev/null || true; [ -z "${pg:-}" ] || kill -9 -- "-$pg" 2>/dev/null || true; }

@test "c7: SIGTERM/SIGINT to lat-gaugefix reach its stages: none left running, -o untouched, no temporary file" {
    "$BIN/lat-heatbath" -q --sweeps 0 --start hot -L 8x8x8x8 --seed 3 -o "$BATS_TEST_TMPDIR/in.lime"
    for sig in TERM INT; do
        env --default-signal=INT,TERM setsid "$PIPE/lat-gaugefix" --sa-steps 100000 -o "$W/old.lime" "$BATS_TEST_TMPDIR/in.lime" 2>/dev/null &
        p=$! pg=$!
        sleep 1
        [ -n "$(mine)" ] || { echo "the stages did not start"; return 1; }
        kill -s $sig $p
        ended_within 3000 $p || { echo "lat-gaugefix still running 3 s after SIG$sig"; return 1; }
        sleep 0.5
        [ -z "$(mine)" ] || { echo "left running after SIG$sig: $(ps -o pid,args -p "$(mine | tr '\n' ',' | sed 's/,$//')")"; return 1; }
        untouched
    done
}

@test "c7: lat-gribov-scan acts on SIGTERM at once: no copy left running, --best untouched" {
    "$BIN/lat-heatbath" -q --sweeps 0 --start hot -L 8x8x8x8 --seed 3 -o "$BATS_TEST_TMPDIR/in.lime"
    env --default-signal=INT,TERM setsid "$PIPE/lat-gribov-scan" -q -c 2 --sa-steps 100000 -o "$W/old.lime" --tsv "$W/t.tsv" "$BATS_TEST_TMPDIR/in.lime" 2>/dev/null &
    p=$! pg=$!
    sleep 1.5
    [ -n "$(mine)" ] || { echo "the copies did not start"; return 1; }
    kill -TERM $p
    ended_within 3000 $p || { echo "lat-gribov-scan still running 3 s after SIGTERM"; return 1; }
    sleep 0.5
    [ -z "$(mine)" ] || { echo "left running: $(mine)"; return 1; }
    untouched
}

@test "c8: a 0600 output stays 0600; a symlinked -o keeps the link and its target is replaced" {
    f="$BATS_FILE_TMPDIR/hot.lime"
    chmod 600 "$W/old.lime"
    "$BIN/lat-convert" --precision 32 -o "$W/old.lime" "$f"
    [ "$(stat -c %a "$W/old.lime")" = 600 ]
    ln -s old.lime "$W/link.lime"
    "$BIN/lat-convert" --precision 64 -o "$W/link.lime" "$f"
    [ -L "$W/link.lime" ] && [ "$(readlink "$W/link.lime")" = old.lime ]
    [ "$(stat -c %a "$W/old.lime")" = 600 ]
    "$BIN/lat-convert" --check "$W/old.lime" | grep -q '64-bit'
    ln -s sub/new.lime "$W/dangling.lime"
    mkdir "$W/sub"
    "$BIN/lat-convert" -o "$W/dangling.lime" "$f"
    [ -L "$W/dangling.lime" ] && [ -f "$W/sub/new.lime" ]
    [ "$(cd "$W" && ls -A | sort | tr '\n' ' ')" = "dangling.lime link.lime old.lime sub " ]
}

@test "c8: lat-gribov-scan --best and --tsv keep mode and symlinks" {
    "$BIN/lat-heatbath" -q --sweeps 0 --start hot -L 4x4x4x4 --seed 3 -o "$BATS_TEST_TMPDIR/in.lime"
    chmod 600 "$W/old.lime"
    : > "$W/t.tsv"; chmod 640 "$W/t.tsv"; ln -s t.tsv "$W/tl.tsv"
    run "$PIPE/lat-gribov-scan" -q -c 1 --sa-steps 10 --max-iter 50 -o "$W/old.lime" --tsv "$W/tl.tsv" "$BATS_TEST_TMPDIR/in.lime"
    [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
    [ "$(stat -c %a "$W/old.lime")" = 600 ] && [ "$(stat -c %a "$W/t.tsv")" = 640 ] && [ -L "$W/tl.tsv" ] && [ -s "$W/t.tsv" ]
}

@test "fuzz regression corpus: every input found by the fuzzer is read or refused with one line, never a crash" {
    n=0
    for f in "$ROOT"/tests/fuzz/regress/*; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        run --separate-stderr timeout 20 "$BIN/lat-convert" --check "$f"
        [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { echo "${f##*/}: status $status: $stderr"; return 1; }
        [ "$status" -eq 0 ] || [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "${f##*/}: $stderr"; return 1; }
    done
    [ "$n" -gt 0 ]
}
