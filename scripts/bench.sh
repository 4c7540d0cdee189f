#!/usr/bin/env bash
# Runs the benchmarks of ./bench and writes the raw results, the SDK vs
# baseline table and, when benchstat can be run, its summary.
#
#   scripts/bench.sh [OUT] [OLD]
#
# OUT  results file (default bench/results/latest.txt); the table goes to
#      OUT with .table appended.
# OLD  an earlier results file: benchstat compares it with OUT.
#
# Environment: COUNT (runs per benchmark, default 6), BENCHTIME (default
# 0.3s), BENCH (regexp of the paired benchmarks, default .), BENCHSTAT (the
# benchstat command; default "go run golang.org/x/perf/cmd/benchstat@latest"),
# NORUN=1 (no run: the table and benchstat of an existing OUT), PAIRED_ONLY=1
# (only the run of the paired benchmarks: not the sandbox, webhook and
# parallel runs with -cpu).
# The sandbox throughput and webhook benchmarks also run with -cpu 1 (one
# core: client and server, or handler and GC, share it) and the
# parallel one with -cpu 1,2 to show scaling.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-bench/results/latest.txt}
old=${2:-}
count=${COUNT:-6}
benchtime=${BENCHTIME:-0.3s}
bench=${BENCH:-.}
benchstat=${BENCHSTAT:-go run golang.org/x/perf/cmd/benchstat@latest}
mkdir -p "$(dirname "$out")"

run() { go test -run '^$' -count "$count" -benchtime "$benchtime" "$@" ./bench/; }
[ -n "${NORUN:-}" ] || {
	echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(go version | cut -d' ' -f3-) $(git rev-parse --short HEAD 2>/dev/null || true), $(nproc) cores (shared)"
	run -bench "$bench" -skip 'Sandbox|Parallel'
	[ -n "${PAIRED_ONLY:-}" ] || {
		run -bench 'SandboxThroughput|Webhook' -cpu 1
		run -bench 'Parallel' -cpu 1,2
	}
} | grep -v '^\(PASS\|ok \)' | tee "$out"

# The table: median of each metric per benchmark; each */sdk next to its
# */baseline and, where it ran, its */ogen (the client ogen generated from
# the OpenAPI), with their time ratios (ratio: of the separate runs; inter:
# wall time of the interleaved run; cpu and cpu/og: the caller's CPU time
# in it, SDK over baseline and over ogen, the steadiest on a shared
# machine) and the extra allocations over the baseline; then the rates, and
# any benchmark that keeps memory per call.
awk '
function median(k, n,   i, j, t, a) {
	n = cnt[k]
	for (i = 1; i <= n; i++) a[i] = val[k, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
/^Benchmark/ {
	name = $1
	if (!(name in seen)) { seen[name] = 1; order[++names] = name }
	for (i = 3; i < NF; i += 2) { k = name SUBSEP $(i+1); val[k, ++cnt[k]] = $i; units[$(i+1)] = 1 }
}
function med(k) { return (k in cnt) ? median(k) : -1 }
function num(v, f) { return v < 0 ? "-" : sprintf(f, v) }
END {
	printf "%-30s %10s %10s %10s %6s %6s %6s %6s %9s %9s %9s %6s %6s %6s %5s  %s\n", "pair", "sdk ns/op", "base ns/op", "ogen ns/op", "ratio", "inter", "cpu", "cpu/og", "sdk B/op", "base B/op", "ogen B/op", "sdk al", "bs al", "og al", "+al", "targets: inter and cpu <= 1.10, +al <= 15"
	for (o = 1; o <= names; o++) {
		s = order[o]
		if (!match(s, /\/sdk(-[0-9]+)?$/)) continue
		p = substr(s, 1, RSTART - 1); cpu = substr(s, RSTART + 4); base = p "/baseline" cpu; og = p "/ogen" cpu; inter = p "/interleaved" cpu; p = p cpu
		if (!((base SUBSEP "ns/op") in cnt)) continue
		sn = median(s SUBSEP "ns/op"); bn = median(base SUBSEP "ns/op"); on = med(og SUBSEP "ns/op")
		sb = median(s SUBSEP "B/op"); bb = median(base SUBSEP "B/op"); ob = med(og SUBSEP "B/op")
		sa = median(s SUBSEP "allocs/op"); ba = median(base SUBSEP "allocs/op"); oa = med(og SUBSEP "allocs/op")
		r = sn / bn; ri = med(inter SUBSEP "sdk/base"); rc = med(inter SUBSEP "sdk/base-cpu"); ro = med(inter SUBSEP "sdk/ogen-cpu")
		verdict = (ri < 0 ? (r <= 1.10 ? "time ok" : "time OVER") : (ri <= 1.10 ? "wall ok" : "wall OVER")) \
			(rc < 0 ? "" : (rc <= 1.10 ? ", cpu ok" : ", cpu OVER")) ", " (sa - ba <= 15 ? "allocs ok" : "allocs OVER")
		printf "%-30s %10.0f %10.0f %10s %6.2f %6s %6s %6s %9.0f %9.0f %9s %6.0f %6.0f %6s %+5.0f  %s\n", substr(p, 10), sn, bn, num(on, "%.0f"), r, \
			num(ri, "%.2f"), num(rc, "%.2f"), num(ro, "%.2f"), sb, bb, num(ob, "%.0f"), sa, ba, num(oa, "%.0f"), sa - ba, verdict
	}
	print ""
	for (o = 1; o <= names; o++) {
		s = order[o]
		for (u in units) if (u ~ /\/s$/ && ((s SUBSEP u) in cnt)) printf "%-40s %12.0f %s\n", substr(s, 10), median(s SUBSEP u), u
	}
	for (o = 1; o <= names; o++) {
		s = order[o]
		if ((s SUBSEP "retained-B/op") in cnt && median(s SUBSEP "retained-B/op") > 64) printf "%-40s %12.1f retained-B/op (memory kept per call)\n", substr(s, 10), median(s SUBSEP "retained-B/op")
	}
}' "$out" | tee "$out.table"

if [ -n "$old" ]; then
	$benchstat "$old" "$out" || echo "(benchstat could not run: compare $old and $out by hand)"
else
	$benchstat "$out" || echo "(benchstat could not run)"
fi
