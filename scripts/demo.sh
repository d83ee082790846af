#!/usr/bin/env bash
# One command from a fresh Debian 12 machine (with rust, node/npm, python3) to a bot playing a real
# 2048: installs the packages (as root), builds bot2048, starts a virtual display with the game,
# and lets the bot play it to the end, saving a recording.
#
#   scripts/demo.sh [gnome|qt|web] [RECORD_DIR]      default: gnome, ./recording-<game>
#
# Watch it: the recording's frames/ folder holds every frame the bot used; log.jsonl one line per
# move. The game keeps running on display :$DISPLAY_NUM (default 99) until `scripts/games.sh stop`.
set -euo pipefail
cd "$(dirname "$0")/.."
game=${1:-gnome}
record=${2:-recording-$game}
case "$game" in
  gnome) title="GNOME 2048" ;;
  qt) title="2048 Game" ;;
  web) title="2048" ;;
  *) echo "unknown game $game (gnome | qt | web)" >&2; exit 2 ;;
esac
if [[ ! -x /usr/bin/Xvfb || ! -x /usr/games/gnome-2048 || ! -x /usr/games/2048-qt || ! -x /usr/bin/chromium ]]; then
  if [[ $(id -u) -ne 0 ]]; then echo "run as root once to install the packages (scripts/games.sh install)" >&2; exit 1; fi
  scripts/games.sh install
fi
cargo build --release
eval "$(scripts/games.sh start "$game")"
exec "${CARGO_TARGET_DIR:-target}/release/bot2048" play --window "$title" --record "$record" --no-failsafe
