"""Runs Scrapy over one crawl step, for conformance/adapters/scrapy.yaml.

A spider that reads its start URLs from WEBKRAB_URLS, with Scrapy's HTTP cache
(RFC2616Policy, FilesystemCacheStorage) under {state}/scrapy-httpcache, so a
later step reuses a fresh response and revalidates a stale one with the
validators the cache kept. The request context goes on every request; each
crawl option mapped below becomes the Scrapy setting that means the same.
Over TLS the CA (WEBKRAB_CA) becomes SSL_CERT_FILE, OpenSSL's default verify
file; Scrapy's default context factory verifies nothing (see scrapy.yaml).
Values reach Scrapy as Python values, never as code.
"""
import json
import os
import re
import sys

from scrapy import Request, Spider
from scrapy.crawler import CrawlerProcess

TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
SIZES = {"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3}


def refuse(why):
    sys.stderr.write(f"{sys.argv[0]}: {why}\n")
    sys.exit(2)


def seconds(value, name):
    """A webkrab duration (500ms, 3s, 1h30m) in seconds."""
    text = str(value).strip()
    pos, total = 0, 0.0
    for m in DURATION.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * UNITS[m.group(2)]
        pos = m.end()
    if text == "" or pos != len(text):
        refuse(f"{name} is not a duration: {value!r}")
    return total


def size(value, name):
    """A webkrab size (100KB, 256KiB, 1MB) in bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(value))
    if m is None or m.group(2).lower() not in SIZES:
        refuse(f"{name} is not a size: {value!r}")
    return int(round(float(m.group(1)) * SIZES[m.group(2).lower()]))


def whole(value, name):
    if isinstance(value, bool) or not str(value).isdigit():
        refuse(f"{name} is not a whole number: {value!r}")
    return int(value)


def read_step():
    urls = [u for u in os.environ.get("WEBKRAB_URLS", "").split(" ") if u]
    for u in urls:
        if not re.match(r"^https?://", u):
            refuse(f"not an http(s) URL: {u!r}")
    try:
        headers = json.loads(os.environ.get("WEBKRAB_HEADERS") or "{}")
        options = json.loads(os.environ.get("WEBKRAB_OPTIONS") or "{}")
    except ValueError as err:
        refuse(f"WEBKRAB_HEADERS or WEBKRAB_OPTIONS is not JSON: {err}")
    for name, value in headers.items():
        if not TOKEN.match(name):
            refuse(f"request header name is not a token: {name!r}")
        if not isinstance(value, str) or re.search(r"[\r\n\0]", value):
            refuse(f"request header {name} has a CR, LF or NUL in its value")
    state = os.environ.get("WEBKRAB_STATE_DIR")
    if not state:
        refuse("WEBKRAB_STATE_DIR is not set")
    # over TLS, the file of the CA the site's certificates are signed by (None over plain HTTP)
    ca = os.environ.get("WEBKRAB_CA") or None
    if ca is not None and not os.path.isfile(ca):
        refuse(f"WEBKRAB_CA is not a file: {ca!r}")
    return urls, headers, options, state, ca


def settings_for(options, state, ca):
    s = {
        "HTTPCACHE_ENABLED": True,
        "HTTPCACHE_POLICY": "scrapy.extensions.httpcache.RFC2616Policy",
        "HTTPCACHE_STORAGE": "scrapy.extensions.httpcache.FilesystemCacheStorage",
        # an absolute HTTPCACHE_DIR is used as it is, outside any project
        "HTTPCACHE_DIR": os.path.join(state, "scrapy-httpcache"),
        "HTTPCACHE_EXPIRATION_SECS": 0,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        # the delay is the operator's, not a random share of it
        "RANDOMIZE_DOWNLOAD_DELAY": False,
    }
    if "max-attempts" in options:
        s["RETRY_TIMES"] = max(0, whole(options["max-attempts"], "max-attempts") - 1)
    if "max-redirects" in options:
        s["REDIRECT_MAX_TIMES"] = whole(options["max-redirects"], "max-redirects")
    if "response-timeout" in options:
        # DOWNLOAD_TIMEOUT bounds the whole download, connecting included
        s["DOWNLOAD_TIMEOUT"] = seconds(options["response-timeout"], "response-timeout")
    if "concurrency" in options:
        s["CONCURRENT_REQUESTS"] = whole(options["concurrency"], "concurrency")
    if "per-origin-concurrency" in options:
        # Scrapy's download slot is the host name: origins on one host share it
        s["CONCURRENT_REQUESTS_PER_DOMAIN"] = whole(options["per-origin-concurrency"], "per-origin-concurrency")
    if "politeness-delay" in options:
        s["DOWNLOAD_DELAY"] = seconds(options["politeness-delay"], "politeness-delay")
    if "max-duration" in options:
        s["CLOSESPIDER_TIMEOUT"] = seconds(options["max-duration"], "max-duration")
    if "max-requests" in options:
        # counts responses received; requests already sent are not recalled
        s["CLOSESPIDER_PAGECOUNT"] = whole(options["max-requests"], "max-requests")
    if "robots" in options:
        # RobotsTxtMiddleware reads each origin's /robots.txt before its first request and drops
        # a request it disallows, matching the group by the request's User-Agent
        if options["robots"] not in ("obey", "ignore"):
            refuse(f"robots is obey or ignore, not {options['robots']!r}")
        s["ROBOTSTXT_OBEY"] = options["robots"] == "obey"
    if "max-body-bytes" in options:
        s["DOWNLOAD_MAXSIZE"] = size(options["max-body-bytes"], "max-body-bytes")
        s["DOWNLOAD_WARNSIZE"] = 0
    # Scrapy is graded with its shipped DOWNLOADER_CLIENTCONTEXTFACTORY (ScrapyClientContextFactory),
    # which verifies no certificate: the CA reaches OpenSSL as SSL_CERT_FILE (set in main), and only
    # BrowserLikeContextFactory, which an operator would have to choose, reads it (see scrapy.yaml)
    return s


class WebKrabSpider(Spider):
    name = "webkrab"

    def __init__(self, urls, headers, revalidate, **kwargs):
        super().__init__(**kwargs)
        self.urls = urls
        self.context = dict(headers)
        if revalidate:
            # RFC 9111 §5.2.1.1: a request max-age=0 refuses a stored response
            # that is any age, so RFC2616Policy revalidates it
            self.context["Cache-Control"] = "max-age=0"

    def start_requests(self):
        for url in self.urls:
            yield Request(url, headers=self.context, dont_filter=True, callback=self.parse, errback=self.failed)

    def parse(self, response):
        self.logger.info("%s %s (%d bytes)", response.status, response.url, len(response.body))

    def failed(self, failure):
        self.logger.info("failed: %s", failure.getErrorMessage())


def main():
    urls, headers, options, state, ca = read_step()
    if ca is not None:
        # the operator's way to tell OpenSSL a CA: its default verify file, read when each
        # TLS context is made (SSL_CTX_set_default_verify_paths); the harness sets it too
        os.environ["SSL_CERT_FILE"] = ca
    process = CrawlerProcess(settings_for(options, state, ca))
    process.crawl(WebKrabSpider, urls=urls, headers=headers, revalidate=options.get("revalidate-always") is True)
    process.start()


if __name__ == "__main__":
    main()
