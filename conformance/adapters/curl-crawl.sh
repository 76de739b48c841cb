#!/bin/sh
# Fetches one URL with curl as a crawler would, for conformance/adapters/curl.yaml.
# Usage: curl-crawl.sh STATE_DIR URL
# The harness passes the request context as `Name: value` lines in
# WEBKRAB_HEADER_LINES and each crawl option as WEBKRAB_OPT_<FLAG>.
set -u
state=$1
url=$2

# seconds from a duration such as 500ms, 3s, 10m, 1h, 1d
seconds () {
  awk -v d="$1" 'BEGIN {
    n = d + 0; u = d; sub(/^[0-9.]+/, "", u)
    f = (u == "ms") ? 0.001 : (u == "m") ? 60 : (u == "h") ? 3600 : (u == "d") ? 86400 : 1
    printf "%g", n * f
  }'
}

# One file set per URL and request context: the ETag saved last time, the headers to send.
key=$(printf '%s %s' "$url" "${WEBKRAB_HEADER_LINES:-}" | md5sum | cut -c1-16)
f="$state/$key"
printf '%b' "${WEBKRAB_HEADER_LINES:-}" > "$f.headers"

# Crawl options -> the curl flags that mean the same thing.
max_time=20
if [ -n "${WEBKRAB_OPT_RESPONSE_TIMEOUT:-}" ]; then max_time=$(seconds "$WEBKRAB_OPT_RESPONSE_TIMEOUT"); fi
set -- --silent --show-error --output "$f.body" --compressed --location --max-redirs "${WEBKRAB_OPT_MAX_REDIRECTS:-10}" \
  -H "@$f.headers" --etag-save "$f.etag.new"
if [ -n "${WEBKRAB_OPT_MAX_DURATION:-}" ]; then
  run=$(seconds "$WEBKRAB_OPT_MAX_DURATION")
  max_time=$(awk -v a="$max_time" -v b="$run" 'BEGIN { print (a < b) ? a : b }')
  # the deadline of the run also bounds retries and their waits
  set -- "$@" --retry-max-time "$run"
fi
if [ -n "${WEBKRAB_OPT_MAX_ATTEMPTS:-}" ]; then set -- "$@" --retry "$((WEBKRAB_OPT_MAX_ATTEMPTS - 1))"; else set -- "$@" --retry 2; fi
if [ -n "${WEBKRAB_OPT_CONNECT_TIMEOUT:-}" ]; then set -- "$@" --connect-timeout "$(seconds "$WEBKRAB_OPT_CONNECT_TIMEOUT")"; fi
# a body idle this long is given up: curl counts whole seconds of less than a byte a second
if [ -n "${WEBKRAB_OPT_IDLE_TIMEOUT:-}" ]; then
  set -- "$@" --speed-limit 1 --speed-time "$(awk -v s="$(seconds "$WEBKRAB_OPT_IDLE_TIMEOUT")" 'BEGIN { n = int(s); print (n < s || n < 1) ? n + 1 : n }')"
fi
# the harness runs the URLs one after the other: waiting the delay before each spaces them
if [ -n "${WEBKRAB_OPT_POLITENESS_DELAY:-}" ]; then sleep "$(seconds "$WEBKRAB_OPT_POLITENESS_DELAY")"; fi
# Only a non-empty saved ETag is sent back: an empty file would send If-None-Match: "".
if [ -s "$f.etag" ]; then set -- "$@" --etag-compare "$f.etag"; fi

curl "$@" --max-time "$max_time" "$url"
status=$?
# Keep the old tag when the response carried none (a 304 without ETag).
if [ -s "$f.etag.new" ]; then mv "$f.etag.new" "$f.etag"; else rm -f "$f.etag.new"; fi
exit $status
