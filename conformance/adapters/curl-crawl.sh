#!/bin/sh
# Fetches one URL with curl as a crawler would, for conformance/adapters/curl.yaml.
# Usage: curl-crawl.sh STATE_DIR URL   (the request context comes in WEBKRAB_HEADERS,
# the step's crawl options in WEBKRAB_OPTIONS, both JSON)
set -u
state=$1
url=$2
# One file set per URL and request context: the ETag saved last time, the headers to send.
key=$(printf '%s %s' "$url" "${WEBKRAB_HEADERS:-{\}}" | md5sum | cut -c1-16)
f="$state/$key"

# Request context -> -H lines; crawl options -> the curl flags that mean the same thing.
node -e '
  const h = JSON.parse(process.env.WEBKRAB_HEADERS || "{}")
  require("node:fs").writeFileSync(process.argv[1], Object.entries(h).map(([k, v]) => k + ": " + v + "\n").join(""))
  const o = JSON.parse(process.env.WEBKRAB_OPTIONS || "{}")
  const secs = d => { const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(String(d)); return m ? Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[m[2]] : 20 }
  const flags = []
  const limits = [o["response-timeout"], o["max-duration"]].filter(Boolean).map(secs)
  flags.push("--max-time", String(Math.min(20, ...limits)))
  // the deadline of the run also bounds retries and their waits
  if (o["max-duration"] !== undefined) flags.push("--retry-max-time", String(secs(o["max-duration"])))
  if (o["max-redirects"] !== undefined) flags.push("--max-redirs", String(o["max-redirects"]))
  if (o["max-attempts"] !== undefined) flags.push("--retry", String(Math.max(0, o["max-attempts"] - 1)))
  if (o["connect-timeout"] !== undefined) flags.push("--connect-timeout", String(secs(o["connect-timeout"])))
  console.log(flags.join(" "))
' "$f.headers" > "$f.flags"

set -- --silent --show-error --output "$f.body" --compressed --location --max-redirs 10 --retry 2 \
  -H "@$f.headers" --etag-save "$f.etag.new"
# Only a non-empty saved ETag is sent back: an empty file would send If-None-Match: "".
if [ -s "$f.etag" ]; then set -- "$@" --etag-compare "$f.etag"; fi
# shellcheck disable=SC2046 # the flags file holds separate words on purpose
curl "$@" $(cat "$f.flags") "$url"
status=$?
# Keep the old tag when the response carried none (a 304 without ETag).
if [ -s "$f.etag.new" ]; then mv "$f.etag.new" "$f.etag"; else rm -f "$f.etag.new"; fi
exit $status
