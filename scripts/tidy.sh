#!/usr/bin/env bash
# go mod tidy for the core and every other module of go.work.
#
# Until the core version the modules require is tagged, go mod tidy in a
# module cannot fetch it (tidy and go get ignore go.work), so each module is
# tidied with a temporary replace of the core by this checkout, which is
# dropped again: the go.mod files keep no replace.
set -euo pipefail
cd "$(dirname "$0")/.."
core=github.com/bankpay/bankpay-go
go mod tidy
for dir in $(go work edit -json | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p'); do
	[ "$dir" = "." ] && continue
	rel=$(realpath --relative-to="$dir" .)
	(
		cd "$dir"
		trap 'go mod edit -dropreplace "$core"' EXIT
		go mod edit -replace "$core=$rel"
		go mod tidy
	)
	echo "tidied $dir"
done
