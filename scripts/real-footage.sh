#!/usr/bin/env bash
# Copies the real basketball videos LeBot is scored on (CameraTesting's RealFootage) into DEST,
# out of clones of the GitHub repositories they are published in
# (chonyy/AI-basketball-analysis, chrisalpuerto/Bball-shot-Detection). Their licences do not let
# us ship them, so they are not in this repository.
#
#   scripts/real-footage.sh DEST [MIRROR]
#
# MIRROR: a folder holding clones (or bare mirrors) already on this machine, one per repository,
# at MIRROR/OWNER+NAME/repo (the tool library's layout, /work/.mirror); a repository missing there
# is reported and its videos skipped (exit status 1 at the end). Without MIRROR each repository is
# cloned into DEST/.source (needs the network; blobs only, no checkout). Every file is
# checked against the git blob named in Sources/CameraTesting/RealFootage.swift, so a run scores
# exactly the bytes the numbers in BENCHMARKS.md came from. Safe to run again.
set -euo pipefail

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
dest=$1
mirror=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
list=$here/Sources/CameraTesting/RealFootage.swift
mkdir -p "$dest"

# The clone of OWNER/NAME: in MIRROR when given, else cloned into DEST/.source; empty when there is none.
clone_of() {
    local repo=$1 dir=${1/\//+}
    if [[ -n $mirror ]]; then
        if [[ -d $mirror/$dir/repo ]]; then echo "$mirror/$dir/repo"; else echo "real-footage: no clone of $repo at $mirror/$dir/repo" >&2; fi
        return
    fi
    local clone=$dest/.source/$dir
    if [[ ! -d $clone ]]; then
        git clone --quiet --bare --filter=blob:none "https://github.com/$repo" "$clone" >&2 || {
            echo "real-footage: could not clone github.com/$repo; give a folder holding it as MIRROR" >&2
            rm -rf "$clone"
            return
        }
    fi
    echo "$clone"
}

# name|blob|repository, read from the one place they are written down: a Video(name: …, source: …,
# blob: …) is in the default repository (Video.repository's default); hooptuber("clip", blob: …)
# (over one or two lines) is HooptuberDataset1's clip in the repository that function names.
default_repo=$(grep -o 'public var repository = "[^"]*"' "$list" | sed 's/.*"\(.*\)"/\1/')
hooptuber_repo=$(grep -o 'repository: "[^"]*")' "$list" | head -1 | sed 's/repository: "\(.*\)")/\1/')
{
    grep -o 'name: "[^"]*", source: "[^"]*",\s*$\|^\s*blob: "[0-9a-f]\{40\}"' "$list" |
        sed 's/.*name: "\([^"]*\)".*/\1/; s/\s*blob: "\([0-9a-f]*\)".*/\1/' | paste -d'|' - - | sed "s#\$#|$default_repo#"
    tr -s ' \n' ' ' <"$list" | grep -o 'hooptuber( \{0,1\}"[a-z0-9]*", blob: "[0-9a-f]\{40\}"' |
        sed "s#hooptuber( \\{0,1\\}\"\\([^\"]*\\)\", blob: \"\\([0-9a-f]*\\)\"#hooptuber-\\1.mp4|\\2|$hooptuber_repo#"
} >"$dest/.list"

failed=0
declare -A clones
while IFS='|' read -r name blob repo; do
    out=$dest/$name
    if [[ -f $out && $(git hash-object "$out") == "$blob" ]]; then continue; fi
    if [[ ! -v clones[$repo] ]]; then clones[$repo]=$(clone_of "$repo"); fi
    clone=${clones[$repo]}
    if [[ -z $clone ]] || ! git -C "$clone" cat-file blob "$blob" >"$out.part" 2>/dev/null; then
        echo "real-footage: $name (blob $blob) is not in ${clone:-a clone of github.com/$repo}" >&2
        rm -f "$out.part"
        failed=1
        continue
    fi
    mv "$out.part" "$out"
    echo "real-footage: $name"
done <"$dest/.list"
rm -f "$dest/.list"
exit $failed
