#!/bin/sh
# A crawler for the adapter tests that records what the harness handed it: its
# arguments (one per line) and the WEBKRAB_* environment, in
# $WEBKRAB_STATE_DIR/run-<n>/, then fetches its URLs with curl.
# Usage: sh record-env.sh ARGS...
# per-URL runs go at once: take the first free run-<n> with mkdir, which only one run can win
n=1
while ! mkdir "$WEBKRAB_STATE_DIR/run-$n" 2>/dev/null; do n=$((n + 1)); done
dir="$WEBKRAB_STATE_DIR/run-$n"
for arg in "$@"; do printf '%s\n' "$arg"; done > "$dir/args"
env | grep '^WEBKRAB_' | sort > "$dir/env"
printf '%b' "$WEBKRAB_HEADER_LINES" > "$dir/headers"
for url in ${WEBKRAB_URL:-$WEBKRAB_URLS}; do
  curl --silent --output /dev/null -H "@$dir/headers" "$url"
done
