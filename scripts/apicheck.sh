#!/usr/bin/env bash
# The API-compatibility check of the packages merchants import (bankpay,
# models, bankpaytest) against the snapshot committed in internal/apicheck.
#
#   scripts/apicheck.sh          check: fail when apidiff -incompatible reports anything
#   scripts/apicheck.sh -w       write: regenerate the snapshot (a breaking change, or a
#                                release); commit it with its CHANGELOG entry
#
# apidiff (golang.org/x/exp/cmd/apidiff, pinned below) exits 0 whatever it
# finds, so the check fails on its -incompatible output being non-empty.
#
# The snapshot is apidiff's export data, whose format belongs to the apidiff
# and Go versions that wrote it. When this apidiff cannot read it (another
# Go or x/tools), the check does not pass silently nor fail on the format: it
# rebuilds the old API from the source of the commit that last wrote the
# snapshot (git worktree; needs the history, not a shallow clone) and compares
# with that. Regenerate the snapshot (-w) when the Go version of CI changes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

APIDIFF_VERSION=v0.0.0-20261113113407-e3970619a1a4 # golang.org/x/exp; .ci/run installs the same
module=github.com/bankpay/bankpay-go
pkgs="bankpay: models:models bankpaytest:bankpaytest" # snapshot name : directory
dir=internal/apicheck

if ! command -v apidiff >/dev/null 2>&1; then
	go install "golang.org/x/exp/cmd/apidiff@$APIDIFF_VERSION"
fi

path() { if [ -n "$1" ]; then echo "$module/$1"; else echo "$module"; fi; }

if [ "${1:-}" = "-w" ]; then
	for p in $pkgs; do
		apidiff -w "$dir/${p%%:*}.export" "$(path "${p#*:}")"
	done
	go version | cut -d' ' -f3 >"$dir/GOVERSION"
	echo "snapshot written to $dir (with $(cat "$dir/GOVERSION")); commit it with its CHANGELOG entry"
	exit 0
fi

# old_export NAME: a readable export file of NAME's snapshot.
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
rebuilt=""
old_export() {
	local name=$1 pkg=$2
	if apidiff "$dir/$name.export" "$dir/$name.export" >/dev/null 2>&1; then
		echo "$dir/$name.export"
		return
	fi
	if [ -z "$rebuilt" ]; then
		local base
		base=$(git log -1 --format=%H -- "$dir/$name.export")
		[ -n "$base" ] || { echo "apicheck: $dir/$name.export is unreadable and not in git history" >&2; exit 1; }
		echo "apicheck: the snapshot was written by $(cat "$dir/GOVERSION" 2>/dev/null || echo 'another Go'); rebuilding it from $base" >&2
		git worktree add --detach "$tmp/old" "$base" >/dev/null 2>&1
		rebuilt=yes
	fi
	(cd "$tmp/old" && GOWORK=off apidiff -w "$tmp/$name.export" "$(path "$pkg")")
	echo "$tmp/$name.export"
}

status=0
for p in $pkgs; do
	name=${p%%:*}
	old=$(old_export "$name" "${p#*:}")
	out=$(apidiff -incompatible "$old" "$(path "${p#*:}")")
	if [ -n "$out" ]; then
		echo "apicheck: incompatible changes in $(path "${p#*:}") since the snapshot:"
		echo "$out" | sed 's/^/  /'
		status=1
	fi
done
if [ $status -ne 0 ]; then
	cat <<'MSG'
apicheck: a breaking change needs a CHANGELOG entry (and a migration row in README) and the
snapshot regenerated in the same commit: scripts/apicheck.sh -w (make api-snapshot). See CONTRIBUTING.md.
MSG
	exit 1
fi
echo "apicheck: no incompatible change in bankpay, models, bankpaytest"
