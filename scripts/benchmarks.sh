#!/usr/bin/env bash
# Measures some of BENCHMARKS.md's figures again and replaces their block there (between the
# markers `<!-- benchmarks.sh:PART begin -->` and `... end -->`), with the date, the build (the
# commit, "+dirty" with uncommitted changes) and the command lines. The rest of the page is kept.
#
#   scripts/benchmarks.sh sim      the default solver on the engine alone: GAMES games (default 10)
#                                  from seed 1, classic spawns (`bot2048 sim --json`)
#   scripts/benchmarks.sh play     MOVES moves (default 300) of each real game under Xvfb
#                                  (`bot2048 play --max-moves MOVES --json`; needs
#                                  `scripts/games.sh install`), one game after another
#   scripts/benchmarks.sh all      both
#
# Environment: GAMES, MOVES, DISPLAY_NUM (default 98, for `play`). Builds the release binary first.
# The figures depend on the machine and its load: the block says how many cores it had.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-10}
MOVES=${MOVES:-300}
export DISPLAY_NUM=${DISPLAY_NUM:-98}
page=BENCHMARKS.md
bin=target/release/bot2048

build_id() {
  local id; id=$(git rev-parse --short HEAD)
  git diff --quiet HEAD -- src Cargo.toml Cargo.lock calibration networks || id+="+dirty"
  echo "$id"
}

# replace the block PART of the page with the text on stdin (the page is left as it was when
# the text is empty)
put_block() {
  local text; text=$(cat)
  python3 - "$page" "$1" "$text" <<'EOF'
import sys
page, part, block = sys.argv[1], sys.argv[2], sys.argv[3].strip()
if not block:
    sys.exit(f"benchmarks.sh: nothing measured for {part}; {page} left as it was")
text = open(page).read()
begin, end = f"<!-- benchmarks.sh:{part} begin -->", f"<!-- benchmarks.sh:{part} end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(page, "w").write(text[:i] + "\n" + block + "\n" + text[j:])
EOF
}

header() { # title command
  echo "**$1** ($(date -u +%Y-%m-%d), build $(build_id), $(nproc) cores; \`$2\`):"
  echo
}

part_sim() {
  local cmd=("$bin" sim --games "$GAMES" --seed 1 --json)
  echo "[benchmarks] ${cmd[*]}" >&2
  "${cmd[@]}" | python3 -c '
import json, sys
s = json.load(sys.stdin)
reach = ", ".join(f"{t}: {100 * r:.0f} %" for t, r in s["reach_rates"].items())
print("| games | avg score | median score | reached | moves/s | decision median / p99 |")
print("| --- | --- | --- | --- | --- | --- |")
print("| {games} | {avg_score:,.0f} | {median_score:,.0f} | {reach} | {moves_per_sec:,.0f} | "
      "{decision_ms_median:.2f} / {decision_ms_p99:.2f} ms |".format(reach=reach, **s))
' >/tmp/bot2048-bench-sim.$$
  { header "The default solver on the engine" "bot2048 ${cmd[*]:1}"; cat /tmp/bot2048-bench-sim.$$; } | put_block sim
  rm -f /tmp/bot2048-bench-sim.$$
}

part_play() {
  local state; state=$(mktemp -d "${TMPDIR:-/tmp}/bot2048-bench.XXXXXX")
  export STATE_DIR=$state
  trap 'scripts/games.sh stop >/dev/null 2>&1 || true; rm -rf "$state"' RETURN
  local rows="" game title json
  for game in web gnome qt; do
    case $game in web) title=2048 ;; gnome) title="GNOME 2048" ;; qt) title="2048 Game" ;; esac
    scripts/games.sh start "$game" >/dev/null
    echo "[benchmarks] $game: play --max-moves $MOVES" >&2
    json=$(DISPLAY=":$DISPLAY_NUM" XDG_SESSION_TYPE=x11 WAYLAND_DISPLAY='' \
      "$bin" play --window "$title" --max-moves "$MOVES" --json --no-failsafe || true)
    scripts/games.sh stop-game "$game"
    rows+=$(python3 -c '
import json, sys
g, j = sys.argv[1], sys.argv[2]
try:
    s = json.loads(j)
    print("| {g} | {moves} | {moves_per_sec:.2f} | {key_to_settled_ms:.0f} ms | {decide_depth:.0f} | {ponder_depth:.0f} | {desyncs} | {stop_reason} |".format(g=g, **s))
except (ValueError, KeyError):
    print(f"| {g} | no summary (see the messages above) | | | | | | |")
' "$game" "$json")$'\n'
  done
  {
    header "$MOVES moves of each real game, one after another" "play --max-moves $MOVES --json"
    echo "| game | moves | moves/s | key → settled (median) | decision depth (median) | depth pondered during the animation (median) | desyncs | stop |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
    printf '%s' "$rows"
  } | put_block play
}

case "${1:-}" in
  sim | play | all) ;;
  *) sed -n '2,15p' "$0"; exit 2 ;;
esac
cargo build --release --bin bot2048
case "$1" in
  sim) part_sim ;;
  play) part_play ;;
  all) part_sim; part_play ;;
esac
echo "[benchmarks] $page updated ($1): git diff $page shows what changed" >&2
