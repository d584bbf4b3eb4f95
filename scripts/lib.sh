# shellcheck shell=bash
# Shared by scripts/*: paths, the JDK, the firebase CLI, emulator ports.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache"
VENV="$ROOT/functions/venv"
PY="$VENV/bin/python"
PROJECT_ID="demo-cardchat"
FIRESTORE_EMULATOR_JAR_REAL="/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
export FIRESTORE_EMULATOR_BINARY_PATH="$CACHE/firestore-emulator.jar"
export CARDCHAT_DEMO_EMAIL="demo@cardchat.test"
export CARDCHAT_DEMO_PASSWORD="cardchat-demo"
mkdir -p "$CACHE"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }

# firebase-tools 15 needs Java >= 21; Temurin lives under /usr/lib/jvm here.
# Without one, tools/firebase-java17 pins firebase-tools 14, which runs on 17.
pick_java() {
  local d best="" fallback=""
  # CARDCHAT_JDK=/path/to/jdk picks one explicitly (and tests the Java 17 path).
  for d in ${CARDCHAT_JDK:-/usr/lib/jvm/temurin-*-jdk-* /usr/lib/jvm/*}; do
    [ -x "$d/bin/java" ] || continue
    local m; m=$(java_major "$d"); [ -n "$m" ] || continue
    if [ "$m" -ge 21 ] && [ -z "$best" ]; then best="$d"; fi
    if [ "$m" -ge 17 ] && [ -z "$fallback" ]; then fallback="$d"; fi
  done
  if [ -n "$best" ]; then
    JAVA_HOME="$best"; FIREBASE="$ROOT/node_modules/.bin/firebase"; JAVA_FALLBACK=0
  elif [ -n "$fallback" ]; then
    JAVA_HOME="$fallback"; FIREBASE="$ROOT/tools/firebase-java17/node_modules/.bin/firebase"; JAVA_FALLBACK=1
  else
    die "no JDK >= 17 under /usr/lib/jvm. Fix: apt-get install -y openjdk-17-jdk-headless (or a Temurin JDK 21+)"
  fi
  export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH" FIREBASE JAVA_FALLBACK
}

# CARDCHAT_PORT_OFFSET shifts every emulator port, so two stacks (a developer's
# scripts/dev and a scripts/test run) can share one machine.
OFFSET="${CARDCHAT_PORT_OFFSET:-0}"
port() { echo $(( $1 + OFFSET )); }
DIST="$ROOT/web/dist"; [ "$OFFSET" = 0 ] || DIST="$ROOT/web/dist-offset-$OFFSET"
AUTH_PORT=$(port 9099); FIRESTORE_PORT=$(port 8080); FUNCTIONS_PORT=$(port 5001); HOSTING_PORT=$(port 5000)

firebase_config() {
  if [ "$OFFSET" = 0 ]; then echo "$ROOT/firebase.json"; return; fi
  local out="$ROOT/firebase.offset-$OFFSET.json"
  OFFSET="$OFFSET" python3 - "$ROOT/firebase.json" "$out" <<'PY'
import json, os, sys
cfg = json.load(open(sys.argv[1])); off = int(os.environ["OFFSET"])
# each stack serves its own build: the SPA is built with its ports baked in
cfg["hosting"]["public"] = f"web/dist-offset-{off}"
for name, emu in cfg["emulators"].items():
    if isinstance(emu, dict):
        for key in ("port", "websocketPort"):
            if key in emu:
                emu[key] += off
json.dump(cfg, open(sys.argv[2], "w"), indent=2)
PY
  echo "$out"
}

# What the SPA and the test suites need to find the emulators.
export_stack_env() {
  export GCLOUD_PROJECT="$PROJECT_ID"
  export FIRESTORE_EMULATOR_HOST="127.0.0.1:$FIRESTORE_PORT"
  export FIREBASE_AUTH_EMULATOR_HOST="127.0.0.1:$AUTH_PORT"
  export CARDCHAT_FUNCTIONS_HOST="127.0.0.1:$FUNCTIONS_PORT"
  export CARDCHAT_APP_URL="http://127.0.0.1:$HOSTING_PORT"
}

build_spa() {
  say "building the SPA for the emulators"
  VITE_EMULATORS="{\"auth\":\"http://127.0.0.1:$AUTH_PORT\",\"firestore\":\"127.0.0.1:$FIRESTORE_PORT\",\"functions\":\"127.0.0.1:$FUNCTIONS_PORT\"}" \
    VITE_FIREBASE_CONFIG="{\"projectId\":\"$PROJECT_ID\",\"apiKey\":\"demo-key\",\"authDomain\":\"$PROJECT_ID.firebaseapp.com\"}" \
    "$@" npx --no-install vite build --config "$ROOT/web/vite.config.ts" --outDir "$DIST" --emptyOutDir --logLevel warn
}

# Python workers outlive `emulators:exec`; kill the whole process group.
kill_group() {
  local pgid="$1"
  kill -TERM -- "-$pgid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 -- "-$pgid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL -- "-$pgid" 2>/dev/null || true
}

# The demo deck is derived from Debian's git-doc; rebuilt when its generator changes.
DECK="$CACHE/demo-deck.json"
build_deck() {
  local want; want=$(cat "$ROOT"/functions/cardchat/demo_deck.py "$ROOT"/functions/cardchat/asciidoc.py 2>/dev/null | sha256sum | cut -c1-16)
  if [ ! -s "$DECK" ] || [ "$(cat "$DECK.stamp" 2>/dev/null)" != "$want" ]; then
    say "deriving the demo deck from the Git manual"
    (cd "$ROOT/functions" && "$PY" -m cardchat demo-deck "$DECK")
    echo "$want" > "$DECK.stamp"
  fi
}
