#!/usr/bin/env bash
# Installs the Debian packages hark needs, skipping those already present,
# then downloads the Go modules. Safe to run again and again.
set -euo pipefail

packages=(
  pkg-config gcc                                  # cgo
  portaudio19-dev libasound2-dev                  # microphone capture, playback
  pocketsphinx pocketsphinx-en-us libpocketsphinx-dev libsphinxbase-dev  # recognition
  sphinxbase-utils sphinxtrain                    # speaker adaptation (sphinx_fe, bw, mllr_solve)
  espeak-ng libespeak-ng-dev libmp3lame-dev       # synthesis, MP3 encoding
  flite                                           # speech fixtures for tests
  tmux                                            # end-to-end terminal tests
  postgresql                                      # the store's PostgreSQL engine, for its tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    echo "Go is at /usr/local/go/bin but not on PATH; the Makefile adds it." >&2
  else
    echo "Go (1.26 or newer) is required: install it at /usr/local/go." >&2
    exit 1
  fi
fi
