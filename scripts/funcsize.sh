#!/usr/bin/env bash
# Lists every non-test function over the size limits of
# tools/lint/revive-size.toml as "path function rule", sorted; revive is
# the binary given as $1. scripts/lint.sh compares the list with
# tools/lint/size-allowlist.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
revive=$1
config=$PWD/tools/lint/revive-size.toml
modules=$(go work edit -json | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p')
for m in $modules; do
	(cd "$m" && "$revive" -config "$config" ./... 2>/dev/null || [[ $? == 3 ]]) | sed "s|^|${m#./}/|"
done | grep -v '_test\.go:' | while IFS=: read -r path line _ msg; do
	path=${path#./}
	if [[ $msg == *"cognitive complexity"* ]]; then
		name=$(sed -E 's/.*function ([^ ]+) has cognitive.*/\1/' <<<"$msg")
		echo "$path $name complexity"
	else
		# revive names no function for length: read it from the declaration.
		decl=$(sed -n "${line}p" "$path")
		name=$(sed -E 's/^func \([A-Za-z0-9_]* ?(\*?)([A-Za-z0-9_]+)(\[[^]]*\])?\) ([A-Za-z0-9_]+).*/(\1\2).\4/; s/^func ([A-Za-z0-9_]+).*/\1/' <<<"$decl")
		echo "$path $name length"
	fi
done | sort -u
