#!/usr/bin/env bash
# Installs the Debian packages CameraCore needs, only those missing. Quiet when all are present.
# Safe to run again and again (make run / make test call it every time).
set -euo pipefail

packages=(
    # Build: FFmpeg's libraries (headers + pkg-config files)
    pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavdevice-dev
    # Build: Cairo rasterises text and pen strokes in CameraEffects
    libcairo2-dev
    # Build: SQLite for the camera store (GRDB links the system library)
    libsqlite3-dev
    # Build: Tesseract's C API for CGame's on-screen text recognition, its English model, and the CLI (benchmark)
    libtesseract-dev tesseract-ocr tesseract-ocr-eng
    # Tests and benchmarks: the ffmpeg/ffprobe command lines as the independent reference
    ffmpeg
    # Tests: a real RTSP server (GStreamer's gst-rtsp-server through Debian's python3-gi)
    python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good
    gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly
    # Fonts for drawn test media and text effects
    fonts-dejavu-core
    # Tests: network namespaces with a veth pair for ONVIF discovery and port scans (ip netns)
    iproute2
    # LeBot's spoken feedback
    espeak-ng
    # Benchmark: nmap, the usual port scanner, side by side with `watchbox scan`
    nmap
    # Server tests: the storage layer against a real PostgreSQL (started by the tests on a loopback port)
    postgresql
    # Server tests: the web UI in headless Chromium, driven through WebDriver (chromedriver)
    chromium chromium-driver
    # Tests: a virtual environment for test peers from PyPI (ipycam, a virtual ONVIF/RTSP camera)
    python3-venv python3-pip
    # Tests and benchmarks: a real game for CGame — OpenArena (Quake III engine) bot matches on a
    # virtual X display, rendered in software, captured with x11grab
    openarena xvfb
    # Server benchmark: HTTP load from a second process (authenticated clip list, 50 connections);
    # curl for the upload benchmark and the server's Expect: 100-continue test
    wrk curl
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing missing packages: ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Swift toolchain is not a Debian package; it must be on PATH (or at /opt/swift).
if ! command -v swift >/dev/null && [ ! -x /opt/swift/usr/bin/swift ]; then
    echo "error: Swift 6 is not installed: put it on PATH or at /opt/swift (https://swift.org/install)" >&2
    exit 1
fi

# Test peers from PyPI, pinned, in a virtual environment outside the clone (kept between clones):
# ipycam is a virtual IP camera nobody here wrote (WS-Discovery, ONVIF with WS-Security, RTSP).
peers="${CAMERACORE_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/cameracore/peers}"
if ! "$peers/bin/python" -c 'import importlib.metadata as m; assert m.version("ipycam") == "1.3.0"' 2>/dev/null; then
    echo "Installing test peers into $peers (ipycam 1.3.0 from PyPI)"
    python3 -m venv "$peers"
    "$peers/bin/pip" install --quiet --disable-pip-version-check "ipycam==1.3.0" "numpy==2.4.6" "opencv-python==5.0.0.93" \
        || { echo "error: could not install ipycam from PyPI into $peers" >&2; exit 1; }
fi
