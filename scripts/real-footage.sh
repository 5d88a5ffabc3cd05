#!/usr/bin/env bash
# Copies the real basketball videos LeBot is scored on (CameraTesting's RealFootage) into DEST,
# out of a clone of github.com/chonyy/AI-basketball-analysis. Their licence does not let us ship
# them, so they are not in this repository.
#
#   scripts/real-footage.sh DEST [CLONE]
#
# CLONE: a clone (or bare mirror) of that repository already on this machine. Without it the
# script clones it into DEST/.source (needs the network; blobs only, no checkout). Every file is
# checked against the git blob named in Sources/CameraTesting/RealFootage.swift, so a run scores
# exactly the bytes the numbers in BENCHMARKS.md came from. Safe to run again.
set -euo pipefail

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
dest=$1
clone=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dest"
if [[ -z $clone ]]; then
    clone=$dest/.source
    if [[ ! -d $clone ]]; then
        git clone --quiet --bare --filter=blob:none https://github.com/chonyy/AI-basketball-analysis "$clone" || {
            echo "real-footage: could not clone github.com/chonyy/AI-basketball-analysis; give a local clone as the second argument" >&2
            exit 1
        }
    fi
fi
# name|blob pairs, read from the one place they are written down.
grep -o 'name: "[^"]*", source: "[^"]*",\s*$\|blob: "[0-9a-f]\{40\}"' "$here/Sources/CameraTesting/RealFootage.swift" |
    sed 's/.*name: "\([^"]*\)".*/\1/; s/blob: "\([0-9a-f]*\)"/\1/' | paste -d'|' - - |
    while IFS='|' read -r name blob; do
        out=$dest/$name
        if [[ -f $out && $(git hash-object "$out") == "$blob" ]]; then continue; fi
        git -C "$clone" cat-file blob "$blob" >"$out.part" || {
            echo "real-footage: $name (blob $blob) is not in $clone" >&2
            rm -f "$out.part"
            exit 1
        }
        mv "$out.part" "$out"
        echo "real-footage: $name"
    done
