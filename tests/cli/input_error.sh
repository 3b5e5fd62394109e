# Sourced by the CLI tests. check_input_error NAME EXPECTED CODE OUT: the command just run (its
# stdout and stderr in $work/stdout and $work/stderr) exited with CODE; it must have exited 2 with
# the one line "acmesim: error: EXPECTED" on stderr, nothing on stdout, and no folder OUT.
# REQUIRES: $work and fail() defined by the caller.
check_input_error() {
  local name=$1 expected=$2 code=$3 out=$4
  [ "$code" = 2 ] || fail "$name: exit code $code, expected 2 ($(cat "$work/stderr"))"
  [ "$(grep -c . "$work/stderr")" = 1 ] || fail "$name: stderr is not one line: $(cat "$work/stderr")"
  [ "$(cat "$work/stderr")" = "acmesim: error: $expected" ] || fail "$name: stderr: $(cat "$work/stderr")"
  [ ! -s "$work/stdout" ] || fail "$name: wrote to stdout"
  [ ! -e "$out" ] || fail "$name: created $out"
  echo "ok: $name"
}
