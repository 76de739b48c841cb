// A deliberately broken crawler for the conformance tests: on 429 or 503 it
// retries at once, ignoring Retry-After, up to three attempts per URL.
// Usage: node retry-at-once.mjs URL...
for (const url of process.argv.slice(2)) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const res = await fetch(url, { redirect: 'manual' })
    await res.arrayBuffer()
    if (res.status !== 429 && res.status !== 503) break
  }
}
