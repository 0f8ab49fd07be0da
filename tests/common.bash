# common.bash -- helpers the Bats files share.  Source it at the top of a
# .bats file (then a helper the file defines after it takes precedence) or
# in setup; the helpers need $BIN (lat_test_paths exports it).
#   lat_test_paths [PROGRAM...]   setup_file: ROOT BIN PIPE CONV DATA REAL
#                                 and SOURCE_DATE_EPOCH, each PROGRAM built
#   lat_test_dirs                 setup: T (setup_file's folder), W (empty)
#   mval, cval                    one value of lat-measure's / lat-convert
#                                 --check's tsv report
#   close, less, last_results     numbers, the last history entry
#   expect_error                  one-line failure of a program
#   expect_clean                  what a failing command may leave in $W
#   has_help_and_version          a program's --help and --version

# the paths of the tree, exported for the tests, and a fixed time for the
# files lat writes; fails (the Bats file with it) when a PROGRAM of bin/ is
# not built
lat_test_paths() { # [PROGRAM...]
    export ROOT="$BATS_TEST_DIRNAME/.."
    export BIN="$ROOT/bin" PIPE="$ROOT/pipelines"
    export CONV="$BIN/lat-convert"
    export DATA="$ROOT/../shared/data" REAL="${REAL:-$ROOT/../realdata}"
    export SOURCE_DATE_EPOCH=1700000000
    local p
    for p in "$@"; do
        [ -x "$BIN/$p" ] || { echo "bin/$p missing: run make first" >&2; return 1; }
    done
}

# T: the file's scratch folder (what setup_file made there); W: a fresh
# empty folder of the test's own
lat_test_dirs() {
    T="$BATS_FILE_TMPDIR"
    W="$BATS_TEST_TMPDIR/w"
    mkdir -p "$W"
}

# one value of a lat-measure tsv report
mval() { # FILE NAME [lat-measure options]
    local f=$1 n=$2
    shift 2
    "$BIN/lat-measure" -q --format tsv "$@" "$f" | awk -F'\t' -v n="$n" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }'
}
# values of lat-convert --check --format tsv, by column name, on one line
# blank-separated (a value may hold blanks itself: ask for one then)
cval() { # FILE NAME...
    local f=$1
    shift
    "$BIN/lat-convert" --check --format tsv "$f" | awk -F'\t' -v names="$*" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n = split(names, w, " "); for (k = 1; k <= n; k++) printf "%s%s", $col[w[k]], k < n ? " " : "\n" }'
}
# |a - b| < tol
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }'; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# the last history entry's results
last_results() { "$BIN/lat-measure" -q --history --format tsv "$1" | tail -n 1 | cut -f 5; }

# status, one line on stderr naming the program (and matching the extended
# regular expression PATTERN when one is given), nothing on stdout
expect_error() { # STATUS PROGRAM-NAME [PATTERN] -- command...
    local want=$1 name=$2 pat=
    shift 2
    if [ "$1" != -- ]; then pat=$1; shift; fi
    [ "$1" = -- ] || { echo "expect_error: '--' expected before the command, got '$1'"; return 1; }
    shift
    run --separate-stderr "$@"
    [ "$status" -eq "$want" ] || { echo "status $status, expected $want; stderr: $stderr"; return 1; }
    [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "not one line: $stderr"; return 1; }
    [[ "$stderr" == "$name":\ * ]] || { echo "no program name: $stderr"; return 1; }
    [ -z "$pat" ] || [[ "$stderr" =~ $pat ]] || { echo "'$stderr' does not match '$pat'"; return 1; }
    [ -z "$output" ] || { echo "stdout not empty: $output"; return 1; }
}

# mpirun with what CI needs: root allowed, 4 ranks on 2 cores, shared memory
mpi() { # R PROGRAM ARGS...
    local r=$1
    shift
    mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np "$r" "$@"
}

# the setup of a file of MPI tests: skipped without MPI or mpirun; T the
# file's folder, the test's own folder the working directory
mpi_setup() {
    grep -q 'MPI=1' "$ROOT/build/.config" || skip "built without MPI (make MPI=0)"
    command -v mpirun >/dev/null || skip "mpirun not found"
    T="$BATS_FILE_TMPDIR"
    cd "$BATS_TEST_TMPDIR"
}

# mpirun_stdin FILE R PROGRAM ARGS...: PROGRAM on R ranks with FILE as its
# standard input (mpirun forwards it to rank 0).  OpenMPI 4.1.4's mpirun
# itself now and then crashes in that forwarding (a segmentation fault in
# orte_iof_hnp_read_local_handler, about 1 run in 10-30 here, whatever the
# program does, with or without an error): only such a run of mpirun is
# repeated, up to 5 times; the program's own output and status count.
mpirun_stdin() {
    local in=$1 r=$2 out err st try
    shift 2
    out=$(mktemp) err=$(mktemp)
    for try in 1 2 3 4 5; do
        st=0
        mpi "$r" "$@" < "$in" > "$out" 2> "$err" || st=$?
        grep -q orte_iof_hnp_read_local_handler "$err" || break
    done
    cat "$out"
    cat "$err" >&2
    rm -f "$out" "$err"
    return "$st"
}

# the failing command may not leave anything in $W (only what was there)
expect_clean() { # FILE... that must be in $W
    local left
    left=$(cd "$W" && ls -A | sort | tr '\n' ' ')
    [ "$left" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/^ *//')" ] || { echo "left in $W: $left"; return 1; }
}

# --help prints a usage and --version lat's version line, both exit 0
has_help_and_version() { # PROGRAM-PATH
    run "$1" --help
    [ "$status" -eq 0 ] && [[ "$output" == Usage:* ]] || { echo "$1 --help: status $status: $output"; return 1; }
    run "$1" --version
    [ "$status" -eq 0 ] && [[ "$output" == *"(lat) "[0-9]* ]] || { echo "$1 --version: status $status: $output"; return 1; }
}
