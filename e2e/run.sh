#!/bin/sh
# Browser test of examples/checkout: installs Debian's Chromium (when
# missing) and playwright-core, starts the shop on a loopback port, runs
# node --test, stops the shop. Screenshots go to e2e/artifacts/.
set -eu
cd "$(dirname "$0")"
if [ ! -x /usr/bin/chromium ]; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
npm ci --no-audit --no-fund
mkdir -p artifacts
bin=$(mktemp -d)/checkout
go build -o "$bin" ../examples/checkout
log=artifacts/checkout.log
: >"$log" # exists before the shop writes to it
"$bin" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 100); do
	url=$(sed -n 's|^checkout: open \(http://[^ ]*\)/ in a browser.*|\1|p' "$log")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$log"; echo "run.sh: the shop did not start" >&2; exit 1; }
CHECKOUT_URL=$url node --test --test-concurrency=1 checkout.test.js
